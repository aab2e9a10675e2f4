#include "faketransport.h"
#include "recovery/failureclassifier.h"
#include "session/clientsession.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace mcpscope;
using namespace mcpscope::test;

Q_DECLARE_METATYPE(mcpscope::test::FakeAnswer)

namespace {

/// A session on a fresh FakeTransport of peer; the session owns the transport.
std::unique_ptr<ClientSession> sessionOn(FakePeer& peer, int keepaliveIntervalSec = 0)
{
    ClientSession::Options options;
    options.serverName = QStringLiteral("fake");
    options.requestTimeoutMs = 5000;
    options.keepaliveIntervalSec = keepaliveIntervalSec;
    return std::make_unique<ClientSession>(peer.newTransport(), options);
}

bool startAndWaitReady(ClientSession& session)
{
    QSignalSpy ready(&session, &ClientSession::ready);
    session.start();
    return ready.wait(5000);
}

/// Collects the one reply a request gets; count says how often done ran.
struct ReplySink
{
    int count = 0;
    Reply reply;
    ReplyHandler handler()
    {
        return [this](const Reply& r) {
            ++count;
            reply = r;
        };
    }
};

QString kindName(const TransportFailure& failure)
{
    return failureKindName(FailureClassifier::kindOf(failure));
}

} // namespace

class TestClientSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void handshakeSendsQueuedRequestsAfterInitialized();
    void metaJoinsTheCallersOwn();
    void cancel_data();
    void cancel();
    void lateAnswerToACancelledRequestIsCountedNotDelivered();
    void requestFailureKeepsItsEvidence_data();
    void requestFailureKeepsItsEvidence();
    void lostChannelEndsEachRequestByWhetherItWasWritten();
    void unsupportedProtocolVersionFailsAsAProtocolError();
    void keepaliveFailureIsReportedOnce();
};

void TestClientSession::handshakeSendsQueuedRequestsAfterInitialized()
{
    // Fake: the order in which the session writes its messages is only observable on a transport we
    // own; a real peer shows neither the queue nor the exact count of what it was handed.
    FakePeer peer;
    auto session = sessionOn(peer);
    ReplySink sink;
    session->request(QStringLiteral("resources/list"), {}, {}, sink.handler());
    QVERIFY(startAndWaitReady(*session));
    QTRY_COMPARE(sink.count, 1);

    QCOMPARE(peer.received(QStringLiteral("initialize")), 1);
    QCOMPARE(peer.notifications(QStringLiteral("notifications/initialized")).size(), 1);
    QCOMPARE(peer.received(QStringLiteral("resources/list")), 1);
    QVERIFY(sink.reply.ok());
    // The queued request went out only after notifications/initialized (MCP lifecycle).
    const QList<JsonRpcMessage> sent = peer.sent(1);
    QCOMPARE(sent.size(), qsizetype(3));
    QCOMPARE(sent.at(0).method, QStringLiteral("initialize"));
    QCOMPARE(sent.at(1).method, QStringLiteral("notifications/initialized"));
    QCOMPARE(sent.at(2).method, QStringLiteral("resources/list"));
}

void TestClientSession::metaJoinsTheCallersOwn()
{
    // Fake: the exact params a request goes out with are only observable on a transport we own.
    FakePeer peer;
    auto session = sessionOn(peer);
    QVERIFY(startAndWaitReady(*session));
    RequestOptions options;
    options.meta.insert(QStringLiteral("io.example/attempt"), QJsonObject { { QStringLiteral("attempt"), 1 } });
    options.onProgress = [](const ProgressUpdate&) {};
    ReplySink plain;
    ReplySink own;
    // Without a _meta of its own, the session's entries make it.
    session->request(QStringLiteral("resources/list"), { { QStringLiteral("cursor"), QStringLiteral("c1") } }, options,
        plain.handler());
    // With one, the session's entries join it and it keeps its own.
    session->request(QStringLiteral("resources/list"),
        { { QStringLiteral("_meta"), QJsonObject { { QStringLiteral("mine"), true } } } }, options, own.handler());
    QTRY_COMPARE(plain.count + own.count, 2);

    const QList<JsonRpcMessage> sent = peer.requests(QStringLiteral("resources/list"));
    QCOMPARE(sent.size(), qsizetype(2));
    const QJsonObject first = sent.at(0).params.value(QLatin1String("_meta")).toObject();
    QCOMPARE(sent.at(0).params.value(QLatin1String("cursor")).toString(), QStringLiteral("c1"));
    QCOMPARE(first.keys(), (QStringList { QStringLiteral("io.example/attempt"), QStringLiteral("progressToken") }));
    QCOMPARE(first.value(QLatin1String("io.example/attempt")).toObject().value(QLatin1String("attempt")).toInt(), 1);
    const QJsonObject second = sent.at(1).params.value(QLatin1String("_meta")).toObject();
    QCOMPARE(second.keys(),
        (QStringList {
            QStringLiteral("io.example/attempt"), QStringLiteral("mine"), QStringLiteral("progressToken") }));
    QVERIFY(second.value(QLatin1String("mine")).toBool());
    QVERIFY(second.value(QLatin1String("progressToken")) != first.value(QLatin1String("progressToken")));
}

void TestClientSession::cancel_data()
{
    QTest::addColumn<bool>("onTheWire");
    QTest::addColumn<int>("sent");
    QTest::addColumn<int>("cancellations");
    QTest::newRow("a request on the wire is cancelled with notifications/cancelled") << true << 1 << 1;
    QTest::newRow("a request still queued before ready never goes out") << false << 0 << 0;
}

void TestClientSession::cancel()
{
    // Fake: a request has to stay unanswered (or the handshake unfinished) for as long as the test
    // needs, which no real server does on demand.
    QFETCH(bool, onTheWire);
    QFETCH(int, sent);
    QFETCH(int, cancellations);
    FakePeer peer;
    peer.script(QStringLiteral("tools/call"), FakeAnswer::silence());
    if (!onTheWire)
        peer.script(QStringLiteral("initialize"), FakeAnswer::silence());
    auto session = sessionOn(peer);
    if (onTheWire) {
        QVERIFY(startAndWaitReady(*session));
    } else {
        session->start();
        QTRY_COMPARE(peer.received(QStringLiteral("initialize")), 1);
    }
    ReplySink sink;
    const QJsonValue id = session->callTool(QStringLiteral("write"), {}, {}, sink.handler());
    if (onTheWire)
        QTRY_COMPARE(peer.transport(1)->heldRequests().size(), qsizetype(1));

    QVERIFY(session->cancel(id, QStringLiteral("the user cancelled")));
    QCOMPARE(sink.count, 1);
    QCOMPARE(sink.reply.status, Reply::Status::Cancelled);
    QCOMPARE(sink.reply.written, onTheWire);
    QCOMPARE(peer.received(QStringLiteral("tools/call")), sent);
    const QList<JsonRpcMessage> cancelled = peer.notifications(QStringLiteral("notifications/cancelled"));
    QCOMPARE(cancelled.size(), qsizetype(cancellations));
    if (cancellations > 0)
        QCOMPARE(idKey(cancelled.first().params.value(QLatin1String("requestId"))), idKey(id));
    QVERIFY(!session->cancel(id, QStringLiteral("twice")));
}

void TestClientSession::lateAnswerToACancelledRequestIsCountedNotDelivered()
{
    // Fake: the answer must arrive after the cancel, at a moment the test picks.
    FakePeer peer;
    peer.script(QStringLiteral("resources/read"), FakeAnswer::silence());
    auto session = sessionOn(peer);
    QVERIFY(startAndWaitReady(*session));
    ReplySink sink;
    const QJsonValue id = session->request(QStringLiteral("resources/read"), {}, {}, sink.handler());
    QTRY_COMPARE(peer.transport(1)->heldRequests().size(), qsizetype(1));
    QVERIFY(session->cancel(id, QStringLiteral("the user cancelled")));

    QSignalSpy warnings(session.get(), &ClientSession::protocolWarning);
    peer.transport(1)->answer(id, QJsonObject { { QStringLiteral("contents"), QJsonArray() } });
    QCOMPARE(session->lateResponses(), qint64(1));
    QCOMPARE(sink.count, 1);
    QCOMPARE(sink.reply.status, Reply::Status::Cancelled);
    QCOMPARE(warnings.size(), 0);
    QCOMPARE(peer.received(QStringLiteral("resources/read")), 1);
}

void TestClientSession::requestFailureKeepsItsEvidence_data()
{
    QTest::addColumn<FakeAnswer>("answer");
    QTest::addColumn<bool>("written");
    QTest::addColumn<QString>("kind");

    QTest::newRow("connection reset after the write is transport lost")
        << FakeAnswer::failing(lostAfterWrite()) << true << QStringLiteral("transport_lost");
    QTest::newRow("nothing of the request left is not sent")
        << FakeAnswer::failing(notSent()) << false << QStringLiteral("not_sent");
    FakeAnswer writtenThenNotSent = FakeAnswer::failing(notSent());
    writtenThenNotSent.written = true;
    QTest::newRow("not-sent evidence after requestWritten keeps the write: transport lost")
        << writtenThenNotSent << true << QStringLiteral("transport_lost");
    QTest::newRow("HTTP 401 is auth required")
        << FakeAnswer::failing(httpStatus(401)) << true << QStringLiteral("auth_required");
    QTest::newRow("HTTP 404 to a request that carried a session is session expired")
        << FakeAnswer::failing(httpStatus(404, QStringLiteral("s-1"))) << true << QStringLiteral("session_expired");
}

void TestClientSession::requestFailureKeepsItsEvidence()
{
    // Fake: each row needs one exact piece of evidence for one request, in the order the transport
    // reports it (requestWritten first, then the failure), which real peers give only by accident.
    QFETCH(FakeAnswer, answer);
    QFETCH(bool, written);
    QFETCH(QString, kind);
    FakePeer peer;
    peer.script(QStringLiteral("prompts/get"), answer);
    auto session = sessionOn(peer);
    QVERIFY(startAndWaitReady(*session));
    ReplySink sink;
    session->request(QStringLiteral("prompts/get"), {}, {}, sink.handler());
    QTRY_COMPARE(sink.count, 1);

    QCOMPARE(sink.reply.status, Reply::Status::Failed);
    QCOMPARE(sink.reply.written, written);
    QCOMPARE(sink.reply.failure.requestWritten, written);
    QCOMPARE(sink.reply.failure.httpStatus, answer.evidence.httpStatus);
    // The reply as the connection classifies it: the session's written flag wins over the evidence.
    const std::optional<ClassifiedFailure> classified = FailureClassifier::classify(sink.reply, false);
    QVERIFY(classified);
    QCOMPARE(failureKindName(classified->kind), kind);
    QCOMPARE(peer.received(QStringLiteral("prompts/get")), 1);
    // One request failed, not the session.
    QVERIFY(session->isReady());
}

void TestClientSession::lostChannelEndsEachRequestByWhetherItWasWritten()
{
    // Fake: a channel that dies while one request is written and another is not yet is a window a
    // real pipe closes in microseconds.
    FakePeer peer;
    peer.script(QStringLiteral("resources/read"), FakeAnswer::silence());
    FakeAnswer unwritten = FakeAnswer::silence();
    unwritten.written = false;
    peer.script(QStringLiteral("resources/read"), unwritten);
    auto session = sessionOn(peer);
    QVERIFY(startAndWaitReady(*session));
    ReplySink first;
    ReplySink second;
    session->request(QStringLiteral("resources/read"), {}, {}, first.handler());
    session->request(QStringLiteral("resources/read"), {}, {}, second.handler());
    QTRY_COMPARE(peer.transport(1)->heldRequests().size(), qsizetype(2));

    QSignalSpy failed(session.get(), &ClientSession::failed);
    session->abort();
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.size(), 1);
    QCOMPARE(session->state(), ClientSession::State::Failed);
    QCOMPARE(session->lastFailure().event, TransportEvent::Killed);
    QCOMPARE(first.count, 1);
    QCOMPARE(second.count, 1);
    QCOMPARE(kindName(first.reply.failure), QStringLiteral("transport_lost"));
    QCOMPARE(kindName(second.reply.failure), QStringLiteral("not_sent"));
    QCOMPARE(peer.received(QStringLiteral("resources/read")), 2);
}

void TestClientSession::unsupportedProtocolVersionFailsAsAProtocolError()
{
    // Fake: no real peer answers initialize with a protocol version nobody speaks.
    FakePeer peer;
    peer.script(QStringLiteral("initialize"),
        FakeAnswer::withResult(QJsonObject { { QStringLiteral("protocolVersion"), QStringLiteral("1999-01-01") } }));
    auto session = sessionOn(peer);
    QSignalSpy failed(session.get(), &ClientSession::failed);
    session->start();
    QVERIFY(failed.wait(5000));
    QCOMPARE(session->state(), ClientSession::State::Failed);
    QCOMPARE(kindName(session->lastFailure()), QStringLiteral("protocol_error"));
    QVERIFY(session->lastError().contains(QLatin1String("1999-01-01")));
    QCOMPARE(peer.received(QStringLiteral("initialize")), 1);
    QCOMPARE(peer.notifications(QStringLiteral("notifications/initialized")).size(), 0);
}

void TestClientSession::keepaliveFailureIsReportedOnce()
{
    // Fake: a ping that is lost on its way while the session is otherwise healthy; a real server that
    // drops a ping drops everything after it too.
    FakePeer peer;
    peer.script(QStringLiteral("ping"), FakeAnswer::failing(lostAfterWrite()));
    auto session = sessionOn(peer, 1);
    QVERIFY(startAndWaitReady(*session));
    QSignalSpy keepaliveFailed(session.get(), &ClientSession::keepaliveFailed);
    QVERIFY(keepaliveFailed.wait(5000));
    QCOMPARE(keepaliveFailed.size(), 1);
    const Reply reply = keepaliveFailed.first().first().value<Reply>();
    QCOMPARE(reply.method, QStringLiteral("ping"));
    QCOMPARE(kindName(reply.failure), QStringLiteral("transport_lost"));
    QCOMPARE(peer.received(QStringLiteral("ping")), 1);
    QVERIFY(session->isReady());
}

QTEST_GUILESS_MAIN(TestClientSession)
#include "tst_clientsession.moc"
