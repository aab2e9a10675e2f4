// ChildReaper on Linux: PR_SET_CHILD_SUBREAPER, and /proc to find what was handed to us.

#include "childreaper_p.h"

#include "procstat.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QList>
#include <QThread>

#include <csignal>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mcpscope {

namespace {

constexpr int PollMs = 10;
constexpr int KillWaitMs = 500;

/// Every process below root, read from /proc (parents first).
QList<ProcStat> descendantsOf(pid_t root)
{
    QHash<pid_t, QList<ProcStat>> children;
    for (const ProcStat& process : readProcStats())
        children[process.ppid].append(process);
    QList<ProcStat> below = children.value(root);
    for (qsizetype i = 0; i < below.size(); ++i)
        below.append(children.value(below.at(i).pid));
    return below;
}

/// This process's own children. /proc/self/task/TID/children lists each thread's (an adopted process
/// goes to one of them), a few small reads where a whole /proc scan would read every process on the
/// machine; the scan is the fallback on kernels built without CONFIG_PROC_CHILDREN.
QList<ProcStat> ownChildren(pid_t self)
{
    const QString tasks = QStringLiteral("/proc/self/task");
    const QStringList threads = QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QList<ProcStat> children;
    bool listed = false;
    for (const QString& thread : threads) {
        QFile file(tasks + QLatin1Char('/') + thread + QStringLiteral("/children"));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        listed = true;
        const QList<QByteArray> pids = file.readAll().simplified().split(' ');
        for (const QByteArray& text : pids) {
            bool isPid = false;
            const pid_t pid = pid_t(text.toInt(&isPid));
            // Gone (reaped by its QProcess) since the list was read: nothing to do for it.
            if (isPid)
                if (const std::optional<ProcStat> child = readProcStat(pid, QString::fromLatin1(text)))
                    children.append(*child);
        }
    }
    if (listed)
        return children;
    QList<ProcStat> all = readProcStats();
    all.removeIf([self](const ProcStat& process) { return process.ppid != self; });
    return all;
}

} // namespace

bool ChildReaperPlatform::becomeSubreaper()
{
    return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

int ChildReaperPlatform::reapChildren(const QSet<qint64>& held, bool* adoptedRunning)
{
    const pid_t self = ::getpid();
    int reaped = 0;
    *adoptedRunning = false;
    for (const ProcStat& child : ownChildren(self)) {
        if (child.ppid != self || held.contains(child.pid))
            continue;
        if (!child.zombie)
            *adoptedRunning = true;
        else if (::waitpid(child.pid, nullptr, WNOHANG) == child.pid)
            ++reaped;
    }
    return reaped;
}

int ChildReaperPlatform::stopDescendants(const QSet<qint64>& held, int graceMs)
{
    const pid_t self = ::getpid();
    QSet<pid_t> found;
    bool killing = false;
    QElapsedTimer elapsed;
    elapsed.start();
    for (;;) {
        bool running = false;
        // Each pass looks again: a process that dies hands its own children to us.
        const QList<ProcStat> below = descendantsOf(self);
        for (const ProcStat& process : below) {
            if (process.zombie) {
                if (process.ppid == self && !held.contains(process.pid))
                    ::waitpid(process.pid, nullptr, WNOHANG);
                continue;
            }
            running = true;
            const bool first = !found.contains(process.pid);
            found.insert(process.pid);
            if (killing) {
                ::kill(process.pid, SIGKILL);
            } else if (first) {
                ::kill(process.pid, SIGTERM);
                // A suspended server (the SIGSTOP fault) acts on SIGTERM only once it runs again.
                ::kill(process.pid, SIGCONT);
            }
        }
        if (!running)
            break;
        if (!killing && elapsed.elapsed() >= graceMs) {
            killing = true;
            continue;
        }
        if (killing && elapsed.elapsed() >= graceMs + KillWaitMs)
            break;
        QThread::msleep(PollMs);
    }
    return int(found.size());
}

} // namespace mcpscope
