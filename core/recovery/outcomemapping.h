#pragma once

#include "calllog/callrecord.h"
#include "transport/transportfailure.h"

#include <QList>

#include <optional>

namespace mcpscope {

/// How a call the decision table stopped (RECOVERY.md §3) ends, as pure functions so the rows of
/// the mapping are unit-tested without a server.
namespace OutcomeMapping {

/// True when an attempt with this verdict may have run on the server (Unknown or Executed).
bool mayHaveRun(std::optional<DispatchVerdict> verdict);

/// True when any attempt before the last one may have run on the server.
bool earlierAttemptMayHaveRun(const QList<CallAttempt>& attempts);

/// The outcome of a call that stops (Stop or FailFast) after a failure of this kind.
/// decisionUncertain: the decision said the outcome is uncertain (R7, a retried write that failed
/// ambiguously). earlierMayHaveRun: an earlier attempt may have run, so the call is never reported
/// as not dispatched or as only needing auth. replayable: the request is read-only under the
/// default policy, so such a call is a plain transport error rather than an uncertain outcome.
CallOutcome stoppedOutcome(FailureKind kind, bool decisionUncertain, bool earlierMayHaveRun, bool replayable);

} // namespace OutcomeMapping

} // namespace mcpscope
