#pragma once

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <functional>
#include <optional>

namespace mcpscope {

/// RECOVERY.md §3 R4 (hermes): how long a read-only retry waits for a new, distinct session.
inline constexpr qint64 kReconnectReadyWaitMs = 15000;
/// RECOVERY.md §4 (bifrost MCPSharedAuthRetryReconnectBudget): the R2 wait is min(this, time left).
inline constexpr qint64 kAuthReconnectBudgetMs = 10000;
/// RECOVERY.md §4 (bifrost inflightClientOp): a finished result "stays readable for a moment" so a
/// caller that lost the race still sees it. The spec gives no figure; two seconds is ours.
inline constexpr qint64 kLateJoinWindowMs = 2000;
/// RECOVERY.md §4 (hermes): background reconnect backoff, 1 s doubling to 30 s with ±20 % jitter.
inline constexpr qint64 kBackoffInitialDelayMs = 1000;
inline constexpr qint64 kBackoffMaxDelayMs = 30000;
inline constexpr double kBackoffJitter = 0.2;
/// RECOVERY.md §4 (hermes): parked after this many failed background attempts in a row.
inline constexpr int kBackoffParkAfterFailures = 5;
/// RECOVERY.md §4 (hermes): a parked server is probed this often.
inline constexpr qint64 kParkedProbeIntervalMs = 300000;

/// One reconnect per server at a time (RECOVERY.md §4). Callers that need a reconnect while one
/// runs join it and get its result; a result that finished a moment ago is handed to late callers
/// that still hold the old session (bifrost AwaitReconnect). Success means a *distinct* new session
/// (hermes wait_for_server_session_ready). The reconnect itself is the owner's ConnectFunction.
///
/// After the transport drops, startBackground() retries with exponential backoff and parks the
/// server after kBackoffParkAfterFailures failures; a parked server is probed now and then, or
/// reconnected by hand with reconnectNow().
///
/// Signals:
/// - started when a reconnect begins (not when a caller joins one that runs).
/// - finished once per reconnect with its result, before the joiners are called back. A wait that
///   timed out does not end the reconnect; finished still fires when it ends.
/// - backoffScheduled when the next background attempt is scheduled, with its delay and the
///   consecutive background failures so far.
/// - parked when the background reconnect gives up its backoff and falls back to slow probes.
class Reconnector : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        bool ok = false;
        QString oldSessionId;
        QString newSessionId;
        qint64 durationMs = 0;
        QString error;
        quint64 attempt = 0; ///< sequence number of the reconnect; joiners of one reconnect share it
    };

    using Clock = std::function<qint64()>;
    using DoneFunction = std::function<void(bool ok, const QString& newSessionId, const QString& error)>;
    /// Starts one reconnect and calls done exactly once when the new session is ready (or failed).
    /// done may be called synchronously; calls after the first are ignored.
    using ConnectFunction = std::function<void(DoneFunction done)>;
    /// A value in [-1, 1], scaled by BackoffSettings::jitter. Tests inject 0.
    using JitterFunction = std::function<double()>;
    using Callback = std::function<void(const Result&)>;

    struct BackoffSettings
    {
        qint64 initialDelayMs = kBackoffInitialDelayMs;
        qint64 maxDelayMs = kBackoffMaxDelayMs;
        double jitter = kBackoffJitter;
        int parkAfterFailures = kBackoffParkAfterFailures;
        qint64 parkedProbeIntervalMs = kParkedProbeIntervalMs;
    };

    explicit Reconnector(QObject* parent = nullptr);
    ~Reconnector() override;

    void setConnectFunction(ConnectFunction connect);
    void setClock(Clock clock);
    void setJitterFunction(JitterFunction jitter);
    void setBackoffSettings(const BackoffSettings& settings);
    void setLateJoinWindowMs(qint64 windowMs) { m_lateJoinWindowMs = windowMs; }
    qint64 lateJoinWindowMs() const { return m_lateJoinWindowMs; }

    /// Gets a reconnect result for a caller whose session is currentSessionId: joins the running
    /// reconnect; else hands back, at once, one that finished within lateJoinWindowMs if its new
    /// session differs from currentSessionId; else starts one. waitMs > 0 bounds the wait: when it
    /// runs out the callback gets ok=false, but the reconnect carries on (§4). callback is called
    /// exactly once, unless context (when given) or the reconnector is destroyed first.
    void join(const QString& currentSessionId, qint64 waitMs, QObject* context, Callback callback);

    bool isRunning() const { return m_running; }
    /// Completed reconnects, successful or not.
    int reconnectCount() const { return m_reconnectCount; }
    std::optional<Result> lastResult() const { return m_last; }

    /// Starts background reconnecting with backoff; does nothing if it is already active.
    void startBackground(const QString& currentSessionId);
    /// Stops background reconnecting; a reconnect already running still finishes.
    void stopBackground();
    /// Reconnect by hand: un-parks, clears the backoff and starts (or joins) a reconnect now. If it
    /// fails, background backoff follows. currentSessionId empty: the last session known here.
    void reconnectNow(const QString& currentSessionId = QString());
    bool isBackgroundActive() const { return m_background; }
    bool isParked() const { return m_parked; }
    int backgroundFailures() const { return m_backgroundFailures; }

Q_SIGNALS:
    void started();
    void finished(const mcpscope::Reconnector::Result& result);
    void parked();
    void backoffScheduled(qint64 delayMs, int failures);

private:
    struct Joiner
    {
        quint64 id = 0;
        QPointer<QObject> context;
        bool hasContext = false;
        Callback callback;
        qint64 waitMs = 0;
        QTimer* timer = nullptr;
    };

    void attach(const QString& currentSessionId, qint64 waitMs, QObject* context, Callback callback, bool allowLate);
    void addJoiner(qint64 waitMs, QObject* context, Callback callback);
    void start(const QString& currentSessionId);
    void complete(quint64 attempt, bool ok, const QString& newSessionId, const QString& error);
    void onWaitExpired(quint64 joinerId);
    static void deliver(const Joiner& joiner, const Result& result);
    static void disposeTimer(QTimer* timer);

    void scheduleBackground();
    void runBackgroundAttempt();
    void onBackgroundResult(const Result& result);
    void endBackground();
    qint64 backoffDelay(int failures) const;

    ConnectFunction m_connect;
    Clock m_clock;
    JitterFunction m_jitter;
    BackoffSettings m_backoff;
    qint64 m_lateJoinWindowMs = kLateJoinWindowMs;

    bool m_running = false;
    quint64 m_attempt = 0;
    QString m_runningOldSessionId;
    qint64 m_runningStartedAt = 0;
    QList<Joiner> m_joiners;
    quint64 m_nextJoinerId = 1;
    std::optional<Result> m_last;
    qint64 m_lastFinishedAt = 0;
    int m_reconnectCount = 0;

    QString m_knownSessionId;
    bool m_background = false;
    bool m_backgroundAttemptOut = false;
    bool m_parked = false;
    int m_backgroundFailures = 0;
    QTimer m_backgroundTimer;
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::Reconnector::Result)
