#include "failureclassifier.h"

#include "jsonrpc/protocolera.h"
#include "jsonrpc/translation.h"
#include "session/clientsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace mcpscope {

namespace {

/// The text parts of a tool's error result, so the report shows the server's answer as it came (R8).
QString toolErrorText(const QJsonObject& result)
{
    QStringList parts;
    const QJsonArray content = result.value(QLatin1String("content")).toArray();
    for (const QJsonValue& item : content) {
        const QJsonObject object = item.toObject();
        if (object.value(QLatin1String("type")).toString() == QLatin1String("text"))
            parts.append(object.value(QLatin1String("text")).toString());
    }
    return parts.join(QLatin1Char('\n'));
}

/// A -32022 refusal naming 2026-07-28 among the versions it supports: what a modern-only server answers a
/// 2025-11-25 request with. The JSON-RPC error object, as delivered or as an HTTP error body.
bool refusesLegacyForModern(const QJsonObject& error)
{
    if (error.value(QLatin1String("code")) != QJsonValue(Modern::UnsupportedProtocolVersion))
        return false;
    const QJsonArray supported
        = error.value(QLatin1String("data")).toObject().value(QLatin1String("supported")).toArray();
    return supported.contains(QJsonValue(Modern::ProtocolVersion));
}

ClassifiedFailure eraMismatch(const QString& message, int httpStatus)
{
    ClassifiedFailure classified;
    classified.kind = FailureKind::EraMismatch;
    classified.verdict = DispatchVerdict::NotDispatched;
    classified.httpStatus = httpStatus;
    classified.message = message;
    return classified;
}

} // namespace

FailureKind FailureClassifier::kindOf(const TransportFailure& failure)
{
    switch (failure.event) {
    case TransportEvent::NotSent:
    case TransportEvent::ConnectFailed:
        return FailureKind::NotSent;
    case TransportEvent::ConnectionLost:
    case TransportEvent::ProcessGone:
    case TransportEvent::Killed:
    case TransportEvent::Replaced:
        return failure.requestWritten ? FailureKind::TransportLost : FailureKind::NotSent;
    case TransportEvent::Oversize:
    case TransportEvent::Malformed:
    case TransportEvent::NoAnswer:
        return FailureKind::ProtocolError;
    case TransportEvent::TimedOut:
        return FailureKind::Timeout;
    case TransportEvent::HttpStatus:
        break;
    }
    if (failure.sessionRefused())
        return FailureKind::SessionExpired;
    if (failure.httpStatus == 401)
        return FailureKind::AuthRequired;
    if (failure.scopeChallenged())
        return FailureKind::InsufficientScope;
    return FailureKind::HttpError;
}

DispatchVerdict FailureClassifier::verdictFor(FailureKind kind, int httpStatus, bool isToolCall)
{
    switch (kind) {
    case FailureKind::NotSent:
    case FailureKind::AuthRequired:
    case FailureKind::InsufficientScope:
    case FailureKind::Rejected:
    case FailureKind::EraMismatch:
        return DispatchVerdict::NotDispatched;
    case FailureKind::HttpError:
        // Only a 4xx is a refusal; a 5xx (or anything stranger) may have come after the work ran.
        return httpStatus >= 400 && httpStatus < 500 ? DispatchVerdict::Declined : DispatchVerdict::Unknown;
    case FailureKind::ProtocolError:
        // A tools/call that errors may have run part of the tool first (cloudflare-os).
        return isToolCall ? DispatchVerdict::Unknown : DispatchVerdict::Declined;
    case FailureKind::ToolError:
        return DispatchVerdict::Executed;
    case FailureKind::SessionExpired:
    case FailureKind::TransportLost:
    case FailureKind::Timeout:
        break;
    }
    return DispatchVerdict::Unknown;
}

std::optional<ClassifiedFailure> FailureClassifier::classify(const Reply& reply, bool isToolCall, bool modern)
{
    ClassifiedFailure classified;
    switch (reply.status) {
    case Reply::Status::Cancelled:
        return std::nullopt;
    case Reply::Status::Ok: {
        const QJsonObject result = reply.resultObject();
        if (!isToolCall || result.value(QLatin1String("isError")) != QJsonValue(true))
            return std::nullopt;
        classified.kind = FailureKind::ToolError;
        classified.verdict = DispatchVerdict::Executed;
        classified.message = toolErrorText(result);
        if (classified.message.isEmpty())
            classified.message = McpScope::tr("The tool reported an error without a message.");
        return classified;
    }
    case Reply::Status::RpcError:
        if (!modern && refusesLegacyForModern(reply.error.toJson()))
            return eraMismatch(reply.failure.message.isEmpty() ? reply.describe() : reply.failure.message, 0);
        // 2026-07-28 defines codes that are raised before anything runs (RECOVERY.md §9): structured codes of
        // the protocol, not server text. -32021 is not one of them (the SDK v2 raises it inside MRTR, after
        // the handler ran), so it stays a ProtocolError below.
        if (modern
            && (reply.error.code == Modern::HeaderMismatch || reply.error.code == Modern::UnsupportedProtocolVersion
                || reply.error.code == -32601)) {
            classified.kind = FailureKind::Rejected;
            classified.verdict = DispatchVerdict::NotDispatched;
            classified.rpcCode = reply.error.code;
            classified.rpcData = reply.error.data;
            classified.message = reply.failure.message.isEmpty() ? reply.describe() : reply.failure.message;
            return classified;
        }
        // Otherwise the kind comes from the fact that a JSON-RPC error arrived, never from its code or text.
        classified.kind = FailureKind::ProtocolError;
        classified.verdict = verdictFor(FailureKind::ProtocolError, 0, isToolCall);
        classified.message = reply.failure.message.isEmpty() ? reply.describe() : reply.failure.message;
        return classified;
    case Reply::Status::TimedOut:
        classified.kind = FailureKind::Timeout;
        classified.verdict = DispatchVerdict::Unknown;
        classified.message = reply.describe();
        return classified;
    case Reply::Status::Failed:
        break;
    }

    const TransportFailure& failure = reply.failure;
    // The other era's refusals (RECOVERY.md §9, EraMismatch): structured shapes of the protocol and of the
    // official SDK's session gate, each raised before the request is processed.
    if (failure.event == TransportEvent::HttpStatus && failure.httpStatus == 400 && failure.sessionId.isEmpty()
        && modern && isLegacySessionGateBody(failure.bodyExcerpt))
        return eraMismatch(reply.describe(), failure.httpStatus);
    if (failure.event == TransportEvent::HttpStatus && failure.httpStatus >= 400 && failure.httpStatus < 500 && !modern
        && refusesLegacyForModern(
            QJsonDocument::fromJson(failure.bodyExcerpt).object().value(QLatin1String("error")).toObject()))
        return eraMismatch(reply.describe(), failure.httpStatus);
    classified.kind = kindOf(failure);
    classified.httpStatus = failure.httpStatus;
    classified.message = reply.describe();
    if (classified.kind == FailureKind::NotSent && (reply.written || failure.requestWritten)) {
        // NotSent means the bytes never left; a written flag contradicts that, so the only safe
        // reading is that the request may be on the server (§1: Unknown unless proven otherwise).
        classified.kind = FailureKind::TransportLost;
        classified.verdict = DispatchVerdict::Unknown;
        return classified;
    }
    // A transport ProtocolError is a malformed or oversized answer: the request was handled, so
    // even a non-tool request gets Unknown rather than the Declined a well-formed error earns.
    classified.unreadableAnswer = classified.kind == FailureKind::ProtocolError;
    classified.verdict = classified.kind == FailureKind::ProtocolError
        ? DispatchVerdict::Unknown
        : verdictFor(classified.kind, failure.httpStatus, isToolCall);
    return classified;
}

} // namespace mcpscope
