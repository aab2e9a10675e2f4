// mcpscope-cli stopping with work under it.
// - The way people really start servers: `npx -y <package>`. npx runs the server two processes
//   down (npm exec → sh -c → node), so stopping only the direct child would leave the server
//   running. mcpscope-cli must list the tools, shut the whole tree down and exit. How long that takes
//   is measured by tests/bench/bench_shutdown, not asserted here.
// - SIGTERM with a call in flight (RECOVERY.md §3): the call the server ran ends as interrupted in
//   --log, with its dispatch verdict, before the CLI exits 143. The ledger peer
//   (tests/peers/ledger-peer.mjs) counts what the server ran.

#include "clirun.h"
#include "ledger.h"
#include "markerprocesses.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

class TestShutdown : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void npxServerListsToolsAndLeavesNothingBehind();
    void terminatedCallGetsItsFinalRecord_data();
    void terminatedCallGetsItsFinalRecord();
};

void TestShutdown::initTestCase()
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_CLI)), MCPSCOPE_CLI);
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    QVERIFY2(!QStandardPaths::findExecutable(u"npx"_s).isEmpty(), "npx is not on PATH");
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/node_modules/.bin/mcp-server-everything"_s),
        "server-everything is not installed in tests/peers");
}

void TestShutdown::npxServerListsToolsAndLeavesNothingBehind()
{
    const QString marker = mcpscope::testsupport::newMarker();

    // The pinned Node's directory goes first on PATH: npx's `#!/usr/bin/env node` and the server
    // it starts then both run on Node 22. The CLI passes PATH on to the child. Run from
    // tests/peers, npx finds the locally installed package and needs no network.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"PATH"_s, QFileInfo(QStringLiteral(MCPSCOPE_NODE)).absolutePath() + u':' + env.value(u"PATH"_s));

    QProcess cli;
    cli.setProgram(QStringLiteral(MCPSCOPE_CLI));
    cli.setArguments({ u"--stdio"_s, u"npx -y @modelcontextprotocol/server-everything"_s, u"--env"_s,
        mcpscope::testsupport::markerVariable() + u'=' + marker, u"tools"_s });
    cli.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
    cli.setProcessEnvironment(env);
    QSignalSpy finished(&cli, &QProcess::finished);

    QElapsedTimer elapsed;
    elapsed.start();
    cli.start();
    cli.closeWriteChannel();
    const bool ended = finished.wait(60000);
    const qint64 elapsedMs = elapsed.elapsed();
    if (!ended) {
        cli.kill();
        cli.waitForFinished();
    }
    const QByteArray out = cli.readAllStandardOutput();
    const QByteArray err = cli.readAllStandardError();
    const QByteArray report = "exit " + QByteArray::number(cli.exitCode()) + " after " + QByteArray::number(elapsedMs)
        + " ms\n--- stdout:\n" + out + "\n--- stderr:\n" + err;

    // (a) the tools are listed
    QVERIFY2(ended, report.constData());
    QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, report.constData());
    QVERIFY2(out.startsWith("echo"), report.constData());
    QVERIFY2(out.contains("\nget-sum"), report.constData());
    QVERIFY2(out.contains("\ntrigger-long-running-operation"), report.constData());

    // (b) nothing carrying the marker is left: not npm, not sh, not the node server.
    QTRY_VERIFY2_WITH_TIMEOUT(mcpscope::testsupport::processesWithMarker(marker).isEmpty(),
        qPrintable(mcpscope::testsupport::processesWithMarker(marker).join(u"; "_s)), 2000);
}

void TestShutdown::terminatedCallGetsItsFinalRecord_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<bool>("possiblyExecuted");
    QTest::newRow("write in flight: interrupted, possibly executed") << u"sleep-write"_s << true;
    QTest::newRow("read-only call in flight: interrupted, nothing uncertain") << u"sleep"_s << false;
}

void TestShutdown::terminatedCallGetsItsFinalRecord()
{
    QFETCH(QString, tool);
    QFETCH(bool, possiblyExecuted);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Ledger ledger { dir.filePath(u"ledger.jsonl"_s) };
    const QString log = dir.filePath(u"calls.jsonl"_s);
    const QString server = u"\"%1\" \"%2\" stdio \"%3\""_s.arg(
        QStringLiteral(MCPSCOPE_NODE), QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/ledger-peer.mjs"_s, ledger.path);
    QProcess cli;
    startCli(cli, { u"--stdio"_s, server, u"--log"_s, log, u"call"_s, tool, u"{\"ms\": 600000}"_s });
    // The server has run the call (its ledger says so) and is still working on it.
    QTRY_COMPARE_WITH_TIMEOUT(ledger.runsOf(tool), 1, CliRunTimeoutMs);
    QCOMPARE(::kill(pid_t(cli.processId()), SIGTERM), 0);
    const CliRun run = finishCli(cli);
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 128 + SIGTERM, run.report());

    QFile file(log);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(log));
    QList<QJsonObject> records;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        if (record.value("tool"_L1) == tool)
            records.append(record);
    }
    QCOMPARE(records.size(), 1);
    const QJsonObject record = records.first();
    QCOMPARE(record.value("outcome"_L1).toString(), u"interrupted"_s);
    QCOMPARE(ledger.runsOfCall(record.value("callId"_L1).toString()), 1);
    const QJsonArray attempts = record.value("attempts"_L1).toArray();
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().toObject().value("dispatch"_L1).toString(), u"unknown"_s);
    QCOMPARE(record.value("error"_L1).toObject().value("dispatch"_L1).toString(), u"unknown"_s);
    QVERIFY(record.value("endedAt"_L1).toInteger() >= record.value("startedAt"_L1).toInteger());
    // A write carries RECOVERY.md §5's uncertain result; a read has nothing to be uncertain about.
    const QJsonObject result = record.value("result"_L1).toObject();
    QCOMPARE(result.value("outcome"_L1).toString(), possiblyExecuted ? u"uncertain"_s : QString());
    QCOMPARE(record.value("result"_L1).isObject(), possiblyExecuted);
}

QTEST_GUILESS_MAIN(TestShutdown)
#include "tst_shutdown.moc"
