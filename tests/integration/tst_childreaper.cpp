// ChildReaper (issue 12) in this very process, made a child subreaper as the mains make themselves:
// a process handed to us because its parent died is reaped while we run, by its own pid, and a child
// a QProcess started is left to that QProcess, whose exit code still arrives. Real processes (sh,
// sleep) throughout.

#include "transport/childreaper.h"
#include "transport/procstat.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <csignal>
#include <optional>
#include <unistd.h>

using namespace Qt::StringLiterals;
using mcpscope::ChildReaper::becomeSubreaper;
using mcpscope::ChildReaper::hold;
using mcpscope::ChildReaper::reapAdopted;

namespace {

constexpr int WaitMs = 10000;

/// The process as /proc shows it; nullopt once it is gone (reaped).
std::optional<mcpscope::ProcStat> statOf(qint64 pid)
{
    return mcpscope::readProcStat(pid_t(pid), QString::number(pid));
}

/// Blocks, without the event loop (so no QProcess can reap it meanwhile), until pid is a zombie.
bool becomesZombie(qint64 pid)
{
    const QDeadlineTimer deadline(WaitMs);
    while (!deadline.hasExpired()) {
        const std::optional<mcpscope::ProcStat> stat = statOf(pid);
        if (stat && stat->zombie)
            return true;
        QThread::msleep(5);
    }
    return false;
}

/// Starts `sh -c` with a sleep in the background and lets the shell exit: the sleep is handed to us.
/// Returns the sleep's pid, or 0.
qint64 adoptSleeper()
{
    QProcess shell;
    shell.start(u"sh"_s, { u"-c"_s, u"sleep 30 </dev/null >/dev/null 2>&1 & echo $!"_s });
    hold(&shell);
    if (!shell.waitForFinished(WaitMs))
        return 0;
    return shell.readAllStandardOutput().trimmed().toLongLong();
}

} // namespace

class TestChildReaper : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void adoptedProcessIsReapedWhileRunning();
    void onlyAdoptedZombiesAreReaped();
};

void TestChildReaper::initTestCase()
{
    QVERIFY(becomeSubreaper());
}

void TestChildReaper::adoptedProcessIsReapedWhileRunning()
{
    const qint64 sleeper = adoptSleeper();
    QVERIFY(sleeper > 0);
    const std::optional<mcpscope::ProcStat> adopted = statOf(sleeper);
    QVERIFY(adopted);
    QCOMPARE(adopted->ppid, ::getpid());
    QCOMPARE(::kill(pid_t(sleeper), SIGKILL), 0);
    // Nobody calls reapAdopted() here: the reaper's own passes, on the event loop, find it.
    QTRY_VERIFY_WITH_TIMEOUT(!statOf(sleeper), WaitMs);
}

void TestChildReaper::onlyAdoptedZombiesAreReaped()
{
    const qint64 sleeper = adoptSleeper();
    QVERIFY(sleeper > 0);
    QProcess child;
    QSignalSpy finished(&child, &QProcess::finished);
    child.start(u"sh"_s, { u"-c"_s, u"exit 7"_s });
    hold(&child);
    QVERIFY(child.waitForStarted(WaitMs));
    const qint64 childPid = child.processId();
    QCOMPARE(::kill(pid_t(sleeper), SIGKILL), 0);
    QVERIFY(becomesZombie(sleeper));
    QVERIFY(becomesZombie(childPid));

    // Both are zombies whose parent is us; only the adopted one is ours to reap.
    QCOMPARE(reapAdopted(), 1);
    QVERIFY(!statOf(sleeper));
    const std::optional<mcpscope::ProcStat> held = statOf(childPid);
    QVERIFY(held && held->zombie);
    // Its QProcess reaps it and still learns how it ended.
    QVERIFY(finished.wait(WaitMs));
    QCOMPARE(child.exitStatus(), QProcess::NormalExit);
    QCOMPARE(child.exitCode(), 7);
    QVERIFY(!statOf(childPid));
}

QTEST_GUILESS_MAIN(TestChildReaper)
#include "tst_childreaper.moc"
