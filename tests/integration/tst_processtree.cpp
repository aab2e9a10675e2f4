// No process started for a server outlives McpScope (issue 12), checked with ps. The ledger peer
// (tests/peers/ledger-peer.mjs, LEDGER_PEER_SPAWN) starts a child and a grandchild (sleeper.mjs) before
// it serves, in its own process group or in a session of their own (setsid, which no group stop
// reaches), and records each in its ledger: the test knows from the servers' side what ran.
// - mcpscope-cli: the server is killed mid-call (kill-after-write) and respawned, and the respawned
//   server starts its own tree; or the CLI is terminated mid-call. After the CLI exits, ps shows
//   nothing carrying the run's marker.
// - A stdio transport destroyed before its child's started() arrived (a respawn at exit) still stops
//   the child's whole group.
// - The app (offscreen, with a workspace and --connect), terminated: nothing survives it either.
// - While either runs, what is handed to it (McpScope is a child subreaper) and then ends is reaped at
//   once, not at exit: ps shows no zombie of the CLI or the app after a setsid grandchild of a running
//   server ends, nor after the setsid tree of a respawned server's predecessor ends.

#include "clirun.h"
#include "ledger.h"
#include "markerprocesses.h"
#include "transport/processgroupstop.h"
#include "transport/procstat.h"
#include "transport/stdiotransport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <functional>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

constexpr int GoneTimeoutMs = 5000;

/// `ps -eo pid,ppid,pgid,sid,stat,args` lines for which keep(fields, line) holds.
QStringList ps(const std::function<bool(const QList<QByteArray>& fields, const QByteArray& line)>& keep)
{
    QProcess ps;
    ps.start(u"ps"_s, { u"-eo"_s, u"pid,ppid,pgid,sid,stat,args"_s });
    if (!ps.waitForFinished(10000))
        return { u"ps did not finish"_s };
    QStringList found;
    const QList<QByteArray> lines = ps.readAllStandardOutput().split('\n');
    for (const QByteArray& line : lines) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() > 5 && keep(fields, line))
            found.append(QString::fromUtf8(line.simplified()));
    }
    return found;
}

/// Live processes (not zombies) whose arguments hold marker.
QStringList psWithMarker(const QString& marker)
{
    return ps([&](const QList<QByteArray>& fields, const QByteArray& line) {
        return !fields.at(4).startsWith('Z') && line.contains(marker.toUtf8());
    });
}

/// The zombies whose parent is parent: ended, and not reaped by it.
QStringList psZombiesOf(qint64 parent)
{
    return ps([&](const QList<QByteArray>& fields, const QByteArray&) {
        return fields.at(1).toLongLong() == parent && fields.at(4).startsWith('Z');
    });
}

/// The parent of pid as /proc shows it now; 0 once pid is gone.
qint64 parentOf(qint64 pid)
{
    const std::optional<mcpscope::ProcStat> stat = mcpscope::readProcStat(pid_t(pid), QString::number(pid));
    return stat ? stat->ppid : 0;
}

QString peerScript()
{
    return QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/ledger-peer.mjs"_s;
}

} // namespace

class TestProcessTree : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();

    void cliLeavesNoProcessBehind_data();
    void cliLeavesNoProcessBehind();
    void transportDestroyedBeforeStartedStopsItsGroup();
    void appLeavesNoProcessBehind();
    void adoptedProcessesAreReapedWhileRunning_data();
    void adoptedProcessesAreReapedWhileRunning();

private:
    /// The CLI on the ledger peer, whose stdio server starts a tree of the kind spawn names, then runs
    /// script (a file of run steps).
    void startCliOnPeer(QProcess& cli, const QString& spawn, const QString& script);
    /// The app binary, offscreen, with a workspace of the ledger peer (a setsid tree), connected at start.
    void startApp(QProcess& app);
    std::unique_ptr<QTemporaryDir> m_dir;
    Ledger m_ledger;
    QString m_marker;
};

void TestProcessTree::init()
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_ledger.path = m_dir->filePath(u"ledger.jsonl"_s);
    m_marker = u"mcpscope-tree-"_s + mcpscope::testsupport::newMarker();
}

void TestProcessTree::cliLeavesNoProcessBehind_data()
{
    QTest::addColumn<QString>("spawn");
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("exitCode");
    const QString respawn = u"fault kill-after-write\ncall write {}\n"_s;
    QTest::newRow("killed and respawned server, trees in their groups, script ends")
        << u"attached"_s << respawn << 2 << 3;
    QTest::newRow("killed and respawned server, setsid trees, script ends") << u"detached"_s << respawn << 2 << 3;
    QTest::newRow("setsid tree, CLI terminated mid-call") << u"detached"_s << QString() << 1 << 128 + SIGTERM;
}

void TestProcessTree::cliLeavesNoProcessBehind()
{
    QFETCH(QString, spawn);
    QFETCH(QString, script);
    QFETCH(int, servers);
    QFETCH(int, exitCode);

    QProcess cli;
    startCliOnPeer(cli, spawn, script);
    if (QTest::currentTestFailed())
        return;
    if (script.isEmpty()) {
        QTRY_COMPARE_WITH_TIMEOUT(m_ledger.runsOf(u"sleep-write"_s), 1, CliRunTimeoutMs);
        QVERIFY2(!psWithMarker(m_marker).isEmpty(), "the server's tree is not running");
        QCOMPARE(::kill(pid_t(cli.processId()), SIGTERM), 0);
    }
    const CliRun run = finishCli(cli);
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == exitCode, run.report());

    // Each server started its tree (a child and a grandchild) before it answered initialize.
    QCOMPARE(m_ledger.events(u"initialize"_s).size(), servers);
    const QList<QJsonObject> sleepers = m_ledger.events(u"sleeper"_s);
    QCOMPARE(sleepers.size(), 2 * servers);
    for (const QJsonObject& sleeper : sleepers)
        QCOMPARE(sleeper.value("marker"_L1).toString(), m_marker);
    // The CLI has exited: what it killed may take a moment to be gone.
    QTRY_VERIFY2_WITH_TIMEOUT(
        psWithMarker(m_marker).isEmpty(), qPrintable(psWithMarker(m_marker).join(u"\n"_s)), GoneTimeoutMs);
}

void TestProcessTree::startCliOnPeer(QProcess& cli, const QString& spawn, const QString& script)
{
    QStringList arguments { u"--stdio"_s,
        u"\"%1\" \"%2\" stdio \"%3\""_s.arg(QStringLiteral(MCPSCOPE_NODE), peerScript(), m_ledger.path), u"--env"_s,
        u"LEDGER_PEER_SPAWN="_s + spawn, u"--env"_s, u"LEDGER_PEER_SPAWN_MARKER="_s + m_marker };
    if (script.isEmpty()) {
        arguments += { u"call"_s, u"sleep-write"_s, u"{\"ms\": 600000}"_s };
    } else {
        const QString path = m_dir->filePath(u"script.txt"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(script.toUtf8());
        file.close();
        arguments += { u"run"_s, path };
    }
    startCli(cli, arguments);
}

void TestProcessTree::transportDestroyedBeforeStartedStopsItsGroup()
{
    mcpscope::StdioTransport::Options options;
    options.serverName = u"tree"_s;
    options.command = QStringLiteral(MCPSCOPE_NODE);
    options.args = { peerScript(), u"stdio"_s, m_ledger.path };
    options.env = { { u"LEDGER_PEER_SPAWN"_s, u"attached"_s }, { u"LEDGER_PEER_SPAWN_MARKER"_s, m_marker },
        { mcpscope::testsupport::markerVariable(), m_marker } };
    auto* transport = new mcpscope::StdioTransport(options);
    QSignalSpy opened(transport, &mcpscope::Transport::opened);
    transport->open();
    // started() has not been delivered: no event loop ran since the fork.
    QCOMPARE(opened.size(), 0);
    QVERIFY(transport->processId() > 0);
    delete transport;
    QVERIFY(mcpscope::ProcessGroupStop::finishDetached(GoneTimeoutMs));
    // Killed before it could start its tree, and nothing of it runs.
    QCOMPARE(m_ledger.events(u"sleeper"_s).size(), 0);
    QTRY_VERIFY2_WITH_TIMEOUT(mcpscope::testsupport::processesWithMarker(m_marker).isEmpty(),
        qPrintable(mcpscope::testsupport::processesWithMarker(m_marker).join(u"\n"_s)), GoneTimeoutMs);
    QVERIFY2(psWithMarker(m_marker).isEmpty(), qPrintable(psWithMarker(m_marker).join(u"\n"_s)));
}

void TestProcessTree::startApp(QProcess& app)
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_APP)), MCPSCOPE_APP);
    const QJsonObject server { { u"transport"_s, u"stdio"_s }, { u"command"_s, QStringLiteral(MCPSCOPE_NODE) },
        { u"args"_s, QJsonArray { peerScript(), u"stdio"_s, m_ledger.path } },
        { u"env"_s,
            QJsonObject { { u"LEDGER_PEER_SPAWN"_s, u"detached"_s }, { u"LEDGER_PEER_SPAWN_MARKER"_s, m_marker } } } };
    const QJsonObject workspace { { u"mcpscopeWorkspace"_s, 1 },
        { u"servers"_s, QJsonObject { { u"tree"_s, server } } } };
    const QString path = m_dir->filePath(u"workspace.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(workspace).toJson());
    file.close();

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    // Its settings and call log stay in the test's directory.
    env.insert(u"XDG_CONFIG_HOME"_s, m_dir->filePath(u"config"_s));
    env.insert(u"XDG_DATA_HOME"_s, m_dir->filePath(u"data"_s));
    env.insert(u"MCPSCOPE_LOG_DIR"_s, m_dir->filePath(u"logs"_s));
    app.setProgram(QStringLiteral(MCPSCOPE_APP));
    app.setArguments({ u"--workspace"_s, path, u"--connect"_s });
    app.setProcessEnvironment(env);
    app.setProcessChannelMode(QProcess::MergedChannels);
    app.start();
    QVERIFY(app.waitForStarted(10000));
}

void TestProcessTree::appLeavesNoProcessBehind()
{
    QProcess app;
    startApp(app);
    if (QTest::currentTestFailed())
        return;
    QTRY_COMPARE_WITH_TIMEOUT(m_ledger.events(u"initialize"_s).size(), 1, CliRunTimeoutMs);
    QCOMPARE(m_ledger.events(u"sleeper"_s).size(), 2);
    QVERIFY2(!psWithMarker(m_marker).isEmpty(), "the server's tree is not running");

    QCOMPARE(::kill(pid_t(app.processId()), SIGTERM), 0);
    QSignalSpy finished(&app, &QProcess::finished);
    QVERIFY2(app.state() == QProcess::NotRunning || finished.wait(CliRunTimeoutMs), app.readAll().constData());
    QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, app.readAll().constData());
    QTRY_VERIFY2_WITH_TIMEOUT(
        psWithMarker(m_marker).isEmpty(), qPrintable(psWithMarker(m_marker).join(u"\n"_s)), GoneTimeoutMs);
}

void TestProcessTree::adoptedProcessesAreReapedWhileRunning_data()
{
    QTest::addColumn<bool>("app");
    QTest::addColumn<bool>("respawn");
    QTest::newRow("CLI: a running server's setsid grandchild ends") << false << false;
    QTest::newRow("CLI: the setsid tree of a respawned server's predecessor ends") << false << true;
    QTest::newRow("app: a running server's setsid grandchild ends") << true << false;
    QTest::newRow("app: the setsid tree of a respawned server's predecessor ends") << true << true;
}

void TestProcessTree::adoptedProcessesAreReapedWhileRunning()
{
    QFETCH(bool, app);
    QFETCH(bool, respawn);
    QProcess mcpscope;
    if (app)
        startApp(mcpscope);
    else
        startCliOnPeer(mcpscope, u"detached"_s, u"wait 600000\n"_s);
    if (QTest::currentTestFailed())
        return;
    const qint64 self = mcpscope.processId();
    // A check that fails returns early: McpScope still ends its trees, as it would at a SIGTERM, rather
    // than being killed with the QProcess and leaving them to init.
    const auto stopOnFailure = qScopeGuard([&mcpscope] {
        if (mcpscope.state() != QProcess::Running)
            return;
        ::kill(pid_t(mcpscope.processId()), SIGTERM);
        mcpscope.waitForFinished(CliRunTimeoutMs);
    });
    // Connected and ready: a server that dies before that is a failed start, which is not respawned.
    QTRY_COMPARE_WITH_TIMEOUT(m_ledger.events(u"listed"_s).size(), 1, CliRunTimeoutMs);
    QCOMPARE(m_ledger.events(u"sleeper"_s).size(), 2);
    // The first server's tree: a setsid child of the server (depth 2) and its own child (depth 1).
    QJsonObject child;
    QJsonObject grandchild;
    for (const QJsonObject& sleeper : m_ledger.events(u"sleeper"_s))
        (sleeper.value("depth"_L1).toInt() == 2 ? child : grandchild) = sleeper;
    const qint64 server = child.value("ppid"_L1).toInteger();
    const qint64 childPid = child.value("pid"_L1).toInteger();
    const qint64 grandchildPid = grandchild.value("pid"_L1).toInteger();
    QCOMPARE(grandchild.value("ppid"_L1).toInteger(), childPid);

    if (respawn) {
        // The server dies on its own; McpScope starts another, which starts a tree of its own.
        QCOMPARE(::kill(pid_t(server), SIGKILL), 0);
        QTRY_COMPARE_WITH_TIMEOUT(m_ledger.events(u"sleeper"_s).size(), 4, CliRunTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(m_ledger.events(u"initialize"_s).size(), 2, CliRunTimeoutMs);
        // The dead server's setsid child was handed to McpScope, not to init.
        QTRY_COMPARE_WITH_TIMEOUT(parentOf(childPid), self, GoneTimeoutMs);
    }
    // The setsid child ends: its child is handed to McpScope; then that one ends too.
    QCOMPARE(::kill(pid_t(childPid), SIGKILL), 0);
    QTRY_COMPARE_WITH_TIMEOUT(parentOf(grandchildPid), self, GoneTimeoutMs);
    QCOMPARE(::kill(pid_t(grandchildPid), SIGKILL), 0);
    // Both are reaped while McpScope runs on: ps shows no zombie of it.
    QTRY_VERIFY2_WITH_TIMEOUT(parentOf(childPid) != self && parentOf(grandchildPid) != self,
        qPrintable(psZombiesOf(self).join(u"\n"_s)), GoneTimeoutMs);
    QVERIFY2(psZombiesOf(self).isEmpty(), qPrintable(psZombiesOf(self).join(u"\n"_s)));
    QCOMPARE(mcpscope.state(), QProcess::Running);

    // And at exit nothing survives, the respawned server's tree included.
    QCOMPARE(::kill(pid_t(self), SIGTERM), 0);
    QSignalSpy finished(&mcpscope, &QProcess::finished);
    QVERIFY2(
        mcpscope.state() == QProcess::NotRunning || finished.wait(CliRunTimeoutMs), mcpscope.readAll().constData());
    QTRY_VERIFY2_WITH_TIMEOUT(
        psWithMarker(m_marker).isEmpty(), qPrintable(psWithMarker(m_marker).join(u"\n"_s)), GoneTimeoutMs);
}

QTEST_GUILESS_MAIN(TestProcessTree)
#include "tst_processtree.moc"
