#include "transportfailure.h"

#include "recovery/failureclassifier.h"

namespace mcpscope {

QString failureKindName(FailureKind kind)
{
    switch (kind) {
    case FailureKind::NotSent:
        return QStringLiteral("not_sent");
    case FailureKind::AuthRequired:
        return QStringLiteral("auth_required");
    case FailureKind::InsufficientScope:
        return QStringLiteral("insufficient_scope");
    case FailureKind::SessionExpired:
        return QStringLiteral("session_expired");
    case FailureKind::TransportLost:
        return QStringLiteral("transport_lost");
    case FailureKind::Timeout:
        return QStringLiteral("timeout");
    case FailureKind::HttpError:
        return QStringLiteral("http_error");
    case FailureKind::ProtocolError:
        return QStringLiteral("protocol_error");
    case FailureKind::ToolError:
        return QStringLiteral("tool_error");
    }
    return {};
}

QString dispatchVerdictName(DispatchVerdict verdict)
{
    switch (verdict) {
    case DispatchVerdict::NotDispatched:
        return QStringLiteral("not_dispatched");
    case DispatchVerdict::Unknown:
        return QStringLiteral("unknown");
    case DispatchVerdict::Declined:
        return QStringLiteral("declined");
    case DispatchVerdict::Executed:
        return QStringLiteral("executed");
    }
    return {};
}

QString transportEventName(TransportEvent event)
{
    switch (event) {
    case TransportEvent::NotSent:
        return QStringLiteral("not_sent");
    case TransportEvent::ConnectFailed:
        return QStringLiteral("connect_failed");
    case TransportEvent::HttpStatus:
        return QStringLiteral("http_status");
    case TransportEvent::ConnectionLost:
        return QStringLiteral("connection_lost");
    case TransportEvent::ProcessGone:
        return QStringLiteral("process_gone");
    case TransportEvent::Killed:
        return QStringLiteral("killed");
    case TransportEvent::Replaced:
        return QStringLiteral("replaced");
    case TransportEvent::Oversize:
        return QStringLiteral("oversize");
    case TransportEvent::Malformed:
        return QStringLiteral("malformed");
    case TransportEvent::NoAnswer:
        return QStringLiteral("no_answer");
    case TransportEvent::TimedOut:
        return QStringLiteral("timed_out");
    }
    return {};
}

FailureKind TransportFailure::kind() const
{
    return FailureClassifier::kindOf(*this);
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
