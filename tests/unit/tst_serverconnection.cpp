#include "engine/serverconnection.h"
#include "engine/transportfactory.h"
#include "faketransport.h"

#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace mcpscope;
using namespace mcpscope::test;

Q_DECLARE_METATYPE(mcpscope::test::FakeAnswer)

namespace {

const QString ToolsCall = QStringLiteral("tools/call");

QJsonObject tool(const QString& name, bool readOnly)
{
    QJsonObject object { { QStringLiteral("name"), name },
        { QStringLiteral("inputSchema"), QJsonObject { { QStringLiteral("type"), QStringLiteral("object") } } } };
    if (readOnly)
        object.insert(QStringLiteral("annotations"), QJsonObject { { QStringLiteral("readOnlyHint"), true } });
    return object;
}

const QJsonArray Tools { tool(QStringLiteral("read"), true), tool(QStringLiteral("write"), false) };

ServerConfig fakeConfig(int keepaliveIntervalSec = 0, int requestTimeoutMs = 10000)
{
    ServerConfig config;
    config.name = QStringLiteral("fake");
    config.transport = TransportKind::Stdio;
    config.command = QStringLiteral("fake-peer");
    config.requestTimeoutMs = requestTimeoutMs;
    config.keepaliveIntervalSec = keepaliveIntervalSec;
    return config;
}

/// Routes every transport a connection makes to peer, for the life of this object.
class FakeFactory
{
public:
    explicit FakeFactory(FakePeer& peer)
    {
        setTransportFactory([&peer](const ServerConfig&, QString*) { return peer.newTransport(); });
    }
    ~FakeFactory() { setTransportFactory({}); }
    FakeFactory(const FakeFactory&) = delete;
    FakeFactory& operator=(const FakeFactory&) = delete;
};

bool connectAndWaitReady(ServerConnection& connection)
{
    QSignalSpy ready(&connection, &ServerConnection::ready);
    connection.connectToServer();
    return ready.wait(5000);
}

/// The final record of one call.
struct Done
{
    std::optional<CallRecord> record;
    int count = 0;
    std::function<void(const CallRecord&)> handler()
    {
        return [this](const CallRecord& r) {
            ++count;
            record = r;
        };
    }
};

QString outcomeOf(const Done& done)
{
    return done.record ? outcomeName(done.record->outcome) : QStringLiteral("(pending)");
}

} // namespace

class TestServerConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void routingGuard_data();
    void routingGuard();
    void answerOnTheSessionItWentOutOn();
    void answerOnAnAbandonedSessionIsRetriedOnTheNewOne();
    void cancelCall_data();
    void cancelCall();
    void keepaliveFailureMakesTheConnectionSuspect_data();
    void keepaliveFailureMakesTheConnectionSuspect();
    void earlierAttemptMayHaveRun_data();
    void earlierAttemptMayHaveRun();
};

void TestServerConnection::routingGuard_data()
{
    QTest::addColumn<bool>("toolGone");
    QTest::addColumn<bool>("configChanged");
    QTest::addColumn<int>("sent");
    QTest::addColumn<QString>("outcome");
    QTest::newRow("nothing changed during the reconnect: the read is retried once")
        << false << false << 2 << QStringLiteral("success");
    QTest::newRow("the new session's tools/list no longer has the tool: no retry")
        << true << false << 1 << QStringLiteral("transport_error");
    QTest::newRow("the configuration changed during the reconnect: no retry")
        << false << true << 1 << QStringLiteral("transport_error");
}

void TestServerConnection::routingGuard()
{
    // Fake: the guard is about what changes between a lost attempt and its retry; a real server
    // cannot lose one request and change its tool list in the same reconnect on cue.
    QFETCH(bool, toolGone);
    QFETCH(bool, configChanged);
    QFETCH(int, sent);
    QFETCH(QString, outcome);
    FakePeer peer;
    FakeFactory factory(peer);
    peer.setTools(Tools);
    if (toolGone) {
        // The first session lists both tools; every listing after it (the reconnect's) only the writer.
        peer.script(QStringLiteral("tools/list"), peer.defaultAnswer(QStringLiteral("tools/list")));
        peer.setTools(QJsonArray { Tools.at(1) });
    }
    peer.script(ToolsCall, FakeAnswer::failing(lostAfterWrite()));
    ServerConnection connection(fakeConfig());
    QVERIFY(connectAndWaitReady(connection));
    if (configChanged) {
        connect(&connection, &ServerConnection::stateChanged, this, [&connection](ServerConnection::State state) {
            if (state == ServerConnection::State::Reconnecting) {
                ServerConfig edited = connection.config();
                edited.requestTimeoutMs += 1;
                connection.setConfig(edited);
            }
        });
    }

    Done done;
    connection.callTool(QStringLiteral("read"), {}, {}, done.handler());
    QTRY_VERIFY_WITH_TIMEOUT(done.record.has_value(), 10000);
    QCOMPARE(done.count, 1);
    QCOMPARE(outcomeOf(done), outcome);
    QCOMPARE(peer.received(ToolsCall), sent);
    QCOMPARE(peer.receivedOn(1, ToolsCall), 1);
    QCOMPARE(peer.received(QStringLiteral("initialize")), 2);
    QCOMPARE(done.record->attempts.size(), qsizetype(sent));
    QCOMPARE(done.record->rule, QStringLiteral("R4"));
    QCOMPARE(done.record->reconnects.size(), qsizetype(1));
    QVERIFY(done.record->reconnects.first().ok);
    if (sent == 1)
        QCOMPARE(done.record->decisions.last().action, QStringLiteral("stop"));
}

void TestServerConnection::answerOnTheSessionItWentOutOn()
{
    // Fake: the answer has to arrive on the old session after the new one is ready; a real server
    // answers before a reconnect can finish.
    FakePeer peer;
    FakeFactory factory(peer);
    peer.setTools(Tools);
    peer.script(ToolsCall, FakeAnswer::silence());
    ServerConnection connection(fakeConfig());
    QVERIFY(connectAndWaitReady(connection));
    Done done;
    connection.callTool(QStringLiteral("write"), {}, {}, done.handler());
    QTRY_COMPARE(peer.transport(1)->heldRequests().size(), qsizetype(1));

    QSignalSpy ready(&connection, &ServerConnection::ready);
    connection.reconnectNow();
    QVERIFY(ready.wait(5000));
    QCOMPARE(connection.sessionId(), QStringLiteral("fake-session-2"));
    QVERIFY(!done.record);

    const QJsonValue id = peer.transport(1)->heldRequests().first();
    peer.transport(1)->answer(id, QJsonObject { { QStringLiteral("content"), QJsonArray() } });
    QTRY_VERIFY(done.record.has_value());
    QCOMPARE(outcomeOf(done), QStringLiteral("success"));
    QCOMPARE(done.record->attempts.size(), qsizetype(1));
    QCOMPARE(done.record->attempts.first().sessionId, QStringLiteral("fake-session-1"));
    QCOMPARE(peer.receivedOn(1, ToolsCall), 1);
    QCOMPARE(peer.receivedOn(2, ToolsCall), 0);
}

void TestServerConnection::answerOnAnAbandonedSessionIsRetriedOnTheNewOne()
{
    // Fake: the old session must hold the request past its retire deadline, and its answer must then
    // come late; only a scripted transport does both when asked.
    FakePeer peer;
    FakeFactory factory(peer);
    peer.setTools(Tools);
    peer.script(ToolsCall, FakeAnswer::silence());
    // The retire deadline is the request timeout; the call's own deadline stays long.
    ServerConnection connection(fakeConfig(0, 300));
    QVERIFY(connectAndWaitReady(connection));
    Done done;
    CallOptions options;
    options.timeoutMs = 20000;
    connection.callTool(QStringLiteral("read"), {}, options, done.handler());
    QTRY_COMPARE(peer.transport(1)->heldRequests().size(), qsizetype(1));
    const QJsonValue firstId = peer.transport(1)->heldRequests().first();
    QPointer<FakeTransport> old = peer.transport(1);

    connection.reconnectNow();
    QTRY_VERIFY_WITH_TIMEOUT(done.record.has_value(), 10000);
    QCOMPARE(outcomeOf(done), QStringLiteral("success"));
    QCOMPARE(done.record->attempts.size(), qsizetype(2));
    QCOMPARE(done.record->attempts.first().failureKind, FailureKind::TransportLost);
    QCOMPARE(done.record->rule, QStringLiteral("R4"));
    // The abandoned first attempt went out once on session 1, the retry once on a newer session.
    QCOMPARE(peer.receivedOn(1, ToolsCall), 1);
    QCOMPARE(peer.received(ToolsCall), 2);
    QVERIFY(done.record->attempts.last().sessionId != QStringLiteral("fake-session-1"));

    // The old server's answer arrives after all: it is nobody's any more.
    if (old)
        old->answer(firstId, QJsonObject());
    QCOMPARE(done.count, 1);
    QCOMPARE(outcomeOf(done), QStringLiteral("success"));
}

void TestServerConnection::cancelCall_data()
{
    QTest::addColumn<bool>("onTheWire");
    QTest::addColumn<int>("cancellations");
    QTest::newRow("on the wire: notifications/cancelled, never retried") << true << 1;
    QTest::newRow("waiting for a reconnect: nothing on the wire to cancel") << false << 0;
}

void TestServerConnection::cancelCall()
{
    // Fake: the call must be caught mid-flight (request unanswered, or a reconnect that does not end),
    // which needs a server that does nothing until told.
    QFETCH(bool, onTheWire);
    QFETCH(int, cancellations);
    FakePeer peer;
    FakeFactory factory(peer);
    peer.setTools(Tools);
    if (onTheWire) {
        peer.script(ToolsCall, FakeAnswer::silence());
    } else {
        peer.script(ToolsCall, FakeAnswer::failing(lostAfterWrite()));
        peer.script(QStringLiteral("initialize"), peer.defaultAnswer(QStringLiteral("initialize")));
        peer.script(QStringLiteral("initialize"), FakeAnswer::silence());
    }
    ServerConnection connection(fakeConfig());
    QVERIFY(connectAndWaitReady(connection));
    Done done;
    const QString callId = connection.callTool(QStringLiteral("read"), {}, {}, done.handler());
    if (onTheWire)
        QTRY_COMPARE(peer.transport(1)->heldRequests().size(), qsizetype(1));
    else
        QTRY_COMPARE(peer.received(QStringLiteral("initialize")), 2);

    QVERIFY(connection.cancelCall(callId));
    QTRY_VERIFY(done.record.has_value());
    QCOMPARE(done.count, 1);
    QCOMPARE(outcomeOf(done), QStringLiteral("cancelled"));
    QCOMPARE(done.record->attempts.size(), qsizetype(1));
    QCOMPARE(peer.received(ToolsCall), 1);
    const QList<JsonRpcMessage> cancelled = peer.notifications(QStringLiteral("notifications/cancelled"));
    QCOMPARE(cancelled.size(), qsizetype(cancellations));
    if (cancellations > 0) {
        QCOMPARE(idKey(cancelled.first().params.value(QLatin1String("requestId"))).display(),
            done.record->attempts.first().requestId);
    }
    QVERIFY(!connection.cancelCall(callId));
    QCOMPARE(connection.callsInFlight(), 0);
}

void TestServerConnection::keepaliveFailureMakesTheConnectionSuspect_data()
{
    QTest::addColumn<FakeAnswer>("ping");
    QTest::newRow("ping lost after it was written") << FakeAnswer::failing(lostAfterWrite());
    QTest::newRow("ping answered HTTP 401") << FakeAnswer::failing(httpStatus(401));
    QTest::newRow("ping unanswered until its deadline") << FakeAnswer::silence();
}

void TestServerConnection::keepaliveFailureMakesTheConnectionSuspect()
{
    // Fake: one ping must fail while the rest of the session is healthy; a real server that stops
    // answering pings stops answering the reconnect too.
    QFETCH(FakeAnswer, ping);
    FakePeer peer;
    FakeFactory factory(peer);
    peer.script(QStringLiteral("ping"), ping);
    ServerConnection connection(fakeConfig(1));
    QVERIFY(connectAndWaitReady(connection));
    QSignalSpy states(&connection, &ServerConnection::stateChanged);

    QTRY_VERIFY_WITH_TIMEOUT(states.contains({ QVariant::fromValue(ServerConnection::State::Suspect) }), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), ServerConnection::State::Ready, 5000);
    QTRY_COMPARE(connection.sessionId(), QStringLiteral("fake-session-2"));
    const qsizetype suspect = states.indexOf({ QVariant::fromValue(ServerConnection::State::Suspect) });
    QCOMPARE(states.at(suspect + 1).first().value<ServerConnection::State>(), ServerConnection::State::Reconnecting);
    QCOMPARE(peer.receivedOn(1, QStringLiteral("ping")), 1);
    QCOMPARE(peer.received(QStringLiteral("initialize")), 2);
}

void TestServerConnection::earlierAttemptMayHaveRun_data()
{
    QTest::addColumn<FakeAnswer>("first");
    QTest::addColumn<FakeAnswer>("second");
    QTest::addColumn<int>("initializes");
    QTest::addColumn<QString>("outcome");

    QTest::newRow("first lost after the write, retry never sent: transport error, not 'not dispatched'")
        << FakeAnswer::failing(lostAfterWrite()) << FakeAnswer::failing(notSent()) << 2
        << QStringLiteral("transport_error");
    QTest::newRow("first lost after the write, retry refused with 401: transport error, not 'needs auth'")
        << FakeAnswer::failing(lostAfterWrite()) << FakeAnswer::failing(httpStatus(401)) << 2
        << QStringLiteral("transport_error");
    QTest::newRow("neither attempt ever left: not dispatched")
        << FakeAnswer::failing(notSent()) << FakeAnswer::failing(notSent()) << 1 << QStringLiteral("not_dispatched");
}

void TestServerConnection::earlierAttemptMayHaveRun()
{
    // Fake: two attempts with two chosen pieces of evidence, the second one failing before any byte
    // left, is a sequence no real server can be told to produce.
    QFETCH(FakeAnswer, first);
    QFETCH(FakeAnswer, second);
    QFETCH(int, initializes);
    QFETCH(QString, outcome);
    FakePeer peer;
    FakeFactory factory(peer);
    peer.setTools(Tools);
    peer.script(ToolsCall, first);
    peer.script(ToolsCall, second);
    ServerConnection connection(fakeConfig());
    QVERIFY(connectAndWaitReady(connection));

    Done done;
    connection.callTool(QStringLiteral("read"), {}, {}, done.handler());
    QTRY_VERIFY_WITH_TIMEOUT(done.record.has_value(), 10000);
    QCOMPARE(done.count, 1);
    QCOMPARE(outcomeOf(done), outcome);
    QCOMPARE(done.record->attempts.size(), qsizetype(2));
    QCOMPARE(done.record->attempts.at(0).written, first.written);
    QCOMPARE(done.record->attempts.at(1).written, second.written);
    QCOMPARE(done.record->rule, QStringLiteral("R7"));
    QCOMPARE(peer.received(ToolsCall), 2);
    QCOMPARE(peer.received(QStringLiteral("initialize")), initializes);
}

QTEST_GUILESS_MAIN(TestServerConnection)
#include "tst_serverconnection.moc"
