#include "recovery/failureclassifier.h"
#include "session/clientsession.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using mcpscope::ClassifiedFailure;
using mcpscope::DispatchVerdict;
using mcpscope::FailureKind;
using mcpscope::Reply;
using mcpscope::TransportEvent;
using Status = mcpscope::Reply::Status;

namespace {

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
    void verdictForMatchesTheTable_data();
    void verdictForMatchesTheTable();
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

QTEST_GUILESS_MAIN(TestFailureClassifier)
#include "tst_failureclassifier.moc"
