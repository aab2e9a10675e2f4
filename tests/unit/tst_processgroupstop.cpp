#include "transport/processgroupstop.h"

#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

using mcpscope::ProcessGroupStop;

namespace {

constexpr int GraceMs = 300;
constexpr int StopWaitMs = 10000;

// The test is a subreaper (initTestCase): what the leader leaves behind is reparented to us and reaped
// here, so kill(-group, 0) does not keep finding zombies a container's init never reaps.
bool groupGone(pid_t group)
{
    while (::waitpid(-group, nullptr, WNOHANG) > 0) { }
    return ::kill(-group, 0) == -1 && errno == ESRCH;
}

// A shell in its own process group, as StdioTransport and LocalServerLauncher start their children.
// Returned once the script has set itself up (its traps) and printed "ready"; group is its process
// group, read while it runs (QProcess forgets the pid once the leader exited).
QProcess* startGroup(const QString& script, QObject* parent, pid_t* group)
{
    auto* process = new QProcess(parent);
    process->setProgram(u"/bin/sh"_s);
    process->setArguments({ u"-c"_s, script });
    process->setChildProcessModifier([] { ::setpgid(0, 0); });
    process->start();
    if (!process->waitForStarted(5000))
        return nullptr;
    *group = pid_t(process->processId());
    QSignalSpy output(process, &QProcess::readyReadStandardOutput);
    QByteArray printed = process->readAllStandardOutput();
    while (!printed.contains("ready")) {
        if (!output.wait(5000))
            return nullptr;
        printed += process->readAllStandardOutput();
    }
    return process;
}

} // namespace

class TestProcessGroupStop : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void stopEndsTheGroup_data();
    void stopEndsTheGroup();
    void killNeedsNoGrace();
    void detachedStopDeletesTheProcess();
};

void TestProcessGroupStop::initTestCase()
{
    QVERIFY2(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0, "cannot become a child subreaper");
}

void TestProcessGroupStop::stopEndsTheGroup_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("leaderSignal"); ///< the signal that ended the leader; 0: it exited by itself

    QTest::newRow("a leader that ends on SIGTERM") << u"echo ready; sleep 30"_s << int(SIGTERM);
    QTest::newRow("a leader that ignores SIGTERM is killed after the grace")
        << u"trap '' TERM; echo ready; sleep 30"_s << int(SIGKILL);
    QTest::newRow("a member that outlives its leader and ignores SIGTERM")
        << u"(trap '' TERM; touch member-ready; sleep 30) & while [ ! -e member-ready ]; do sleep 0.05; done; "
           u"echo ready"_s
        << 0;
}

void TestProcessGroupStop::stopEndsTheGroup()
{
    QFETCH(QString, script);
    QFETCH(int, leaderSignal);

    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    pid_t group = 0;
    QProcess* process = startGroup(u"cd '"_s + scratch.path() + u"'; "_s + script, this, &group);
    QVERIFY(process);
    ProcessGroupStop stop(process, group);
    QSignalSpy finished(&stop, &ProcessGroupStop::finished);
    if (leaderSignal == 0)
        QTRY_COMPARE(process->state(), QProcess::NotRunning);
    stop.stop(0, GraceMs);
    QVERIFY(finished.wait(StopWaitMs));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(process->state(), QProcess::NotRunning);
    QCOMPARE(process->exitStatus(), leaderSignal == 0 ? QProcess::NormalExit : QProcess::CrashExit);
    QCOMPARE(process->exitCode(), leaderSignal);
    QTRY_VERIFY(groupGone(group));
    delete process;
}

void TestProcessGroupStop::killNeedsNoGrace()
{
    pid_t group = 0;
    QProcess* process = startGroup(u"trap '' TERM; echo ready; sleep 30"_s, this, &group);
    QVERIFY(process);
    ProcessGroupStop stop(process, group);
    QSignalSpy finished(&stop, &ProcessGroupStop::finished);
    stop.kill();
    QVERIFY(finished.wait(StopWaitMs));
    QCOMPARE(process->exitStatus(), QProcess::CrashExit);
    QCOMPARE(process->exitCode(), SIGKILL);
    QTRY_VERIFY(groupGone(group));
    delete process;
}

void TestProcessGroupStop::detachedStopDeletesTheProcess()
{
    auto* owner = new QObject;
    pid_t group = 0;
    QPointer<QProcess> process = startGroup(u"echo ready; sleep 30"_s, owner, &group);
    QVERIFY(process);
    ProcessGroupStop::detach(process, group, GraceMs);
    delete owner;
    QVERIFY(process); // the stop has it now
    QTRY_VERIFY_WITH_TIMEOUT(!process, StopWaitMs);
    QTRY_VERIFY(groupGone(group));
}

QTEST_GUILESS_MAIN(TestProcessGroupStop)
#include "tst_processgroupstop.moc"
