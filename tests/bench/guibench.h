#pragma once

// What the benchmarks that drive the real window share: the process's RSS figures, a 1 ms heartbeat
// on the GUI thread that measures the longest stall a person would feel, and waiting on the event loop.

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

#include <algorithm>
#include <ctime>
#include <functional>

namespace mcpscope::bench {

/// A field of /proc/self/status in KiB (VmHWM: peak resident set, VmRSS: now).
inline qint64 statusKiB(const char* field)
{
    QFile file(QStringLiteral("/proc/self/status"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qstrlen(field) + 1).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

inline double mib(qint64 kib)
{
    return double(kib) / 1024.0;
}

/// CPU time this thread has used, in ns.
inline qint64 threadCpuNs()
{
    timespec t {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return qint64(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// The longest gap between 1 ms ticks on the GUI thread since the last reset(), as wall time and as the
/// CPU time the GUI thread used in that gap (its own work). On a machine busy with other work the wall
/// gap also holds the time the thread waited for a core; the work figure does not.
class Heartbeat
{
public:
    Heartbeat()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            const qint64 cpu = threadCpuNs();
            m_longestNs = std::max(m_longestNs, now - m_lastNs);
            m_longestWorkNs = std::max(m_longestWorkNs, cpu - m_lastCpuNs);
            m_lastNs = now;
            m_lastCpuNs = cpu;
            if (m_onBeat)
                m_onBeat();
        });
        m_clock.start();
        m_lastCpuNs = threadCpuNs();
        m_timer.start();
    }
    void reset()
    {
        m_lastNs = m_clock.nsecsElapsed();
        m_lastCpuNs = threadCpuNs();
        m_longestNs = 0;
        m_longestWorkNs = 0;
    }
    double longestMs() const { return double(std::max(m_longestNs, m_clock.nsecsElapsed() - m_lastNs)) / 1e6; }
    double longestWorkMs() const { return double(std::max(m_longestWorkNs, threadCpuNs() - m_lastCpuNs)) / 1e6; }
    void onBeat(std::function<void()> f) { m_onBeat = std::move(f); }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    qint64 m_longestNs = 0;
    qint64 m_lastCpuNs = 0;
    qint64 m_longestWorkNs = 0;
    std::function<void()> m_onBeat;
};

/// Runs the event loop until ready() holds or timeoutMs passes; returns ready().
inline bool waitFor(const std::function<bool()>& ready, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!ready() && t.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 5);
    return ready();
}

} // namespace mcpscope::bench
