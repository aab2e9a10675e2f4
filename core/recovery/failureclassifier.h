#pragma once

#include "transport/transportfailure.h"

#include <QJsonValue>
#include <QString>

#include <optional>

namespace mcpscope {

struct Reply;

/// The failure kind and dispatch verdict of one failed attempt (RECOVERY.md §1).
struct ClassifiedFailure
{
    FailureKind kind = FailureKind::TransportLost;
    DispatchVerdict verdict = DispatchVerdict::Unknown;
    int httpStatus = 0;
    QString message; ///< one sentence for people, as the transport or the server worded it
    /// ProtocolError only: the answer could not be read at all (not JSON-RPC, invalid UTF-8, over the size
    /// limit), as opposed to a well-formed JSON-RPC error.
    bool unreadableAnswer = false;
    /// Rejected only: the JSON-RPC error's code and data (-32022 lists the supported versions there).
    int rpcCode = 0;
    QJsonValue rpcData;
};

/// Turns how a request ended into a failure kind and a dispatch verdict, from transport evidence
/// only: text inside a JSON-RPC error or a tool result never changes the kind, because a server's
/// own words cannot tell what the transport did (RECOVERY.md §1, bifrost's dead-session rule).
namespace FailureClassifier {

/// nullopt for a success (a result that is not a tool's isError: true) and for a cancellation,
/// which is not a failure kind. isToolCall: the request was tools/call.
/// modern: the request went to a 2026-07-28 server, whose pre-execution error codes are Rejected (§9).
std::optional<ClassifiedFailure> classify(const Reply& reply, bool isToolCall, bool modern = false);

/// The failure kind of a transport's evidence (RECOVERY.md §1): nothing written is NotSent; a
/// connection, stream or child lost after any byte was written is TransportLost; an HTTP status is
/// AuthRequired (401), InsufficientScope (403 with that challenge), SessionExpired (404, or the SDK's
/// exact 400 "No valid session ID" shape, to a request that carried Mcp-Session-Id) or HttpError.
FailureKind kindOf(const TransportFailure& failure);

/// The verdict §1 gives a kind the transport reported, before any Reply-level correction.
DispatchVerdict verdictFor(FailureKind kind, int httpStatus, bool isToolCall);

} // namespace FailureClassifier

} // namespace mcpscope
