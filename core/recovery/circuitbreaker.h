#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace mcpscope {

/// RECOVERY.md §6 (hermes): opens after this many consecutive failed calls.
inline constexpr int kBreakerDefaultThreshold = 3;
/// RECOVERY.md §6 (hermes): how long an open breaker makes calls fail fast.
inline constexpr qint64 kBreakerDefaultCooldownMs = 60000;

/// The per-server circuit breaker of RECOVERY.md §6.
///
/// A strike is a call's final failure, after any retry; the engine records it once per call.
/// After the cooldown exactly one probe call is let through (hermes lets every call through; we
/// let one), and its outcome closes or reopens the breaker.
///
/// Signals: stateChanged on every state change, through setState() only; failuresChanged whenever
/// the consecutive-failure count changes, so the UI can show it live.
class CircuitBreaker : public QObject
{
    Q_OBJECT
public:
    enum class State { Closed, Open, HalfOpen };
    Q_ENUM(State)

    struct Settings
    {
        int threshold = kBreakerDefaultThreshold;
        qint64 cooldownMs = kBreakerDefaultCooldownMs;
        /// A ToolError is a strike by default (hermes #10447). Off: a tool error is an answered call.
        bool countToolErrors = true;
    };

    /// Monotonic milliseconds; injected by tests.
    using Clock = std::function<qint64()>;

    explicit CircuitBreaker(QObject* parent = nullptr);

    void setSettings(const Settings& settings);
    const Settings& settings() const { return m_settings; }
    void setClock(Clock clock);

    /// Whether a call may go out now. Open: false until the cooldown has passed, then the breaker
    /// turns half-open and this returns true exactly once; it stays false while that probe is out.
    bool allowRequest();
    /// A call succeeded: closes the breaker and clears the count.
    void recordSuccess();
    /// A call's final failure. toolError: it ended with a tool's isError: true. A failed probe
    /// reopens the breaker with a fresh cooldown.
    void recordFailure(bool toolError);
    /// An outcome_uncertain after a successful heal is not a strike (§6); the heal itself already
    /// closed the breaker through recordReconnectSuccess(). Kept so the engine states it explicitly.
    void recordUncertainAfterHeal();
    /// A reconnect produced a new, ready session: independent evidence the server is alive, so it closes.
    void recordReconnectSuccess();
    /// A probe that ended without a verdict (cancelled by the user before an answer) frees the
    /// probe slot, so the next call becomes the probe instead of the breaker staying half-open forever.
    void releaseProbe();
    /// Manual actions (§8).
    void forceOpen();
    void reset();

    State state() const { return m_state; }
    int consecutiveFailures() const { return m_failures; }
    /// The open breaker's remaining cooldown; 0 when not open.
    qint64 remainingCooldownMs() const;
    bool probeInFlight() const { return m_probeOut; }
    /// Why calls fail fast: "… is failing: N consecutive failures; …" or, when every strike was a tool
    /// error, "… is reachable but rejecting calls …" (hermes #11113).
    QString openMessage(const QString& serverName) const;

    static QString stateName(State state);

Q_SIGNALS:
    void stateChanged(mcpscope::CircuitBreaker::State state);
    void failuresChanged(int consecutiveFailures);

private:
    void setState(State state);
    void setFailures(int failures, int toolErrorStrikes);
    void open();
    void close();

    Settings m_settings;
    Clock m_clock;
    State m_state = State::Closed;
    int m_failures = 0;
    int m_toolErrorStrikes = 0;
    qint64 m_openedAt = 0;
    bool m_probeOut = false;
    bool m_forced = false;
};

} // namespace mcpscope
