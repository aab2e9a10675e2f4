#include "retrypolicy.h"

#include "jsonrpc/enumnames.h"
#include "jsonrpc/protocolera.h"
#include "jsonrpc/translation.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace mcpscope {

namespace {

const QLatin1String ReadOnlyHint("readOnlyHint");
const QLatin1String IdempotentHint("idempotentHint");

bool isExactlyTrue(const QJsonObject& annotations, QLatin1String key)
{
    // Only the JSON value true counts: "true", 1 or a missing hint must fail safe (§2).
    return annotations.value(key) == QJsonValue(true);
}

/// A name listed more than once has no entry that is the truth, so none of its hints count.
bool hintIn(const ToolListing& listing, QLatin1String key)
{
    return listing.listed && !listing.listedMoreThanOnce && isExactlyTrue(listing.annotations, key);
}

bool hintInBoth(const RequestTools& tools, QLatin1String key)
{
    return hintIn(tools.snapshot, key) && hintIn(tools.current, key);
}

/// "says readOnlyHint false", "says readOnlyHint \"true\"", "has no readOnlyHint": the value as sent.
QString describeHint(const QJsonObject& annotations, QLatin1String key)
{
    const QJsonValue value = annotations.value(key);
    if (value.isUndefined())
        return McpScope::tr("has no %1").arg(key);
    QByteArray json = QJsonDocument(QJsonArray { value }).toJson(QJsonDocument::Compact);
    json = json.mid(1, json.size() - 2);
    return McpScope::tr("says %1 %2").arg(key, QString::fromUtf8(json));
}

Decision make(RecoveryAction action, const char* rule, const QString& reason, bool outcomeUncertain = false,
    bool reconnect = false)
{
    Decision decision;
    decision.action = action;
    decision.rule = QLatin1String(rule);
    decision.reason = reason;
    decision.outcomeUncertain = outcomeUncertain;
    decision.reconnect = reconnect;
    return decision;
}

bool losesTheSession(FailureKind kind)
{
    return kind == FailureKind::SessionExpired || kind == FailureKind::TransportLost;
}

/// R7. A retry is only made under R1–R4, but R1–R3 retry write-capable calls too (their first send
/// never reached the server). If such a retry then fails where it may have run, the call is just as
/// uncertain as under R5/R6, and reporting a plain failure would invite the user to send it a third time.
Decision decideRetryFailure(const ClassifiedFailure& failure, bool readOnly)
{
    const bool mayHaveRun = failure.verdict == DispatchVerdict::Unknown;
    const bool uncertain = mayHaveRun && !readOnly;
    const bool heal = losesTheSession(failure.kind);
    QString reason;
    if (uncertain) {
        reason = McpScope::tr("The retry failed as well, after it may have reached the server. A call is sent at most "
                              "twice, so it was not sent again; it may or may not have taken effect, so check the "
                              "server's state with a read before calling it again.");
    } else {
        reason = McpScope::tr("The retry failed as well. A call is sent at most twice, so it was not sent again.");
    }
    return make(RecoveryAction::Stop, "R7", reason, uncertain, heal);
}

/// R10 to R12 (RECOVERY.md §9): the 2026-07-28 server refused the request before processing it, so even a
/// write may be sent once more where the refusal names something the client can change.
Decision decideRejected(const ClassifiedFailure& failure)
{
    if (failure.rpcCode == Modern::UnsupportedProtocolVersion) {
        const QJsonValue supported = failure.rpcData.toObject().value(QLatin1String("supported"));
        QStringList versions;
        for (const QJsonValue& version : supported.toArray())
            versions.append(version.toString());
        if (versions.contains(Modern::ProtocolVersion)) {
            return make(RecoveryAction::RetryOnce, "R10",
                McpScope::tr("The server refused the protocol version before running anything (-32022) and lists %1 "
                             "among the versions it supports; the call is sent once more with %1.")
                    .arg(Modern::ProtocolVersion));
        }
        return make(RecoveryAction::Stop, "R10",
            McpScope::tr("The server refused the protocol version before running anything (-32022); it supports %1, "
                         "none of which McpScope speaks in this era (%2), so the call was not sent again. Set the "
                         "server's protocol era to legacy for 2025-11-25.")
                .arg(versions.isEmpty() ? McpScope::tr("no version it named") : versions.join(QStringLiteral(", ")),
                    Modern::ProtocolVersion));
    }
    if (failure.rpcCode == Modern::HeaderMismatch) {
        return make(RecoveryAction::RelistThenRetry, "R11",
            McpScope::tr("The server found the request's Mcp-* headers do not match its body before running anything "
                         "(-32020); the tools are listed again for their header annotations, then the call is sent "
                         "once more."));
    }
    return make(RecoveryAction::Stop, "R12",
        McpScope::tr("The server refused the request before running anything (%1: %2); it is reported as it came and "
                     "not sent again.")
            .arg(failure.rpcCode)
            .arg(failure.message));
}

} // namespace

bool RetryPolicy::isReplayable(const RequestTools& tools, const PolicySettings& settings)
{
    if (!tools.isToolCall)
        return true;
    // A hint counts only if both listings carry it: a list_changed or a reconnect that turned the
    // tool into a writer wins over the snapshot the call started with, and the reverse (§2).
    if (hintInBoth(tools, ReadOnlyHint))
        return true;
    // destructiveHint:false alone never permits replay: a duplicate "create" still matters (§2).
    return settings.idempotentReplay && hintInBoth(tools, IdempotentHint);
}

bool RetryPolicy::isReplayable(const ToolListing& listing, const PolicySettings& settings)
{
    return isReplayable(RequestTools::toolCall(listing, listing), settings);
}

QString RetryPolicy::whyNotReplayable(const RequestTools& tools, const PolicySettings& settings)
{
    if (isReplayable(tools, settings))
        return {};
    if (!tools.snapshot.listed)
        return McpScope::tr("the tool was not listed when the call started");
    if (!tools.current.listed)
        return McpScope::tr("the tool is not in the newest tools/list");
    if (tools.snapshot.listedMoreThanOnce)
        return McpScope::tr("the tool was listed more than once when the call started");
    if (tools.current.listedMoreThanOnce)
        return McpScope::tr("the tool is listed more than once in the newest tools/list");
    QString why = isExactlyTrue(tools.snapshot.annotations, ReadOnlyHint)
        ? McpScope::tr("the tool's newest listing %1").arg(describeHint(tools.current.annotations, ReadOnlyHint))
        : McpScope::tr("the tool's listing when the call started %1")
              .arg(describeHint(tools.snapshot.annotations, ReadOnlyHint));
    if (settings.idempotentReplay)
        why += McpScope::tr(", and idempotentHint is not true in both listings");
    return why;
}

Decision RetryPolicy::decide(
    const ClassifiedFailure& failure, const RequestTools& tools, int attempt, const PolicySettings& settings)
{
    const bool replayable = isReplayable(tools, settings);
    // Whether the outcome of a lost answer matters is a question of writing, not of replay permission:
    // an idempotent tool that may have run is still a write whose effect is unknown (R6, R7).
    const bool readOnly = isReplayable(tools, PolicySettings {});
    // R7 wins over every other row: a call is sent at most twice.
    if (attempt >= 2)
        return decideRetryFailure(failure, readOnly);

    switch (failure.kind) {
    case FailureKind::NotSent:
        return make(RecoveryAction::RetryOnce, "R1",
            McpScope::tr("The request never reached the server, so it is safe to send it once more after reconnecting "
                         "if needed."),
            false, true);
    case FailureKind::AuthRequired:
        return make(RecoveryAction::AuthThenRetry, "R2",
            McpScope::tr("The server asked for credentials before running anything; they are refreshed, then the call "
                         "is sent once more."),
            false, true);
    case FailureKind::InsufficientScope:
        return make(RecoveryAction::StepUpThenRetry, "R3",
            McpScope::tr("The server needs a wider authorization scope before running anything; it is requested, then "
                         "the call is sent once more."));
    case FailureKind::SessionExpired:
    case FailureKind::TransportLost: {
        const bool expired = failure.kind == FailureKind::SessionExpired;
        if (replayable) {
            QString reason = expired
                ? McpScope::tr("The session expired; the call only reads, so it is sent once more on a new session.")
                : McpScope::tr(
                    "The connection was lost; the call only reads, so it is sent once more on a new session.");
            if (!readOnly)
                reason = expired
                    ? McpScope::tr("The session expired; the tool is idempotent and the idempotent-replay policy "
                                   "is on, so it is sent once more on a new session.")
                    : McpScope::tr("The connection was lost; the tool is idempotent and the idempotent-replay "
                                   "policy is on, so it is sent once more on a new session.");
            return make(RecoveryAction::ReconnectThenRetry, "R4", reason, false, true);
        }
        QString reason = expired
            ? McpScope::tr(
                "The session expired after the call may have reached the server; it was not sent again to avoid "
                "a duplicate write.")
            : McpScope::tr(
                "The connection was lost after the call may have reached the server; it was not sent again to "
                "avoid a duplicate write.");
        // Say which listing made it a write: a tool that was read-only when the call started would
        // otherwise look like a wrong decision.
        const QString why = whyNotReplayable(tools, settings);
        if (!why.isEmpty())
            reason += QLatin1Char(' ') + McpScope::tr("It counts as a write because %1.").arg(why);
        return make(RecoveryAction::HealNoReplay, "R5", reason, true, true);
    }
    case FailureKind::Timeout:
        if (readOnly) {
            return make(RecoveryAction::CancelNoRetry, "R6",
                McpScope::tr("The server did not answer in time; the request was cancelled and not sent again."));
        }
        return make(RecoveryAction::CancelNoRetry, "R6",
            McpScope::tr(
                "The server did not answer in time; the request was cancelled and not sent again, so it may or may "
                "not have taken effect."),
            true);
    case FailureKind::ToolError:
        return make(RecoveryAction::Stop, "R8",
            McpScope::tr("The server ran the tool and reported an error; its answer is reported as it came."));
    case FailureKind::ProtocolError:
        if (failure.unreadableAnswer) {
            return make(RecoveryAction::Stop, "R8",
                McpScope::tr("The server's answer could not be read (%1). The request reached the server, so the "
                             "call may have run; it was not sent again.")
                    .arg(failure.message));
        }
        if (failure.verdict == DispatchVerdict::Unknown) {
            return make(RecoveryAction::Stop, "R8",
                McpScope::tr("The server answered with an error after the call may have run; it is reported as it came "
                             "and not sent again."));
        }
        return make(RecoveryAction::Stop, "R8",
            McpScope::tr("The server answered with an error; it is reported as it came and not sent again."));
    case FailureKind::Rejected:
        return decideRejected(failure);
    case FailureKind::EraMismatch:
        if (!settings.eraDetectable) {
            return make(RecoveryAction::Stop, "R13",
                McpScope::tr("The server answered like a server of the other protocol era before running anything "
                             "(%1). Its era is set by hand, so probing cannot change it; the call was not sent "
                             "again. Set the server's protocol era to auto, or to the era it speaks.")
                    .arg(failure.message));
        }
        return make(RecoveryAction::ReprobeThenRetry, "R13",
            McpScope::tr("The server answered like a server of the other protocol era before running anything (%1); "
                         "its era is probed again on a fresh connection, then the call is sent once more in the "
                         "era it speaks now.")
                .arg(failure.message),
            false, true);
    case FailureKind::HttpError:
        if (failure.verdict == DispatchVerdict::Unknown) {
            return make(RecoveryAction::Stop, "R8",
                McpScope::tr(
                    "The server answered with HTTP %1, which may have come after the call ran; it is reported as "
                    "it came and not sent again.")
                    .arg(failure.httpStatus));
        }
        return make(RecoveryAction::Stop, "R8",
            McpScope::tr("The server refused the request with HTTP %1; it is reported as it came and not sent again.")
                .arg(failure.httpStatus));
    }
    // Not reachable for a valid kind; stopping is the answer that can never duplicate a write.
    return make(RecoveryAction::Stop, "R8",
        McpScope::tr("The failure is reported as it came and the call was not sent again."));
}

Decision RetryPolicy::breakerOpen(const QString& breakerMessage)
{
    return make(RecoveryAction::FailFast, "R9", breakerMessage);
}

namespace {
constexpr EnumName<RecoveryAction> ActionEntries[] = {
    { RecoveryAction::RetryOnce, u"retry_once" },
    { RecoveryAction::ReconnectThenRetry, u"reconnect_then_retry" },
    { RecoveryAction::AuthThenRetry, u"auth_then_retry" },
    { RecoveryAction::StepUpThenRetry, u"step_up_then_retry" },
    { RecoveryAction::HealNoReplay, u"heal_no_replay" },
    { RecoveryAction::CancelNoRetry, u"cancel_no_retry" },
    { RecoveryAction::RelistThenRetry, u"relist_then_retry" },
    { RecoveryAction::ReprobeThenRetry, u"reprobe_then_retry" },
    { RecoveryAction::Stop, u"stop" },
    { RecoveryAction::FailFast, u"fail_fast" },
};
constexpr EnumNames<RecoveryAction> ActionNames(ActionEntries);
} // namespace

QString RetryPolicy::actionName(RecoveryAction action)
{
    return ActionNames.name(action);
}

} // namespace mcpscope
