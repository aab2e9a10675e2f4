#pragma once

#include "transport/transportfailure.h"
#include "transport/wireexchange.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace mcpscope {

/// How a call ended. Stable names (outcomeName) go into logs and exports.
enum class CallOutcome {
    Pending,
    Success,
    ToolError,
    ProtocolError,
    OutcomeUncertain,
    Timeout,
    NeedsAuth,
    BreakerOpen,
    NotDispatched,
    Cancelled,
    TransportError, ///< a final transport failure with no rule above it (e.g. a failed retry of a read)
    Interrupted, ///< the app stopped while the call was in flight
};

QString outcomeName(CallOutcome outcome);
std::optional<CallOutcome> outcomeFromName(QStringView name);

/// One time the request went (or was meant to go) to the server.
struct CallAttempt
{
    int number = 1;
    QString requestId; ///< the JSON-RPC id, as text
    QString sessionId;
    qint64 sentAt = 0; ///< ms since the epoch
    qint64 firstByteAt = 0; ///< when the answer began to arrive (0 when none did)
    qint64 endedAt = 0;
    /// HTTP: when the connection the request went out on was ready, from the HTTP client's timing
    /// (0: not known, as for stdio). A kept-alive connection that carried a request before is reused:
    /// it was ready when the request was sent, and connectMs() is 0.
    qint64 connectedAt = 0;
    bool connectionReused = false;
    int httpStatus = 0;
    bool written = false;
    std::optional<FailureKind> failureKind;
    std::optional<DispatchVerdict> verdict;
    QString error;
    /// stdio: how the child ended when it died with this request in flight, as the record's proof of
    /// what the server did: its exit code, or the signal that killed it (0 for none).
    std::optional<int> exitCode;
    int signal = 0;
    /// What went over the wire for this attempt: its HTTP requests or its stdio lines. Empty when
    /// nothing was sent, or for records written before McpScope kept it.
    WireExchange exchange;

    /// How long the connection took before the request could go out (0 for a reused one or stdio).
    qint64 connectMs() const { return connectedAt > 0 && !connectionReused ? connectedAt - sentAt : 0; }
    /// Sets connectedAt, connectionReused and firstByteAt from the wire exchange: the first HTTP request the
    /// client timed, or the first stdio line that came back.
    void takeExchangeTiming();

    QJsonObject toJson() const;
    static CallAttempt fromJson(const QJsonObject& object);
};

/// What RetryPolicy decided after a failed attempt.
struct CallDecision
{
    int afterAttempt = 1;
    QString rule; ///< "R1".."R9"
    QString action;
    QString reason;

    QJsonObject toJson() const;
    static CallDecision fromJson(const QJsonObject& object);
};

struct CallReconnect
{
    QString oldSessionId;
    QString newSessionId;
    qint64 startedAt = 0;
    qint64 durationMs = 0;
    bool ok = false;
    QString error;

    QJsonObject toJson() const;
    static CallReconnect fromJson(const QJsonObject& object);
};

/// A fault that fired on this call, or a manual action taken while it ran: timeline markers.
struct CallEvent
{
    qint64 at = 0;
    QString kind; ///< "fault" or "action"
    QString text;

    QJsonObject toJson() const;
    static CallEvent fromJson(const QJsonObject& object);
};

class CompactWriter;

/// Everything known about one call, from the first attempt to the final outcome.
struct CallRecord
{
    static constexpr int SchemaVersion = 1;

    QString callId;
    QString server;
    QString transport;
    QString method;
    QString tool;
    QJsonObject arguments;
    QJsonObject annotations; ///< the snapshot the decision used
    bool toolListed = false;
    QJsonObject policy; ///< the policy in force (idempotentReplay, breaker settings)
    qint64 startedAt = 0;
    qint64 endedAt = 0;
    QList<CallAttempt> attempts;
    QList<CallDecision> decisions;
    QList<CallReconnect> reconnects;
    QList<CallEvent> events;
    CallOutcome outcome = CallOutcome::Pending;
    QString rule; ///< the rule that decided the outcome; empty for a first-try success
    bool healed = false;
    QJsonValue result;
    QJsonObject error;

    bool isFinished() const { return outcome != CallOutcome::Pending; }
    qint64 durationMs() const { return endedAt > 0 ? endedAt - startedAt : 0; }
    /// The size of the answer on the wire (the largest incoming stdio line or HTTP response body of the
    /// last attempt); 0 when it was not recorded.
    qint64 answerBytes() const;
    QJsonObject toJson() const;
    /// The bytes of QJsonDocument(toJson()).toJson(QJsonDocument::Compact), written straight into one
    /// buffer without building the QJsonObject first: the call log serializes every change of every call,
    /// and the object tree costs most of that.
    QByteArray toCompactJson() const;
    /// toCompactJson() appended to out, in out's own allocation when it has room (a writer that reuses
    /// one buffer allocates nothing per record).
    void appendCompactJson(QByteArray& out) const;
    /// The same text into writer (one that drains, for a large record), with the same string handling.
    void writeCompactJson(CompactWriter& writer) const;
    static CallRecord fromJson(const QJsonObject& object, QString* error = nullptr);
    /// A fresh time-ordered (version 7) UUID for callId, without braces: the millisecond it was made, then
    /// 74 random bits. The log store's primary key is callId, and random (version 4) ids put every insert
    /// at a random place in that index: bench_calllog committed 35k records/s with them against 83k/s
    /// with these. The random bits come from QRandomGenerator::global(), a generator seeded once from
    /// the system: QUuid::createUuid() asks the CPU's RDRAND for each one, which costs more than the rest
    /// of a stdio call's bookkeeping in a VM. Call ids name calls; they grant nothing, so they need to
    /// be unique, not unpredictable.
    static QString newCallId();
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::CallRecord)
