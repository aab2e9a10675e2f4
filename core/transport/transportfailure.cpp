#include "transportfailure.h"

#include "jsonrpc/enumnames.h"
#include "recovery/failureclassifier.h"

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
