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

#include "clirun.h"
#include "ledger.h"
#include "markerprocesses.h"
#include "transport/processgroupstop.h"
#include "transport/stdiotransport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

constexpr int GoneTimeoutMs = 5000;

/// `ps -eo pid,ppid,pgid,sid,stat,args` lines of live processes (not zombies) whose arguments hold marker.
QStringList psWithMarker(const QString& marker)
{
    QProcess ps;
    ps.start(u"ps"_s, { u"-eo"_s, u"pid,ppid,pgid,sid,stat,args"_s });
    if (!ps.waitForFinished(10000))
        return { u"ps did not finish"_s };
    QStringList found;
    const QList<QByteArray> lines = ps.readAllStandardOutput().split('\n');
    for (const QByteArray& line : lines) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() > 5 && !fields.at(4).startsWith('Z') && line.contains(marker.toUtf8()))
            found.append(QString::fromUtf8(line.simplified()));
    }
    return found;
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

private:
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
    QProcess cli;
    startCli(cli, arguments);
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

void TestProcessTree::appLeavesNoProcessBehind()
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
    QProcess app;
    app.setProgram(QStringLiteral(MCPSCOPE_APP));
    app.setArguments({ u"--workspace"_s, path, u"--connect"_s });
    app.setProcessEnvironment(env);
    app.setProcessChannelMode(QProcess::MergedChannels);
    app.start();
    QVERIFY(app.waitForStarted(10000));
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

QTEST_GUILESS_MAIN(TestProcessTree)
#include "tst_processtree.moc"
