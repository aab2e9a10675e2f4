#include "recovery/failureclassifier.h"
#include "session/clientsession.h"
#include "transport/stdiotransport.h"
#include "transport/streamablehttptransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <optional>

using mcpscope::ClassifiedFailure;
using mcpscope::DispatchVerdict;
using mcpscope::FailureKind;
using mcpscope::Reply;
using mcpscope::TransportEvent;
using Status = mcpscope::Reply::Status;
using mcpscope::TransportFailure;

namespace {

/// A loopback HTTP server that answers each POST with the next scripted response (an empty one
/// closes the connection without a byte) and refuses the GET stream; one request per connection.
class LoopbackHttp
{
public:
    explicit LoopbackHttp(QList<QByteArray> responses)
        : m_responses(std::move(responses))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection())
                serve(socket);
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_server.serverPort())); }
    int posts() const { return m_posts; }

private:
    void serve(QTcpSocket* socket)
    {
        auto buffer = std::make_shared<QByteArray>();
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
            buffer->append(socket->readAll());
            const qsizetype headEnd = buffer->indexOf("\r\n\r\n");
            if (headEnd < 0)
                return;
            const QByteArray head = buffer->left(headEnd).toLower();
            const qsizetype at = head.indexOf("content-length:");
            const qsizetype length
                = at < 0 ? 0 : head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).trimmed().toLongLong();
            if (buffer->size() < headEnd + 4 + length)
                return;
            QByteArray response = QByteArrayLiteral("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
            if (buffer->startsWith("POST")) {
                ++m_posts;
                response = m_responses.isEmpty() ? QByteArray() : m_responses.takeFirst();
            }
            buffer->clear();
            if (response.isEmpty()) {
                socket->disconnectFromHost();
                return;
            }
            socket->write(response);
            socket->flush();
        });
        QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

    QTcpServer m_server;
    QList<QByteArray> m_responses;
    int m_posts = 0;
};

QByteArray httpResponse(const QByteArray& statusLine, const QByteArray& headers = {}, const QByteArray& body = {})
{
    return "HTTP/1.1 " + statusLine + "\r\n" + headers + "Content-Length: " + QByteArray::number(body.size())
        + "\r\n\r\n" + body;
}

/// What a transport reported for the one request sent through it, as ClientSession turns it into a
/// Reply: the request's own requestWritten decides whether a lost channel had its bytes.
struct Evidence
{
    std::optional<TransportFailure> failure;
    bool written = false;
    bool answered = false;

    void watch(mcpscope::Transport& transport, const QJsonValue& id)
    {
        QObject::connect(&transport, &mcpscope::Transport::requestWritten, &transport, [this, id](const QJsonValue& w) {
            if (mcpscope::idKey(w) == mcpscope::idKey(id))
                written = true;
        });
        QObject::connect(&transport, &mcpscope::Transport::requestFailed, &transport,
            [this, id](const QJsonValue& failed, const TransportFailure& f) {
                if (mcpscope::idKey(failed) == mcpscope::idKey(id) && !failure)
                    failure = f;
            });
        QObject::connect(
            &transport, &mcpscope::Transport::channelFailed, &transport, [this](const TransportFailure& f) {
                if (!failure)
                    failure = f;
            });
        QObject::connect(&transport, &mcpscope::Transport::messageReceived, &transport,
            [this, id](const mcpscope::JsonRpcMessage& message) {
                if (mcpscope::idKey(message.id) == mcpscope::idKey(id))
                    answered = true;
            });
    }

    Reply reply(const QString& method) const
    {
        Reply r;
        r.status = Status::Failed;
        r.method = method;
        r.failure = *failure;
        r.written = failure->requestWritten || written;
        r.failure.requestWritten = r.written;
        return r;
    }
};

const QByteArray InitializeAnswer
    = R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"loopback"}}})";

QJsonObject toolResult(const QJsonValue& isError, const QString& text = QStringLiteral("done"))
{
    QJsonObject result { { QStringLiteral("content"),
        QJsonArray {
            QJsonObject { { QStringLiteral("type"), QStringLiteral("text") }, { QStringLiteral("text"), text } } } } };
    if (!isError.isUndefined())
        result.insert(QStringLiteral("isError"), isError);
    return result;
}

} // namespace

class TestFailureClassifier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void classify_data();
    void classify();
    void toolErrorKeepsTheServersText();
    void modernRefusalsAreRejected_data();
    void modernRefusalsAreRejected();
    void otherErasRefusalIsEraMismatch_data();
    void otherErasRefusalIsEraMismatch();
    void verdictForMatchesTheTable_data();
    void verdictForMatchesTheTable();
    void realHttpEvidence_data();
    void realHttpEvidence();
    void realStdioEvidence_data();
    void realStdioEvidence();
};

void TestFailureClassifier::classify_data()
{
    QTest::addColumn<Status>("status");
    QTest::addColumn<bool>("isToolCall");
    QTest::addColumn<QJsonValue>("result");
    QTest::addColumn<QString>("errorMessage");
    QTest::addColumn<TransportEvent>("event");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<bool>("written");
    QTest::addColumn<bool>("isFailure");
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<DispatchVerdict>("verdict");
    QTest::addColumn<QString>("sessionId");
    QTest::addColumn<QByteArray>("challenge");

    const QJsonValue none;
    const QString noText;
    const auto ok = [&](const char* tag, bool isToolCall, const QJsonValue& result) {
        QTest::newRow(tag) << Status::Ok << isToolCall << result << noText << TransportEvent::ConnectionLost << 0
                           << true << false << FailureKind::TransportLost << DispatchVerdict::Unknown << QString()
                           << QByteArray();
    };
    ok("tools/call result without isError is a success", true, toolResult(QJsonValue::Undefined));
    ok("tools/call result with isError false is a success", true, toolResult(false));
    ok("tools/call result with isError \"true\" (a string) is not a tool error", true,
        toolResult(QStringLiteral("true")));
    ok("resources/read result that happens to carry isError true is a success", false, toolResult(true));

    QTest::newRow("tools/call result with isError true is ToolError, Executed")
        << Status::Ok << true << QJsonValue(toolResult(true)) << noText << TransportEvent::ConnectionLost << 0 << true
        << true << FailureKind::ToolError << DispatchVerdict::Executed << QString() << QByteArray();

    QTest::newRow("cancelled before sending is not a failure")
        << Status::Cancelled << true << none << noText << TransportEvent::NotSent << 0 << false << false
        << FailureKind::NotSent << DispatchVerdict::Unknown << QString() << QByteArray();
    QTest::newRow("cancelled after writing is not a failure")
        << Status::Cancelled << true << none << noText << TransportEvent::ConnectionLost << 0 << true << false
        << FailureKind::NotSent << DispatchVerdict::Unknown << QString() << QByteArray();

    const auto rpc = [&](const char* tag, bool isToolCall, const QString& message, DispatchVerdict verdict) {
        QTest::newRow(tag) << Status::RpcError << isToolCall << none << message << TransportEvent::ConnectionLost << 0
                           << true << true << FailureKind::ProtocolError << verdict << QString() << QByteArray();
    };
    rpc("JSON-RPC error on tools/call is ProtocolError, Unknown", true, QStringLiteral("Invalid params"),
        DispatchVerdict::Unknown);
    rpc("JSON-RPC error on resources/read is ProtocolError, Declined", false, QStringLiteral("Resource not found"),
        DispatchVerdict::Declined);
    rpc("JSON-RPC error saying \"session not found\" on tools/call stays ProtocolError", true,
        QStringLiteral("Bad Request: session not found"), DispatchVerdict::Unknown);
    rpc("JSON-RPC error saying \"session not found\" on prompts/get stays ProtocolError, Declined", false,
        QStringLiteral("session not found"), DispatchVerdict::Declined);
    rpc("JSON-RPC error saying \"unauthorized\" stays ProtocolError", false, QStringLiteral("401 unauthorized"),
        DispatchVerdict::Declined);

    // Transport evidence rows: what the wire showed (event, status, bytes written, whether the request
    // carried a session id, the challenge and the body); the classifier alone names the kind.
    const auto failed = [&](const char* tag, bool isToolCall, TransportEvent event, int httpStatus, bool written,
                            FailureKind kind, DispatchVerdict verdict, const QString& body = QString(),
                            const QString& sessionId = QString(), const QByteArray& challenge = QByteArray()) {
        QTest::newRow(tag) << Status::Failed << isToolCall << none << body << event << httpStatus << written << true
                           << kind << verdict << sessionId << challenge;
    };
    const QString session = QStringLiteral("s-1");
    const QString sdkNoSession = QStringLiteral(
        R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null})");
    const QString everythingNoSession = QStringLiteral(
        R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":7})");
    failed("connect refused before writing is NotSent, NotDispatched", true, TransportEvent::ConnectFailed, 0, false,
        FailureKind::NotSent, DispatchVerdict::NotDispatched);
    failed("channel not open is NotSent, NotDispatched", true, TransportEvent::NotSent, 0, false, FailureKind::NotSent,
        DispatchVerdict::NotDispatched);
    failed("NotSent contradicted by a written flag is TransportLost, Unknown", true, TransportEvent::NotSent, 0, true,
        FailureKind::TransportLost, DispatchVerdict::Unknown);
    failed("HTTP 401 is AuthRequired, NotDispatched", true, TransportEvent::HttpStatus, 401, true,
        FailureKind::AuthRequired, DispatchVerdict::NotDispatched);
    failed("HTTP 403 insufficient_scope is InsufficientScope, NotDispatched", true, TransportEvent::HttpStatus, 403,
        true, FailureKind::InsufficientScope, DispatchVerdict::NotDispatched, QString(), QString(),
        QByteArray(R"(Bearer error="insufficient_scope", scope="files:write")"));
    failed("HTTP 404 with a session id is SessionExpired, Unknown", true, TransportEvent::HttpStatus, 404, true,
        FailureKind::SessionExpired, DispatchVerdict::Unknown, QString(), session);
    failed("HTTP 404 without a session id is HttpError, Declined", true, TransportEvent::HttpStatus, 404, true,
        FailureKind::HttpError, DispatchVerdict::Declined);
    failed("HTTP 400 in the SDK's exact no-valid-session shape is SessionExpired, Unknown", false,
        TransportEvent::HttpStatus, 400, true, FailureKind::SessionExpired, DispatchVerdict::Unknown, sdkNoSession,
        session);
    failed("HTTP 400 in server-everything's no-valid-session shape (its id) is SessionExpired, Unknown", true,
        TransportEvent::HttpStatus, 400, true, FailureKind::SessionExpired, DispatchVerdict::Unknown,
        everythingNoSession, session);
    failed("HTTP 400 in that shape without a session id sent is HttpError, Declined", true, TransportEvent::HttpStatus,
        400, true, FailureKind::HttpError, DispatchVerdict::Declined, sdkNoSession);
    failed("HTTP 400 about an argument named sessionName is HttpError, Declined", true, TransportEvent::HttpStatus, 400,
        true, FailureKind::HttpError, DispatchVerdict::Declined,
        QStringLiteral(R"({"error":"invalid sessionName: must not be empty"})"), session);
    failed("HTTP 400 whose text says the session expired is still HttpError, Declined", true,
        TransportEvent::HttpStatus, 400, true, FailureKind::HttpError, DispatchVerdict::Declined,
        QStringLiteral("Bad Request: session expired"), session);
    failed("connection reset after writing is TransportLost, Unknown", true, TransportEvent::ConnectionLost, 0, true,
        FailureKind::TransportLost, DispatchVerdict::Unknown);
    failed("connection lost before any byte was written is NotSent, NotDispatched", true,
        TransportEvent::ConnectionLost, 0, false, FailureKind::NotSent, DispatchVerdict::NotDispatched);
    failed("stdio child exited with the request in flight is TransportLost, Unknown", false,
        TransportEvent::ProcessGone, 0, true, FailureKind::TransportLost, DispatchVerdict::Unknown);
    failed("stdio child dead before the write is NotSent, NotDispatched", true, TransportEvent::ProcessGone, 0, false,
        FailureKind::NotSent, DispatchVerdict::NotDispatched);
    failed("kill-transport after writing is TransportLost, Unknown", true, TransportEvent::Killed, 0, true,
        FailureKind::TransportLost, DispatchVerdict::Unknown);
    failed("session replaced before the answer is TransportLost, Unknown", true, TransportEvent::Replaced, 0, true,
        FailureKind::TransportLost, DispatchVerdict::Unknown);
    failed("HTTP 500 is HttpError, Unknown", true, TransportEvent::HttpStatus, 500, true, FailureKind::HttpError,
        DispatchVerdict::Unknown);
    failed("HTTP 502 from a proxy is HttpError, Unknown", false, TransportEvent::HttpStatus, 502, true,
        FailureKind::HttpError, DispatchVerdict::Unknown);
    failed("HTTP 503 is HttpError, Unknown", true, TransportEvent::HttpStatus, 503, true, FailureKind::HttpError,
        DispatchVerdict::Unknown);
    failed("HTTP 400 is HttpError, Declined", true, TransportEvent::HttpStatus, 400, true, FailureKind::HttpError,
        DispatchVerdict::Declined);
    failed("HTTP 403 without insufficient_scope is HttpError, Declined", true, TransportEvent::HttpStatus, 403, true,
        FailureKind::HttpError, DispatchVerdict::Declined);
    failed("HTTP 429 is HttpError, Declined", false, TransportEvent::HttpStatus, 429, true, FailureKind::HttpError,
        DispatchVerdict::Declined);
    failed("HTTP 500 whose body says \"session not found\" stays HttpError", true, TransportEvent::HttpStatus, 500,
        true, FailureKind::HttpError, DispatchVerdict::Unknown, QStringLiteral("session not found"), session);
    failed("HTTP 400 whose body says \"unauthorized\" stays HttpError, Declined", true, TransportEvent::HttpStatus, 400,
        true, FailureKind::HttpError, DispatchVerdict::Declined, QStringLiteral("unauthorized"));
    failed("HTTP 302 is HttpError, Unknown (not proven declined)", true, TransportEvent::HttpStatus, 302, true,
        FailureKind::HttpError, DispatchVerdict::Unknown);
    failed("malformed answer to tools/call is ProtocolError, Unknown", true, TransportEvent::Malformed, 0, true,
        FailureKind::ProtocolError, DispatchVerdict::Unknown);
    failed("oversized answer to resources/read is ProtocolError, Unknown", false, TransportEvent::Oversize, 0, true,
        FailureKind::ProtocolError, DispatchVerdict::Unknown);
    failed("2xx with no JSON-RPC answer is ProtocolError, Unknown", false, TransportEvent::NoAnswer, 200, true,
        FailureKind::ProtocolError, DispatchVerdict::Unknown);
    failed("transport-reported timeout is Timeout, Unknown", true, TransportEvent::TimedOut, 0, true,
        FailureKind::Timeout, DispatchVerdict::Unknown);

    QTest::newRow("deadline passed on tools/call is Timeout, Unknown")
        << Status::TimedOut << true << none << noText << TransportEvent::TimedOut << 0 << true << true
        << FailureKind::Timeout << DispatchVerdict::Unknown << QString() << QByteArray();
    QTest::newRow("deadline passed on ping is Timeout, Unknown")
        << Status::TimedOut << false << none << noText << TransportEvent::TimedOut << 0 << true << true
        << FailureKind::Timeout << DispatchVerdict::Unknown << QString() << QByteArray();
}

void TestFailureClassifier::classify()
{
    QFETCH(Status, status);
    QFETCH(bool, isToolCall);
    QFETCH(QJsonValue, result);
    QFETCH(QString, errorMessage);
    QFETCH(TransportEvent, event);
    QFETCH(QString, sessionId);
    QFETCH(QByteArray, challenge);
    QFETCH(int, httpStatus);
    QFETCH(bool, written);
    QFETCH(bool, isFailure);

    Reply reply;
    reply.status = status;
    reply.method = isToolCall ? QStringLiteral("tools/call") : QStringLiteral("resources/read");
    reply.result = result;
    reply.written = written;
    reply.error.code = -32600;
    reply.error.message = errorMessage;
    reply.failure.event = event;
    reply.failure.sessionId = sessionId;
    if (!challenge.isEmpty())
        reply.failure.headers.append({ QByteArrayLiteral("WWW-Authenticate"), challenge });
    reply.failure.httpStatus = httpStatus;
    reply.failure.requestWritten = written;
    reply.failure.bodyExcerpt = errorMessage.toUtf8();
    reply.failure.message = errorMessage;

    const std::optional<ClassifiedFailure> classified = mcpscope::FailureClassifier::classify(reply, isToolCall);
    QCOMPARE(classified.has_value(), isFailure);
    if (!isFailure)
        return;
    QFETCH(FailureKind, kind);
    QFETCH(DispatchVerdict, verdict);
    QCOMPARE(mcpscope::failureKindName(classified->kind), mcpscope::failureKindName(kind));
    QCOMPARE(mcpscope::dispatchVerdictName(classified->verdict), mcpscope::dispatchVerdictName(verdict));
    QCOMPARE(classified->httpStatus, status == Status::Failed ? httpStatus : 0);
}

void TestFailureClassifier::toolErrorKeepsTheServersText()
{
    Reply reply;
    reply.status = Status::Ok;
    reply.method = QStringLiteral("tools/call");
    reply.result = toolResult(true, QStringLiteral("disk full"));
    const auto classified = mcpscope::FailureClassifier::classify(reply, true);
    QVERIFY(classified);
    QCOMPARE(classified->message, QStringLiteral("disk full"));
}

void TestFailureClassifier::modernRefusalsAreRejected_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<bool>("modern");
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<DispatchVerdict>("verdict");
    // RECOVERY.md §9: the revision's pre-execution codes, only from a modern server; -32021 is raised after
    // the handler ran (SDK v2, inside MRTR) and stays a ProtocolError, Unknown on a tools/call.
    QTest::newRow("-32022 modern") << -32022 << true << FailureKind::Rejected << DispatchVerdict::NotDispatched;
    QTest::newRow("-32020 modern") << -32020 << true << FailureKind::Rejected << DispatchVerdict::NotDispatched;
    QTest::newRow("-32601 modern") << -32601 << true << FailureKind::Rejected << DispatchVerdict::NotDispatched;
    QTest::newRow("-32021 modern") << -32021 << true << FailureKind::ProtocolError << DispatchVerdict::Unknown;
    // To a 2025-11-25 request, a -32022 naming 2026-07-28 is a modern-only server refusing the era (R13).
    QTest::newRow("-32022 legacy") << -32022 << false << FailureKind::EraMismatch << DispatchVerdict::NotDispatched;
    QTest::newRow("-32020 legacy") << -32020 << false << FailureKind::ProtocolError << DispatchVerdict::Unknown;
}

void TestFailureClassifier::otherErasRefusalIsEraMismatch_data()
{
    QTest::addColumn<bool>("modern");
    QTest::addColumn<QString>("sessionId");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<FailureKind>("kind");
    // QByteArray, not auto: a QStringBuilder would outlive the temporaries it points into.
    const auto gate = [](const char* message) -> QByteArray {
        return QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32000,"message":")") + message
            + QByteArray(R"("},"id":null})");
    };
    const QByteArray modernOnly
        = R"({"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported","data":{"supported":["2026-07-28"]}},"id":3})";
    // RECOVERY.md §9: a sessionless 2026-07-28 request refused at a legacy server's session gate (each exact
    // answer of the SDK v1 and server-everything), or a 2025-11-25 request refused with a modern -32022.
    QTest::newRow("modern, SDK v1 not initialized")
        << true << QString() << 400 << gate("Bad Request: Server not initialized") << FailureKind::EraMismatch;
    QTest::newRow("modern, SDK v1 session header required")
        << true << QString() << 400 << gate("Bad Request: Mcp-Session-Id header is required")
        << FailureKind::EraMismatch;
    QTest::newRow("modern, server-everything no valid session")
        << true << QString() << 400 << gate("Bad Request: No valid session ID provided") << FailureKind::EraMismatch;
    QTest::newRow("legacy, -32022 naming 2026-07-28")
        << false << QStringLiteral("s1") << 400 << modernOnly << FailureKind::EraMismatch;
    // Anything else keeps its §1 kind: another -32000 text, another status, the legacy session gate to a
    // request that carried a session (an expiry), a -32022 to a modern request (R10, Rejected elsewhere).
    QTest::newRow("modern, other -32000 text")
        << true << QString() << 400 << gate("Bad Request: something else") << FailureKind::HttpError;
    QTest::newRow("modern, gate body with 404")
        << true << QString() << 404 << gate("Bad Request: Server not initialized") << FailureKind::HttpError;
    QTest::newRow("legacy, gate body with session: expiry")
        << false << QStringLiteral("s1") << 400 << gate("Bad Request: No valid session ID provided")
        << FailureKind::SessionExpired;
    QTest::newRow("legacy, gate body without session")
        << false << QString() << 400 << gate("Bad Request: Server not initialized") << FailureKind::HttpError;
}

void TestFailureClassifier::otherErasRefusalIsEraMismatch()
{
    QFETCH(bool, modern);
    QFETCH(QString, sessionId);
    QFETCH(int, httpStatus);
    QFETCH(QByteArray, body);
    QFETCH(FailureKind, kind);
    Reply reply;
    reply.status = Status::Failed;
    reply.method = QStringLiteral("tools/call");
    reply.written = true;
    reply.failure.event = TransportEvent::HttpStatus;
    reply.failure.requestWritten = true;
    reply.failure.responseStarted = true;
    reply.failure.httpStatus = httpStatus;
    reply.failure.sessionId = sessionId;
    reply.failure.bodyExcerpt = body;
    const auto classified = mcpscope::FailureClassifier::classify(reply, true, modern);
    QVERIFY(classified);
    QCOMPARE(mcpscope::failureKindName(classified->kind), mcpscope::failureKindName(kind));
    if (kind == FailureKind::EraMismatch)
        QCOMPARE(classified->verdict, DispatchVerdict::NotDispatched);
}

void TestFailureClassifier::modernRefusalsAreRejected()
{
    QFETCH(int, code);
    QFETCH(bool, modern);
    QFETCH(FailureKind, kind);
    QFETCH(DispatchVerdict, verdict);
    Reply reply;
    reply.status = Status::RpcError;
    reply.method = QStringLiteral("tools/call");
    reply.error.code = code;
    reply.error.message = QStringLiteral("refused");
    reply.error.data = QJsonObject { { QStringLiteral("supported"), QJsonArray { QStringLiteral("2026-07-28") } } };
    const auto classified = mcpscope::FailureClassifier::classify(reply, true, modern);
    QVERIFY(classified);
    QCOMPARE(classified->kind, kind);
    QCOMPARE(classified->verdict, verdict);
    if (kind == FailureKind::Rejected) {
        QCOMPARE(classified->rpcCode, code);
        QCOMPARE(classified->rpcData.toObject().value(QLatin1String("supported")).toArray().size(), 1);
    }
}

void TestFailureClassifier::verdictForMatchesTheTable_data()
{
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<bool>("isToolCall");
    QTest::addColumn<DispatchVerdict>("verdict");

    QTest::newRow("NotSent") << FailureKind::NotSent << 0 << true << DispatchVerdict::NotDispatched;
    QTest::newRow("AuthRequired") << FailureKind::AuthRequired << 401 << true << DispatchVerdict::NotDispatched;
    QTest::newRow("InsufficientScope") << FailureKind::InsufficientScope << 403 << true
                                       << DispatchVerdict::NotDispatched;
    QTest::newRow("SessionExpired") << FailureKind::SessionExpired << 404 << true << DispatchVerdict::Unknown;
    QTest::newRow("TransportLost") << FailureKind::TransportLost << 0 << false << DispatchVerdict::Unknown;
    QTest::newRow("Timeout") << FailureKind::Timeout << 0 << false << DispatchVerdict::Unknown;
    QTest::newRow("HttpError 5xx") << FailureKind::HttpError << 504 << false << DispatchVerdict::Unknown;
    QTest::newRow("HttpError 4xx") << FailureKind::HttpError << 404 << false << DispatchVerdict::Declined;
    QTest::newRow("ProtocolError on tools/call") << FailureKind::ProtocolError << 0 << true << DispatchVerdict::Unknown;
    QTest::newRow("ProtocolError elsewhere") << FailureKind::ProtocolError << 0 << false << DispatchVerdict::Declined;
    QTest::newRow("ToolError") << FailureKind::ToolError << 0 << true << DispatchVerdict::Executed;
    QTest::newRow("Rejected") << FailureKind::Rejected << 400 << true << DispatchVerdict::NotDispatched;
    QTest::newRow("EraMismatch") << FailureKind::EraMismatch << 400 << true << DispatchVerdict::NotDispatched;
}

void TestFailureClassifier::verdictForMatchesTheTable()
{
    QFETCH(FailureKind, kind);
    QFETCH(int, httpStatus);
    QFETCH(bool, isToolCall);
    QFETCH(DispatchVerdict, verdict);
    QCOMPARE(mcpscope::dispatchVerdictName(mcpscope::FailureClassifier::verdictFor(kind, httpStatus, isToolCall)),
        mcpscope::dispatchVerdictName(verdict));
}

void TestFailureClassifier::realHttpEvidence_data()
{
    QTest::addColumn<QList<QByteArray>>("responses");
    QTest::addColumn<bool>("listening");
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<DispatchVerdict>("verdict");

    const QByteArray initialized
        = httpResponse("200 OK", "Content-Type: application/json\r\nMcp-Session-Id: s-loopback\r\n", InitializeAnswer);
    const QByteArray sdkNoSession
        = R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null})";
    QTest::newRow("connect refused on a loopback port nobody listens on is NotSent, NotDispatched")
        << QList<QByteArray>() << false << FailureKind::NotSent << DispatchVerdict::NotDispatched;
    QTest::newRow("HTTP 401 with a Bearer challenge is AuthRequired, NotDispatched") << QList<QByteArray> { initialized,
        httpResponse("401 Unauthorized", "WWW-Authenticate: Bearer resource_metadata=\"http://127.0.0.1/x\"\r\n") }
                                                                                     << true
                                                                                     << FailureKind::AuthRequired
                                                                                     << DispatchVerdict::NotDispatched;
    QTest::newRow("HTTP 403 with an insufficient_scope challenge is InsufficientScope, NotDispatched")
        << QList<QByteArray> { initialized,
               httpResponse("403 Forbidden", "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"w\"\r\n") }
        << true << FailureKind::InsufficientScope << DispatchVerdict::NotDispatched;
    QTest::newRow("HTTP 404 to a request that carried the session is SessionExpired, Unknown")
        << QList<QByteArray> { initialized, httpResponse("404 Not Found") } << true << FailureKind::SessionExpired
        << DispatchVerdict::Unknown;
    QTest::newRow("HTTP 400 with the SDK's no-valid-session body, session carried, is SessionExpired, Unknown")
        << QList<QByteArray> { initialized,
               httpResponse("400 Bad Request", "Content-Type: application/json\r\n", sdkNoSession) }
        << true << FailureKind::SessionExpired << DispatchVerdict::Unknown;
    QTest::newRow("HTTP 404 before any session was issued is HttpError, Declined")
        << QList<QByteArray> { httpResponse("404 Not Found") } << true << FailureKind::HttpError
        << DispatchVerdict::Declined;
    QTest::newRow("HTTP 500 is HttpError, Unknown")
        << QList<QByteArray> { initialized, httpResponse("500 Internal Server Error") } << true
        << FailureKind::HttpError << DispatchVerdict::Unknown;
    QTest::newRow("connection closed after the request, before any response byte, is TransportLost, Unknown")
        << QList<QByteArray> { initialized, QByteArray() } << true << FailureKind::TransportLost
        << DispatchVerdict::Unknown;
}

void TestFailureClassifier::realHttpEvidence()
{
    // The evidence comes from the real Streamable HTTP transport and the engine's HTTP client against a
    // loopback server playing each answer; nothing below the classifier is decided by the test.
    QFETCH(QList<QByteArray>, responses);
    QFETCH(bool, listening);
    QFETCH(FailureKind, kind);
    QFETCH(DispatchVerdict, verdict);
    const bool initializeFirst = responses.size() > 1;

    LoopbackHttp server(responses);
    mcpscope::HttpTransportOptions options;
    options.serverName = QStringLiteral("loopback");
    options.url = server.url();
    if (!listening) {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        options.url = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(probe.serverPort()));
    }
    mcpscope::StreamableHttpTransport transport(options);
    transport.open();

    if (initializeFirst) {
        Evidence initialize;
        initialize.watch(transport, 1);
        transport.send(mcpscope::JsonRpcMessage::request(1, QStringLiteral("initialize"), {}));
        QTRY_VERIFY_WITH_TIMEOUT(initialize.answered, 5000);
        QCOMPARE(transport.sessionId(), QStringLiteral("s-loopback"));
    }
    Evidence evidence;
    evidence.watch(transport, 2);
    transport.send(mcpscope::JsonRpcMessage::request(2, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("write") }, { QStringLiteral("arguments"), QJsonObject() } }));
    QTRY_VERIFY_WITH_TIMEOUT(evidence.failure.has_value(), 5000);

    const auto classified = mcpscope::FailureClassifier::classify(evidence.reply(QStringLiteral("tools/call")), true);
    QVERIFY(classified);
    QCOMPARE(mcpscope::failureKindName(classified->kind), mcpscope::failureKindName(kind));
    QCOMPARE(mcpscope::dispatchVerdictName(classified->verdict), mcpscope::dispatchVerdictName(verdict));
    QCOMPARE(server.posts(), listening ? int(responses.size()) : 0);
}

void TestFailureClassifier::realStdioEvidence_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<DispatchVerdict>("verdict");

    QTest::newRow("a child killed by a signal after reading the request is TransportLost, Unknown")
        << QStringLiteral("/bin/sh") << QStringList { QStringLiteral("-c"), QStringLiteral("read line; kill -KILL $$") }
        << FailureKind::TransportLost << DispatchVerdict::Unknown;
    QTest::newRow("a child that exits before reading anything, request written into the pipe, is TransportLost")
        << QStringLiteral("/bin/sh") << QStringList { QStringLiteral("-c"), QStringLiteral("sleep 0.2; exit 3") }
        << FailureKind::TransportLost << DispatchVerdict::Unknown;
    QTest::newRow("a command that cannot start is NotSent, NotDispatched")
        << QStringLiteral("/nonexistent/mcpscope-no-such-server") << QStringList() << FailureKind::NotSent
        << DispatchVerdict::NotDispatched;
}

void TestFailureClassifier::realStdioEvidence()
{
    // The evidence comes from the real stdio transport and a real child process ending the way each
    // row says; the classifier reads only what the transport reported.
    QFETCH(QString, command);
    QFETCH(QStringList, args);
    QFETCH(FailureKind, kind);
    QFETCH(DispatchVerdict, verdict);

    mcpscope::StdioTransport::Options options;
    options.serverName = QStringLiteral("child");
    options.command = command;
    options.args = args;
    mcpscope::StdioTransport transport(options);
    Evidence evidence;
    evidence.watch(transport, 1);
    bool opened = false;
    QObject::connect(&transport, &mcpscope::Transport::opened, &transport, [&] {
        opened = true;
        transport.send(mcpscope::JsonRpcMessage::request(1, QStringLiteral("tools/call"), {}));
    });
    transport.open();
    QTRY_VERIFY_WITH_TIMEOUT(evidence.failure.has_value(), 5000);

    const auto classified = mcpscope::FailureClassifier::classify(evidence.reply(QStringLiteral("tools/call")), true);
    QVERIFY(classified);
    QCOMPARE(mcpscope::failureKindName(classified->kind), mcpscope::failureKindName(kind));
    QCOMPARE(mcpscope::dispatchVerdictName(classified->verdict), mcpscope::dispatchVerdictName(verdict));
    QCOMPARE(evidence.written, opened);
}

QTEST_GUILESS_MAIN(TestFailureClassifier)
#include "tst_failureclassifier.moc"
