// The way people really start servers: `npx -y <package>`. npx runs the server two processes
// down (npm exec → sh -c → node), so stopping only the direct child would leave the server
// running. mcpscope-cli must list the tools, shut the whole tree down and exit. How long that takes is
// measured by tests/bench/bench_shutdown, not asserted here.

#include "markerprocesses.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace Qt::StringLiterals;

class TestShutdown : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void npxServerListsToolsAndLeavesNothingBehind();
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

QTEST_GUILESS_MAIN(TestShutdown)
#include "tst_shutdown.moc"
