#include "childreaper.h"

#include "childreaper_p.h"

#include <QCoreApplication>
#include <QList>
#include <QPointer>
#include <QProcess>
#include <QTimer>

#include <algorithm>

namespace mcpscope {

namespace {

/// An adopted process that ends is a zombie until the next pass: often enough that none lingers after
/// a respawn, rarely enough to cost nothing (a pass reads one small /proc file per thread and child).
constexpr int PassIntervalMs = 1000;

struct Reaper
{
    bool subreaper = false;
    QList<QPointer<QProcess>> held;
    QPointer<QTimer> timer;
};

Reaper& reaper()
{
    static Reaper instance;
    return instance;
}

/// The children only their QProcess may reap: the held ones, and any QProcess below the application
/// object (a stop's leader at exit).
QSet<qint64> heldPids()
{
    QSet<qint64> pids;
    QList<QPointer<QProcess>>& held = reaper().held;
    held.removeIf([](const QPointer<QProcess>& process) { return process.isNull(); });
    for (const QPointer<QProcess>& process : std::as_const(held)) {
        if (process->processId() > 0)
            pids.insert(process->processId());
    }
    if (const QCoreApplication* app = QCoreApplication::instance()) {
        const QList<QProcess*> processes = app->findChildren<QProcess*>();
        for (const QProcess* process : processes) {
            if (process->processId() > 0)
                pids.insert(process->processId());
        }
    }
    return pids;
}

bool heldRunning()
{
    const QList<QPointer<QProcess>>& held = reaper().held;
    return std::any_of(held.cbegin(), held.cend(),
        [](const QPointer<QProcess>& process) { return process && process->state() != QProcess::NotRunning; });
}

void pass()
{
    bool adoptedRunning = false;
    ChildReaperPlatform::reapChildren(heldPids(), &adoptedRunning);
    // Only a running server or an adopted process can hand us another process; with neither, an idle
    // McpScope wakes for nothing. The next hold() starts the passes again.
    if (!adoptedRunning && !heldRunning() && reaper().timer)
        reaper().timer->stop();
}

void schedulePasses()
{
    QCoreApplication* app = QCoreApplication::instance();
    if (!reaper().subreaper || !app)
        return;
    if (!reaper().timer) {
        reaper().timer = new QTimer(app);
        reaper().timer->setInterval(PassIntervalMs);
        QObject::connect(reaper().timer, &QTimer::timeout, app, &pass);
    }
    if (!reaper().timer->isActive())
        reaper().timer->start();
}

} // namespace

bool ChildReaper::becomeSubreaper()
{
    reaper().subreaper = ChildReaperPlatform::becomeSubreaper();
    return reaper().subreaper;
}

void ChildReaper::hold(QProcess* process)
{
    if (!process)
        return;
    reaper().held.append(process);
    schedulePasses();
}

int ChildReaper::reapAdopted()
{
    // Only a subreaper is handed processes it did not start; in any other process (a test that runs its
    // own QProcesses without holding them) every child belongs to a QProcess.
    if (!reaper().subreaper)
        return 0;
    bool adoptedRunning = false;
    const int reaped = ChildReaperPlatform::reapChildren(heldPids(), &adoptedRunning);
    if (adoptedRunning)
        schedulePasses();
    return reaped;
}

int ChildReaper::stopDescendants(int graceMs)
{
    return ChildReaperPlatform::stopDescendants(heldPids(), graceMs);
}

} // namespace mcpscope
