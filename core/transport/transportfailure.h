#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

#include <optional>

namespace mcpscope {

/// Failure kinds of RECOVERY.md §1. Only FailureClassifier (core/recovery) names one; the types live
/// here because every layer above reports and stores them.
enum class FailureKind {
    NotSent,
    AuthRequired,
    InsufficientScope,
    SessionExpired,
    TransportLost,
    Timeout,
    HttpError,
    ProtocolError,
    ToolError,
    /// 2026-07-28: a protocol error the spec raises before the request is processed (-32020 header mismatch,
    /// -32022 unsupported version, -32601 unknown method); RECOVERY.md §9, rules R10 to R12.
    Rejected,
    /// A server spoken to in one era answered like a server of the other (RECOVERY.md §9, rule R13): a
    /// 2026-07-28 request refused at a legacy server's session gate, or a 2025-11-25 request refused with
    /// -32022 naming 2026-07-28. Either refusal comes before anything runs.
    EraMismatch,
};

/// Whether the server may have run the request (RECOVERY.md §1). Unknown unless proven otherwise.
enum class DispatchVerdict {
    NotDispatched,
    Unknown,
    Declined,
    Executed,
};

QString failureKindName(FailureKind kind); ///< stable identifiers used in logs and JSON: "session_expired", …
QString dispatchVerdictName(DispatchVerdict verdict);
std::optional<FailureKind> failureKindFromName(QStringView name);
std::optional<DispatchVerdict> dispatchVerdictFromName(QStringView name);

/// What a transport saw happen to a request (or to its whole channel). Transports report only this
/// and the evidence beside it; FailureClassifier::kindOf() alone turns it into a FailureKind.
enum class TransportEvent {
    NotSent, ///< nothing of the request left: channel closing or not open, child not running, never dequeued
    ConnectFailed, ///< connect refused, DNS, TLS or proxy failure: nothing was written
    HttpStatus, ///< a complete non-2xx HTTP response (httpStatus, headers and bodyExcerpt hold it)
    ConnectionLost, ///< the connection closed or reset, or the event stream ended, before the answer
    ProcessGone, ///< stdio: the child exited or closed its stdout (exitCode, crashed)
    Killed, ///< the user's kill-transport action
    Replaced, ///< the session was replaced before the answer arrived
    Oversize, ///< the answer went over the configured size limit and was cut off
    Malformed, ///< the answer arrived but is not a JSON-RPC message
    NoAnswer, ///< a 2xx HTTP response that carried no JSON-RPC answer
    TimedOut, ///< the request's deadline passed with no answer
};

QString transportEventName(TransportEvent event); ///< "connection_lost", … for logs and tests

/// Transport-level evidence about a failed request or a failed channel. Only this, never text inside
/// a JSON-RPC error, may drive recovery.
struct TransportFailure
{
    TransportEvent event = TransportEvent::ConnectionLost;
    /// Any byte of the request was handed to the peer (HTTP: to the operating system's socket; stdio:
    /// to the child's stdin pipe). Unset, the request can never have reached the server.
    bool requestWritten = false;
    bool connectionReused = false; ///< HTTP: it went out on a kept-alive connection
    bool responseStarted = false; ///< HTTP: any byte of a response arrived
    int httpStatus = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray bodyExcerpt;
    QString networkError; ///< socket, TLS or process error text
    int exitCode = -1; ///< stdio: child exit code, if it exited; the signal's number when crashed
    bool crashed = false; ///< stdio: child ended by a signal
    QString sessionId; ///< the session id the request carried, if any
    QString message; ///< one sentence for people, naming the server and what failed

    QByteArray header(const QByteArray& name) const;
    /// The server answered a request that carried a session id that it does not know that session: an
    /// HTTP 404, or an HTTP 400 whose body is the SDK's exact "no valid session" answer.
    bool sessionRefused() const;
    /// The server answered HTTP 403 with error="insufficient_scope" in its WWW-Authenticate challenge.
    bool scopeChallenged() const;
};

/// Whether an HTTP 400 body is the TypeScript SDK's "no valid session" answer: a JSON-RPC error with
/// code -32000 and exactly that message. Any other 400 says nothing about the session, whatever its text.
bool isSdkNoValidSessionBody(const QByteArray& body);

/// Whether an HTTP 400 body is a legacy (2025-11-25) server's session gate refusing a request that carried
/// no Mcp-Session-Id: a JSON-RPC error -32000 with one of the exact messages the TypeScript SDK v1 and
/// server-everything send ("Bad Request: No valid session ID provided", "Bad Request: Server not
/// initialized", "Bad Request: Mcp-Session-Id header is required"). To a sessionless 2026-07-28 request that
/// is the server answering in the other era, before running anything (RECOVERY.md §9, EraMismatch).
bool isLegacySessionGateBody(const QByteArray& body);

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::TransportFailure)
