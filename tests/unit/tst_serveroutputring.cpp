// ServerOutput: each server's ring of output lines, bounded, following the engine's servers.

#include "engine/engine.h"
#include "models/serveroutput.h"

#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;

class TestServerOutputRing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keepsTheLastLinesOfEachServer();
    void followsTheEngine();
};

void TestServerOutputRing::keepsTheLastLinesOfEachServer()
{
    ServerOutput output;
    output.setLineLimit(3);
    QSignalSpy added(&output, &ServerOutput::linesAdded);
    for (int i = 1; i <= 5; ++i)
        output.append(QStringLiteral("a"), QStringLiteral("line %1").arg(i));
    output.append(QStringLiteral("b"), QStringLiteral("other"), true);
    QCOMPARE(added.size(), 6);
    QCOMPARE(output.added(QStringLiteral("a")), 5);
    const std::deque<ServerOutput::Line>& a = output.lines(QStringLiteral("a"));
    QCOMPARE(int(a.size()), 3);
    QCOMPARE(a.front().text, QStringLiteral("line 3"));
    QCOMPARE(a.back().text, QStringLiteral("line 5"));
    QVERIFY(!a.back().fromMcpScope);
    QVERIFY(output.lines(QStringLiteral("b")).front().fromMcpScope);
    QVERIFY(output.lines(QStringLiteral("nobody")).empty());

    QSignalSpy cleared(&output, &ServerOutput::cleared);
    output.clear(QStringLiteral("a"));
    QCOMPARE(cleared.size(), 1);
    QVERIFY(output.lines(QStringLiteral("a")).empty());
    QCOMPARE(output.added(QStringLiteral("a")), 0);
    QCOMPARE(int(output.lines(QStringLiteral("b")).size()), 1);
}

void TestServerOutputRing::followsTheEngine()
{
    Engine engine;
    ServerConfig config;
    config.name = QStringLiteral("local");
    config.command = QStringLiteral("/bin/false");
    config.env.insert(QStringLiteral("TOKEN"), QStringLiteral("s3cret-value"));
    config.secretEnv = QStringList { QStringLiteral("TOKEN") };
    ServerConnection* before = engine.addServer(config);
    ServerOutput output;
    output.setEngine(&engine);
    config.name = QStringLiteral("remote");
    config.transport = TransportKind::StreamableHttp;
    config.url = QUrl(QStringLiteral("http://127.0.0.1:9/mcp"));
    ServerConnection* after = engine.addServer(config);

    Q_EMIT before->serverLog(QStringLiteral("token is s3cret-value"));
    Q_EMIT after->notice(QStringLiteral("offers no server-to-client stream"));
    Q_EMIT before->failed(QStringLiteral("Server 'local' failed: s3cret-value\nLast lines of stderr:\n  x"));
    const std::deque<ServerOutput::Line>& local = output.lines(QStringLiteral("local"));
    QCOMPARE(int(local.size()), 2);
    QVERIFY2(!local.front().text.contains(QStringLiteral("s3cret")), qPrintable(local.front().text));
    QVERIFY(!local.front().fromMcpScope);
    // A failure is McpScope's line, its first line only: the stderr it quotes is in the ring already.
    QVERIFY(local.back().fromMcpScope);
    QVERIFY2(local.back().text.startsWith(QStringLiteral("Server 'local' failed: ")), qPrintable(local.back().text));
    QVERIFY(!local.back().text.contains(QStringLiteral("s3cret")));
    QVERIFY(!local.back().text.contains(QLatin1Char('\n')));
    QVERIFY(output.lines(QStringLiteral("remote")).front().fromMcpScope);

    QVERIFY(output.seesOutputOf(QStringLiteral("local")));
    QVERIFY(!output.seesOutputOf(QStringLiteral("remote")));
    engine.removeServer(QStringLiteral("local"));
    QVERIFY(output.lines(QStringLiteral("local")).empty());
}

QTEST_GUILESS_MAIN(TestServerOutputRing)
#include "tst_serveroutputring.moc"
