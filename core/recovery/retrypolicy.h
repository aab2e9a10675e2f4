#pragma once

#include "failureclassifier.h"
#include "session/toolinfo.h"

#include <QJsonObject>
#include <QString>

namespace mcpscope {

/// Per-server replay policy (RECOVERY.md §2).
struct PolicySettings
{
    /// Also replay tools whose idempotentHint is exactly true. Off by default; the UI shows it when on.
    bool idempotentReplay = false;
    /// The server's protocol era is auto, so R13 may probe it again; a fixed era cannot change by probing.
    bool eraDetectable = true;
};

enum class RecoveryAction {
    RetryOnce, ///< R1: send again once, after reconnecting if the transport needs it
    ReconnectThenRetry, ///< R4: wait for a new, distinct session, then send again once
    AuthThenRetry, ///< R2: refresh or re-acquire credentials, reconnect, then send again once
    StepUpThenRetry, ///< R3: re-authorize with the challenge's scopes, then send again once
    HealNoReplay, ///< R5: heal the transport but never send the call again
    CancelNoRetry, ///< R6: notifications/cancelled went out; no retry
    RelistThenRetry, ///< R11: list the tools again (their header annotations), then send again once
    ReprobeThenRetry, ///< R13: forget the cached era, probe it again with a fresh connection, then send again once
    Stop, ///< R7, R8, R12, R13 (fixed era): no retry; report what happened
    FailFast, ///< R9: the breaker is open; nothing was sent
};

/// What the policy knows about the request a decision is about (RECOVERY.md §2). A tools/call is
/// judged by two listings of its tool: the snapshot taken when the call started, and the newest
/// tools/list the connection holds when the decision is made (a list_changed re-list during the
/// call, or a reconnect's own listing). Both must say readOnlyHint true for a replay.
struct RequestTools
{
    bool isToolCall = false;
    ToolListing snapshot; ///< when the call started
    ToolListing current; ///< the newest listing at decision time

    /// Any request that is not a tools/call: read-only.
    static RequestTools notATool() { return {}; }
    static RequestTools toolCall(const ToolListing& snapshot, const ToolListing& current)
    {
        return { true, snapshot, current };
    }
};

/// What to do about one failed attempt, and which rule of RECOVERY.md §3 said so.
struct Decision
{
    RecoveryAction action = RecoveryAction::Stop;
    QString rule; ///< "R1".."R9"; every call record stores it and the UI shows it
    QString reason; ///< plain words for people
    /// The call ends as outcome_uncertain (§5): a write-capable call may have run and was not sent again.
    bool outcomeUncertain = false;
    /// The transport needs healing before the session is usable again (the engine knows whether it is).
    bool reconnect = false;
};

/// The decision table of RECOVERY.md §3: a pure function and the only place that decides whether a
/// call is sent again. The one thing it must never allow is a second send of a write-capable call
/// that may already have run.
namespace RetryPolicy {

/// tools: the request's tool in both listings. attempt: 1 for the first send.
Decision decide(
    const ClassifiedFailure& failure, const RequestTools& tools, int attempt, const PolicySettings& settings);

/// R9: the breaker is open, so the call fails fast without being sent and without a strike.
Decision breakerOpen(const QString& breakerMessage);

/// §2: every non-tool request; a tool whose readOnlyHint is exactly the JSON value true in both
/// listings, listed once in each; with idempotentReplay, also one whose idempotentHint is exactly
/// true in both. Anything else is write-capable: not listed, listed twice, a hint that changed.
bool isReplayable(const RequestTools& tools, const PolicySettings& settings);
/// The same for one listing that is both snapshot and newest (the Tools tab, `mcpscope-cli tools`).
bool isReplayable(const ToolListing& listing, const PolicySettings& settings);

/// Why a tools/call is write-capable, as a clause for people ("the tool's newest listing says
/// readOnlyHint false"); empty when isReplayable() is true.
QString whyNotReplayable(const RequestTools& tools, const PolicySettings& settings);

/// Stable identifier for logs and exports: "retry_once", "heal_no_replay", …
QString actionName(RecoveryAction action);

} // namespace RetryPolicy

} // namespace mcpscope
