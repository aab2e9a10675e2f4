#include "outcomemapping.h"

namespace mcpscope::OutcomeMapping {

bool mayHaveRun(std::optional<DispatchVerdict> verdict)
{
    return verdict && (*verdict == DispatchVerdict::Unknown || *verdict == DispatchVerdict::Executed);
}

bool earlierAttemptMayHaveRun(const QList<CallAttempt>& attempts)
{
    for (qsizetype i = 0; i + 1 < attempts.size(); ++i) {
        if (mayHaveRun(attempts.at(i).verdict))
            return true;
    }
    return false;
}

CallOutcome stoppedOutcome(FailureKind kind, bool decisionUncertain, bool earlierMayHaveRun, bool replayable)
{
    CallOutcome outcome = CallOutcome::TransportError;
    switch (kind) {
    case FailureKind::ToolError:
        outcome = CallOutcome::ToolError;
        break;
    case FailureKind::ProtocolError:
    case FailureKind::Rejected:
    case FailureKind::EraMismatch:
        outcome = CallOutcome::ProtocolError;
        break;
    case FailureKind::NotSent:
        outcome = CallOutcome::NotDispatched;
        break;
    case FailureKind::AuthRequired:
    case FailureKind::InsufficientScope:
        outcome = CallOutcome::NeedsAuth;
        break;
    case FailureKind::Timeout:
        outcome = CallOutcome::Timeout;
        break;
    default:
        break;
    }
    if (decisionUncertain)
        outcome = CallOutcome::OutcomeUncertain;
    if (earlierMayHaveRun && (outcome == CallOutcome::NotDispatched || outcome == CallOutcome::NeedsAuth))
        outcome = replayable ? CallOutcome::TransportError : CallOutcome::OutcomeUncertain;
    return outcome;
}

} // namespace mcpscope::OutcomeMapping
