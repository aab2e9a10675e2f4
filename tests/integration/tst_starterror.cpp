// A server that fails to start: the failure's message ends with the last lines it wrote to stderr,
// redacted, in the engine (so the app and the CLI show the same), and the engine's own notices are
// never passed off as the server's stderr.

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "peerprocess.h"

#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;

class TestStartError : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void failedStartEndsWithTheLastLinesOfStderr();
    void stderrOfAnEarlierChildIsNotQuoted();
};

void TestStartError::failedStartEndsWithTheLastLinesOfStderr()
{
    Engine engine;
    ServerConfig config;
    config.name = QStringLiteral("dies");
    config.command = test::nodeBinary();
    // The line the peer prints carries a secret of the configuration: it must not reach the message.
    config.args = QStringList { test::peersDir() + QStringLiteral("/exit-during-init.mjs") };
    config.env.insert(QStringLiteral("API_TOKEN"), QStringLiteral("got initialize"));
    config.secretEnv = QStringList { QStringLiteral("API_TOKEN") };
    ServerConnection* c = engine.addServer(config);
    QStringList stderrLines;
    QStringList notices;
    connect(&engine, &Engine::serverLog, this, [&](const QString&, const QString& line) { stderrLines << line; });
    connect(&engine, &Engine::notice, this, [&](const QString&, const QString& text) { notices << text; });
    QSignalSpy failed(c, &ServerConnection::failed);
    c->connectToServer();
    QVERIFY(failed.wait(30000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.startsWith(QStringLiteral("Server 'dies' failed to initialize")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("exited with code 3")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("\nLast lines of stderr:\n  exit-during-init: ")), qPrintable(message));
    QVERIFY2(message.endsWith(QStringLiteral(", exiting with code 3")), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("got initialize")), qPrintable(message));
    QCOMPARE(c->lastError(), message);
    QCOMPARE(stderrLines.size(), 1);
    QVERIFY(!stderrLines.first().contains(QStringLiteral("got initialize")));
    // The peer ignores what it does not know, so era auto (the default) probed with server/discover,
    // heard nothing, and fell back to initialize within the probe timeout: the one notice says so.
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.first().contains(QStringLiteral("no answer to server/discover within 3000 ms")),
        qPrintable(notices.first()));
}

void TestStartError::stderrOfAnEarlierChildIsNotQuoted()
{
    // A child that fails without a word: the message has no stderr section at all.
    Engine engine;
    ServerConfig config;
    config.name = QStringLiteral("silent");
    config.command = QStringLiteral("/bin/false");
    ServerConnection* c = engine.addServer(config);
    QSignalSpy failed(c, &ServerConnection::failed);
    c->connectToServer();
    QVERIFY(failed.wait(30000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(QStringLiteral("'silent'")), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("Last lines of stderr")), qPrintable(message));
}

QTEST_GUILESS_MAIN(TestStartError)
#include "tst_starterror.moc"
