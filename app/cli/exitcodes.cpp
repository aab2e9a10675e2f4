#include "exitcodes.h"

namespace mcpscope {

QString exitCodesHelp()
{
    return QStringLiteral("Exit codes:\n"
                          "  0 success   1 the tool returned isError   2 usage or config error   3 outcome uncertain\n"
                          "  4 transport or protocol failure   5 authorization needed   6 breaker open   7 timeout\n");
}

int exitCodeFor(FailureKind kind)
{
    switch (kind) {
    case FailureKind::Timeout:
        return ExitTimeout;
    case FailureKind::AuthRequired:
    case FailureKind::InsufficientScope:
        return ExitAuthRequired;
    case FailureKind::ToolError:
        return ExitToolError;
    default:
        return ExitTransportFailure;
    }
}

int exitCodeFor(CallOutcome outcome)
{
    switch (outcome) {
    case CallOutcome::Success:
    case CallOutcome::Pending:
        return ExitSuccess;
    case CallOutcome::ToolError:
        return ExitToolError;
    case CallOutcome::OutcomeUncertain:
        return ExitOutcomeUncertain;
    case CallOutcome::NeedsAuth:
        return ExitAuthRequired;
    case CallOutcome::BreakerOpen:
        return ExitBreakerOpen;
    case CallOutcome::Timeout:
        return ExitTimeout;
    default:
        return ExitTransportFailure;
    }
}

} // namespace mcpscope
