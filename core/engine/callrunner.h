#pragma once

#include "calllog/callrecord.h"
#include "session/clientsession.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>

namespace mcpscope {

class Redactor;
class ServerConnection;
class StdioFaultInjector;
struct CallOptions;

/// One call through the recovery machinery of RECOVERY.md: its attempts on the connection's
/// sessions, the decision after each failure (FailureClassifier, RetryPolicy, the routing guard and
/// the outcome mapping), the heals it waits for, and its record. A ServerConnection creates one per
/// call, as its child; the runner deletes itself once the call ended.
///
/// It tells its connection directly (no per-call connections): ServerConnection::callUpdated on every
/// change of the record, the last time with its outcome (not for a call that is part of another, such
/// as a task poll); and, right before that last update, that the call ends, so the connection forgets
/// it before anyone hears of its end.
class CallRunner : public QObject
{
    Q_OBJECT
public:
    CallRunner(ServerConnection* connection, const Redactor* redactor, StdioFaultInjector* faults,
        const QString& method, const QJsonObject& params, const CallOptions& options,
        std::function<void(const CallRecord&)> done);

    QString callId() const { return m_record.callId; }
    /// Publishes the new record, then ends it at once if the breaker is open, or sends the first attempt.
    void start();
    /// Cancels the call: notifications/cancelled if it is on the wire; it ends as cancelled, never retried.
    void cancel();
    /// McpScope is stopping (RECOVERY.md §3): the call ends now as interrupted and its final record is
    /// published. The attempt on the wire gets the verdict unknown (no answer will come, and nothing
    /// proves the server did not run it); a write that may have run carries the uncertain result of §5.
    /// With tellCaller false the call's done is dropped: its owner is being destroyed, and the caller
    /// may be gone already.
    void interrupt(bool tellCaller = true);
    /// Puts a fault or action on the call's timeline.
    void noteEvent(qint64 at, const QString& kind, const QString& text);
    /// Whether CallRunner code is running on this thread, perhaps under a nested event loop: ended
    /// runners are deleted only when none is (ServerConnection::retireRunner).
    static bool onStack();

private:
    /// Held by every way into a runner's code (its public methods, the callbacks it hands out), for as
    /// long as it runs: a runner's code may go on after its call ended.
    struct Frame
    {
        Frame();
        ~Frame();
        Frame(const Frame&) = delete;
        Frame& operator=(const Frame&) = delete;
    };
    /// A 2026-07-28 error code of the revision's own: its explanation goes on the record and the timeline.
    void explainModernError(const Reply& reply);
    void startAttempt();
    /// The connection needs authorization (NeedsAuth): join the flow, then send once a session is ready.
    void waitForAuthorization();
    void whenReady(qint64 waitMs, std::function<void(bool ready)> next);
    /// Notes how a wait for authorization ended on the timeline; when it failed, the call ends needing
    /// authorization (not dispatched, no strike) and false is returned.
    bool authorizationEnded(bool ok, const QString& error, qint64 started, FailureKind kind);
    void send(const RequestOptions& options);
    /// The options of the current attempt's request: its deadline's rest, progress, its identity.
    RequestOptions attemptOptions() const;
    /// MRTR (2026-07-28): the server answered input_required. Answers its inputRequests through the
    /// connection's responder (the panels, the CLI's script), then sends the next round: the original
    /// request with a new id, the answers and the requestState echoed byte for byte. A round is not an
    /// attempt (RECOVERY.md §9). True when the reply was such a round.
    bool takeRound(const Reply& reply);
    void sendRound(const QJsonObject& inputResponses, const QJsonValue& requestState);
    /// A new request of the same attempt (a round), on the connection's current session.
    void resend();
    void onAttemptReply(const Reply& reply);
    void healThen(qint64 waitMs, std::function<void(bool healed)> next);
    void finish(CallOutcome outcome);
    /// RECOVERY.md §5's structured result with this message.
    QJsonObject uncertainResult(const QString& message) const;
    void publish();
    qint64 remainingMs() const;
    /// R4/R5's wait for a fresh session: 15 s, within the deadline's rest, and at least 1 s.
    qint64 healWaitMs() const;
    /// R2/R3's wait for authorization: 10 s, within the deadline's rest.
    qint64 authWaitMs() const;

    ServerConnection* m_connection;
    const Redactor* m_redactor;
    StdioFaultInjector* m_faults;
    CallRecord m_record;
    QJsonObject m_params;
    QJsonObject m_originalParams; ///< without any round's inputResponses and requestState
    int m_rounds = 0; ///< MRTR rounds answered so far
    quint64 m_roundToken = 0; ///< the round whose answers are awaited; a stale answer finds another
    std::function<void(const ProgressUpdate&)> m_onProgress;
    std::function<void(const CallRecord&)> m_done;
    bool m_isToolCall = false;
    bool m_paramsCarryAttempt = false; ///< the caller's _meta has the attempt key (attemptOptions)
    ToolListing m_snapshot; ///< the tool as the session listed it when the call started
    quint64 m_generation = 0;
    qint64 m_timeoutMs = 0;
    QElapsedTimer m_clock;
    /// The request of the current attempt; shared with a kill-after-write fault armed for it.
    std::shared_ptr<QJsonValue> m_requestId;
    QPointer<ClientSession> m_session; ///< the attempt's session: its newest tools/list is read at the decision
    bool m_finished = false;
    bool m_publishes = true; ///< the connection's callUpdated hears of this call (not part of another)
    bool m_waitedForAuth = false; ///< the next reply is the retry after an authorization
    quint64 m_authGeneration = 0; ///< the server's token generation when the current attempt went out
};

} // namespace mcpscope
