#include "childreaper.h"

#include "procstat.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QProcess>
#include <QSet>
#include <QThread>

#include <csignal>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace mcpscope {

namespace {

#ifdef Q_OS_LINUX
constexpr int PollMs = 10;
constexpr int KillWaitMs = 500;

using Process = ProcStat;

/// Every process below root, read from /proc (parents first).
QList<Process> descendantsOf(pid_t root)
{
    QHash<pid_t, QList<Process>> children;
    for (const ProcStat& process : readProcStats())
        children[process.ppid].append(process);
    QList<Process> below = children.value(root);
    for (qsizetype i = 0; i < below.size(); ++i)
        below.append(children.value(below.at(i).pid));
    return below;
}
#endif

} // namespace

bool ChildReaper::becomeSubreaper()
{
#ifdef Q_OS_LINUX
    return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
#else
    return false;
#endif
}

int ChildReaper::stopDescendants(int graceMs)
{
#ifdef Q_OS_LINUX
    const pid_t self = ::getpid();
    // A QProcess reaps its own child (through its forkfd); reaping it here would leave it waiting on
    // a process that no longer exists.
    QSet<pid_t> held;
    if (const QCoreApplication* app = QCoreApplication::instance()) {
        const QList<QProcess*> processes = app->findChildren<QProcess*>();
        for (const QProcess* process : processes) {
            if (process->processId() > 0)
                held.insert(pid_t(process->processId()));
        }
    }
    QSet<pid_t> found;
    bool killing = false;
    QElapsedTimer elapsed;
    elapsed.start();
    for (;;) {
        bool running = false;
        // Each pass looks again: a process that dies hands its own children to us.
        const QList<Process> below = descendantsOf(self);
        for (const Process& process : below) {
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
#else
    Q_UNUSED(graceMs)
    return 0;
#endif
}

} // namespace mcpscope
