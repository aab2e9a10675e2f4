#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

namespace mcpscope {

/// Failure kinds of RECOVERY.md §1. The transport fills in what its evidence shows; the recovery
/// layer owns the final classification.
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

/// Transport-level evidence about a failed request or a failed channel. Only this, never text inside
/// a JSON-RPC error, may drive recovery.
struct TransportFailure
{
    FailureKind kind = FailureKind::TransportLost;
    bool requestWritten = false; ///< the request's bytes were fully handed to the peer
    int httpStatus = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray bodyExcerpt;
    QString networkError; ///< socket, TLS or process error text
    int exitCode = -1; ///< stdio: child exit code, if it exited; the signal's number when crashed
    bool crashed = false; ///< stdio: child ended by a signal
    QString sessionId; ///< the session id the request carried, if any
    QString message; ///< one sentence for people, naming the server and what failed

    QByteArray header(const QByteArray& name) const;
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::TransportFailure)
