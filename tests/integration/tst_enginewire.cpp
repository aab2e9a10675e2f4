// What the engine copies of the wire, against the real server-everything on stdio (issue 17: the path
// users run). Engine::traffic is fed only once something listens, also when the listener comes after the
// server was added; a connection told not to record the wire (a load whose records nobody keeps) gives
// records without an exchange, and records it again when told to.

#include "engine/engine.h"
#include "peerprocess.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {

constexpr int WaitMs = 30000;

CallRecord echo(Engine& engine, const QString& message)
{
    CallRecord out;
    bool done = false;
    engine.call(QStringLiteral("everything"), QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("echo") },
            { QStringLiteral("arguments"), QJsonObject { { QStringLiteral("message"), message } } } },
        {}, [&](const CallRecord& record) {
            out = record;
            done = true;
        });
    if (!QTest::qWaitFor([&] { return done; }, WaitMs))
        out.outcome = CallOutcome::Pending;
    return out;
}

bool connectAndWait(ServerConnection* connection)
{
    QSignalSpy ready(connection, &ServerConnection::ready);
    connection->connectToServer();
    return ready.wait(WaitMs);
}

} // namespace

class TestEngineWire : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void trafficListenerAfterTheServerWasAdded();
    void recordsWithoutWire();
};

void TestEngineWire::trafficListenerAfterTheServerWasAdded()
{
    Engine engine;
    ServerConnection* connection = engine.addServer(everythingStdioConfig());
    QVERIFY(connectAndWait(connection));
    QCOMPARE(echo(engine, QStringLiteral("unwatched")).outcome, CallOutcome::Success);

    QList<QPair<WireDirection, QByteArray>> lines;
    connect(&engine, &Engine::traffic, this,
        [&lines](const QString& server, WireDirection direction, const QByteArray& bytes) {
            QCOMPARE(server, QStringLiteral("everything"));
            lines.append({ direction, bytes });
        });
    QCOMPARE(echo(engine, QStringLiteral("watched")).outcome, CallOutcome::Success);
    // The call's request and its answer, and nothing of the call made before anyone listened.
    int requests = 0;
    int answers = 0;
    for (const auto& [direction, bytes] : std::as_const(lines)) {
        QVERIFY2(!bytes.contains("unwatched"), bytes.constData());
        if (bytes.contains("watched\""))
            ++(direction == WireDirection::Outgoing ? requests : answers);
    }
    QCOMPARE(requests, 1);
    QCOMPARE(answers, 1);
}

void TestEngineWire::recordsWithoutWire()
{
    Engine engine;
    ServerConnection* connection = engine.addServer(everythingStdioConfig());
    QVERIFY(connectAndWait(connection));

    const CallRecord recorded = echo(engine, QStringLiteral("one"));
    QCOMPARE(recorded.outcome, CallOutcome::Success);
    QCOMPARE(recorded.attempts.size(), 1);
    QCOMPARE(recorded.attempts.first().exchange.stdio.size(), 2);
    QVERIFY(recorded.attempts.first().exchange.stdio.last().line.contains("Echo: one"));

    connection->setRecordsWire(false);
    const CallRecord bare = echo(engine, QStringLiteral("two"));
    QCOMPARE(bare.outcome, CallOutcome::Success);
    QCOMPARE(bare.attempts.size(), 1);
    QVERIFY(bare.attempts.first().exchange.isEmpty());
    QVERIFY(bare.result.toObject()
                .value(QLatin1String("content"))
                .toArray()
                .first()
                .toObject()
                .value(QLatin1String("text"))
                .toString()
                .contains(QLatin1String("Echo: two")));

    connection->setRecordsWire(true);
    const CallRecord again = echo(engine, QStringLiteral("three"));
    QCOMPARE(again.attempts.first().exchange.stdio.size(), 2);
    QVERIFY(again.attempts.first().exchange.stdio.last().line.contains("Echo: three"));
}

QTEST_GUILESS_MAIN(TestEngineWire)
#include "tst_enginewire.moc"
