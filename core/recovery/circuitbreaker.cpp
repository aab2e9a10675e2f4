#include "circuitbreaker.h"

#include "jsonrpc/enumnames.h"

#include <QDeadlineTimer>

#include <algorithm>

namespace mcpscope {

CircuitBreaker::CircuitBreaker(QObject* parent)
    : QObject(parent)
    , m_clock([] { return QDeadlineTimer::current().deadline(); })
{ }

void CircuitBreaker::setSettings(const Settings& settings)
{
    m_settings = settings;
    // A threshold below one would open the breaker without any failure.
    m_settings.threshold = std::max(1, settings.threshold);
    m_settings.cooldownMs = std::max<qint64>(0, settings.cooldownMs);
}

void CircuitBreaker::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

bool CircuitBreaker::allowRequest()
{
    switch (m_state) {
    case State::Closed:
        return true;
    case State::Open:
        if (remainingCooldownMs() > 0)
            return false;
        m_probeOut = true;
        setState(State::HalfOpen);
        return true;
    case State::HalfOpen:
        if (m_probeOut)
            return false;
        m_probeOut = true;
        return true;
    }
    return false;
}

void CircuitBreaker::recordSuccess()
{
    close();
}

void CircuitBreaker::recordFailure(bool toolError)
{
    if (toolError && !m_settings.countToolErrors) {
        // The server answered; with tool errors not counted that is as good as a success.
        close();
        return;
    }
    setFailures(m_failures + 1, m_toolErrorStrikes + (toolError ? 1 : 0));
    switch (m_state) {
    case State::HalfOpen:
        open();
        break;
    case State::Closed:
        if (m_failures >= m_settings.threshold)
            open();
        break;
    case State::Open:
        // A call let through before the breaker opened ended late: it counts, but must not extend
        // the cooldown users were already told about.
        break;
    }
}

void CircuitBreaker::recordUncertainAfterHeal()
{ }

void CircuitBreaker::recordReconnectSuccess()
{
    close();
}

void CircuitBreaker::releaseProbe()
{
    m_probeOut = false;
}

void CircuitBreaker::forceOpen()
{
    open();
    m_forced = true;
}

void CircuitBreaker::reset()
{
    close();
}

qint64 CircuitBreaker::remainingCooldownMs() const
{
    if (m_state != State::Open)
        return 0;
    return std::max<qint64>(0, m_openedAt + m_settings.cooldownMs - m_clock());
}

QString CircuitBreaker::openMessage(const QString& serverName) const
{
    // Whole seconds, rounded up, so the message never says 0 s while calls still fail fast.
    const qint64 remaining = m_state == State::Open ? remainingCooldownMs() : m_settings.cooldownMs;
    const qint64 seconds = (remaining + 999) / 1000;
    if (m_forced) {
        return tr("Server '%1' has its circuit breaker opened by hand; calls fail fast for %2 s.")
            .arg(serverName)
            .arg(seconds);
    }
    if (m_failures > 0 && m_toolErrorStrikes == m_failures) {
        return tr("Server '%1' is reachable but rejecting calls: %2 consecutive tool errors; calls fail fast for %3 s.")
            .arg(serverName)
            .arg(m_failures)
            .arg(seconds);
    }
    return tr("Server '%1' is failing: %2 consecutive failures; calls fail fast for %3 s.")
        .arg(serverName)
        .arg(m_failures)
        .arg(seconds);
}

namespace {
constexpr EnumName<CircuitBreaker::State> StateEntries[] = {
    { CircuitBreaker::State::Closed, u"closed" },
    { CircuitBreaker::State::Open, u"open" },
    { CircuitBreaker::State::HalfOpen, u"half-open" },
};
constexpr EnumNames<CircuitBreaker::State> StateNames(StateEntries);
} // namespace

QString CircuitBreaker::stateName(State state)
{
    return StateNames.name(state);
}

void CircuitBreaker::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void CircuitBreaker::setFailures(int failures, int toolErrorStrikes)
{
    m_toolErrorStrikes = toolErrorStrikes;
    if (m_failures == failures)
        return;
    m_failures = failures;
    Q_EMIT failuresChanged(failures);
}

void CircuitBreaker::open()
{
    // Every opening, including a failed probe, starts a fresh cooldown.
    m_openedAt = m_clock();
    m_probeOut = false;
    m_forced = false;
    setState(State::Open);
}

void CircuitBreaker::close()
{
    m_probeOut = false;
    m_forced = false;
    setFailures(0, 0);
    setState(State::Closed);
}

} // namespace mcpscope
