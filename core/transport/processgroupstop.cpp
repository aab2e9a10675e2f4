#include "processgroupstop.h"

#include "childreaper.h"
#include "procstat.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>

#include <algorithm>
#include <csignal>
#include <sys/types.h>
#include <utility>

namespace mcpscope {

namespace {
/// Detached stops not finished yet; all live on the main thread.
int s_detachedRunning = 0;
} // namespace

ProcessGroupStop::ProcessGroupStop(QProcess* process, qint64 group, QObject* parent)
    : QObject(parent)
    , m_process(process)
    , m_group(group)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ProcessGroupStop::onTimeout);
}

ProcessGroupStop::~ProcessGroupStop()
{
    if (m_finished || m_group <= 0)
        return;
    // Destroyed before the leader's exit was seen: the program is exiting, with no event loop left
    // to report it. What is left of the group dies now; QProcess reaps a leader it still holds.
    signalGroup(m_group, SIGKILL);
}

void ProcessGroupStop::stop(int termAfterMs, int graceMs)
{
    begin(1, termAfterMs, graceMs);
}

void ProcessGroupStop::kill()
{
    begin(2, 0, 0);
}

void ProcessGroupStop::begin(int firstStep, int firstWaitMs, int graceMs)
{
    if (std::exchange(m_started, true))
        return;
    m_step = firstStep;
    m_graceMs = graceMs;
    // Connected now, after the owner's own handlers: what the leader wrote before it died is read
    // before the stop reports it gone.
    if (m_process)
        connect(m_process, &QProcess::finished, this, &ProcessGroupStop::onLeaderFinished);
    m_timer.start(firstWaitMs);
}

void ProcessGroupStop::detach(QProcess* process, qint64 group, int graceMs)
{
    auto* stop = new ProcessGroupStop(process, group, QCoreApplication::instance());
    process->setParent(stop);
    ++s_detachedRunning;
    connect(stop, &ProcessGroupStop::finished, stop, [stop] {
        --s_detachedRunning;
        stop->deleteLater();
    });
    // The first signal goes now: a program that is exiting may run no event loop any more.
    signalGroup(group, graceMs > 0 ? SIGTERM : SIGKILL);
    if (graceMs <= 0)
        stop->killLeader();
    stop->begin(2, graceMs, 0);
}

bool ProcessGroupStop::finishDetached(int timeoutMs)
{
    QElapsedTimer elapsed;
    elapsed.start();
    while (s_detachedRunning > 0 && elapsed.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
    // The stops that finished asked to be deleted; with no event loop left, that happens now.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    return s_detachedRunning == 0;
}

bool ProcessGroupStop::leaderRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

void ProcessGroupStop::onTimeout()
{
    const bool leader = leaderRunning();
    if (!leader && !groupRuns(m_group)) {
        finish();
        return;
    }
    if (m_step == 1) {
        signalGroup(m_group, SIGTERM);
        m_step = 2;
        m_timer.start(m_graceMs);
        return;
    }
    signalGroup(m_group, SIGKILL);
    killLeader();
    if (!leader)
        finish(); // otherwise the leader's exit completes the stop
}

void ProcessGroupStop::killLeader()
{
    // Right after fork the child has not made its group yet, and a signal to the group finds none.
    // The leader, not reaped, cannot have been replaced by another process under its pid.
    if (leaderRunning())
        m_process->kill();
}

void ProcessGroupStop::onLeaderFinished()
{
    // Something the leader started may still hold the group: the running timer escalates.
    if (!groupRuns(m_group) || !m_timer.isActive())
        finish();
}

void ProcessGroupStop::finish()
{
    if (std::exchange(m_finished, true))
        return;
    m_timer.stop();
    if (m_group > 0) {
        signalGroup(m_group, SIGKILL);
        // Members whose parent died before them were handed to us (ChildReaper::becomeSubreaper). Those
        // already gone are reaped now, the ones the SIGKILL has yet to end by the reaper's next pass.
        ChildReaper::reapAdopted();
    }
    Q_EMIT finished();
}

void ProcessGroupStop::signalGroup(qint64 group, int signal)
{
    if (group > 0)
        ::kill(-pid_t(group), signal);
}

bool ProcessGroupStop::groupRuns(qint64 group)
{
    if (group <= 0 || ::kill(-pid_t(group), 0) != 0)
        return false;
#ifdef Q_OS_LINUX
    // kill() also finds zombies. Members orphaned by the leader's death stay zombies until init
    // reaps them, which container inits do only every second or two, so only a member that still
    // runs counts.
    const QList<ProcStat> processes = readProcStats();
    return std::any_of(processes.cbegin(), processes.cend(),
        [group](const ProcStat& process) { return process.group == group && !process.zombie; });
#else
    return true;
#endif
}

} // namespace mcpscope
