#include "transportfailure.h"

#include "jsonrpc/enumnames.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace mcpscope {

namespace {
constexpr EnumName<FailureKind> FailureKindEntries[] = {
    { FailureKind::NotSent, u"not_sent" },
    { FailureKind::AuthRequired, u"auth_required" },
    { FailureKind::InsufficientScope, u"insufficient_scope" },
    { FailureKind::SessionExpired, u"session_expired" },
    { FailureKind::TransportLost, u"transport_lost" },
    { FailureKind::Timeout, u"timeout" },
    { FailureKind::HttpError, u"http_error" },
    { FailureKind::ProtocolError, u"protocol_error" },
    { FailureKind::ToolError, u"tool_error" },
    { FailureKind::Rejected, u"rejected" },
    { FailureKind::EraMismatch, u"era_mismatch" },
};
constexpr EnumNames<FailureKind> FailureKindNames(FailureKindEntries);

constexpr EnumName<DispatchVerdict> DispatchVerdictEntries[] = {
    { DispatchVerdict::NotDispatched, u"not_dispatched" },
    { DispatchVerdict::Unknown, u"unknown" },
    { DispatchVerdict::Declined, u"declined" },
    { DispatchVerdict::Executed, u"executed" },
};
constexpr EnumNames<DispatchVerdict> DispatchVerdictNames(DispatchVerdictEntries);

constexpr EnumName<TransportEvent> TransportEventEntries[] = {
    { TransportEvent::NotSent, u"not_sent" },
    { TransportEvent::ConnectFailed, u"connect_failed" },
    { TransportEvent::HttpStatus, u"http_status" },
    { TransportEvent::ConnectionLost, u"connection_lost" },
    { TransportEvent::ProcessGone, u"process_gone" },
    { TransportEvent::Killed, u"killed" },
    { TransportEvent::Replaced, u"replaced" },
    { TransportEvent::Oversize, u"oversize" },
    { TransportEvent::Malformed, u"malformed" },
    { TransportEvent::NoAnswer, u"no_answer" },
    { TransportEvent::TimedOut, u"timed_out" },
};
constexpr EnumNames<TransportEvent> TransportEventNames(TransportEventEntries);
} // namespace

QString failureKindName(FailureKind kind)
{
    return FailureKindNames.name(kind);
}

std::optional<FailureKind> failureKindFromName(QStringView name)
{
    return FailureKindNames.fromName(name);
}

QString dispatchVerdictName(DispatchVerdict verdict)
{
    return DispatchVerdictNames.name(verdict);
}

std::optional<DispatchVerdict> dispatchVerdictFromName(QStringView name)
{
    return DispatchVerdictNames.fromName(name);
}

QString transportEventName(TransportEvent event)
{
    return TransportEventNames.name(event);
}

namespace {

/// The message of a JSON-RPC error body whose code is -32000; empty for any other body.
QString sessionGateMessage(const QByteArray& body)
{
    const QJsonDocument document = QJsonDocument::fromJson(body);
    if (!document.isObject())
        return {};
    const QJsonObject object = document.object();
    const QJsonObject error = object.value(QLatin1String("error")).toObject();
    // The SDK's examples answer id null, server-everything echoes the request's id; both are that shape.
    if (object.value(QLatin1String("jsonrpc")) != QLatin1String("2.0") || object.contains(QLatin1String("result"))
        || error.value(QLatin1String("code")) != QJsonValue(-32000))
        return {};
    return error.value(QLatin1String("message")).toString();
}

} // namespace

bool isSdkNoValidSessionBody(const QByteArray& body)
{
    return sessionGateMessage(body) == QLatin1String("Bad Request: No valid session ID provided");
}

bool isLegacySessionGateBody(const QByteArray& body)
{
    const QString message = sessionGateMessage(body);
    return message == QLatin1String("Bad Request: No valid session ID provided")
        || message == QLatin1String("Bad Request: Server not initialized")
        || message == QLatin1String("Bad Request: Mcp-Session-Id header is required");
}

bool TransportFailure::sessionRefused() const
{
    return event == TransportEvent::HttpStatus && !sessionId.isEmpty()
        && (httpStatus == 404 || (httpStatus == 400 && isSdkNoValidSessionBody(bodyExcerpt)));
}

bool TransportFailure::scopeChallenged() const
{
    return event == TransportEvent::HttpStatus && httpStatus == 403
        && header("WWW-Authenticate").contains("insufficient_scope");
}

QByteArray TransportFailure::header(const QByteArray& name) const
{
    for (const auto& [key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

} // namespace mcpscope
