#include "reconnector.h"

#include <QDeadlineTimer>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace mcpscope {

Reconnector::Reconnector(QObject* parent)
    : QObject(parent)
    , m_clock([] { return QDeadlineTimer::current().deadline(); })
    , m_jitter([] { return QRandomGenerator::global()->generateDouble() * 2.0 - 1.0; })
{
    m_backgroundTimer.setSingleShot(true);
    connect(&m_backgroundTimer, &QTimer::timeout, this, &Reconnector::runBackgroundAttempt);
}

// Pending callbacks are dropped: their owners are being torn down with us, and calling into them
// from a destructor is how use-after-free bugs start.
Reconnector::~Reconnector() = default;

void Reconnector::setConnectFunction(ConnectFunction connect)
{
    m_connect = std::move(connect);
}

void Reconnector::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

void Reconnector::setJitterFunction(JitterFunction jitter)
{
    m_jitter = std::move(jitter);
}

void Reconnector::setBackoffSettings(const BackoffSettings& settings)
{
    m_backoff = settings;
    m_backoff.initialDelayMs = std::max<qint64>(0, settings.initialDelayMs);
    m_backoff.maxDelayMs = std::max(m_backoff.initialDelayMs, settings.maxDelayMs);
    m_backoff.jitter = std::clamp(settings.jitter, 0.0, 1.0);
    m_backoff.parkAfterFailures = std::max(1, settings.parkAfterFailures);
    m_backoff.parkedProbeIntervalMs = std::max<qint64>(0, settings.parkedProbeIntervalMs);
}

void Reconnector::join(const QString& currentSessionId, qint64 waitMs, QObject* context, Callback callback)
{
    attach(currentSessionId, waitMs, context, std::move(callback), true);
}

void Reconnector::attach(
    const QString& currentSessionId, qint64 waitMs, QObject* context, Callback callback, bool allowLate)
{
    if (m_running) {
        addJoiner(waitMs, context, std::move(callback));
        return;
    }
    // A caller still holding the session the last reconnect replaced lost the race, not the
    // server: it gets that result instead of tearing down the fresh session with a second reconnect.
    if (allowLate && m_last && m_clock() - m_lastFinishedAt < m_lateJoinWindowMs
        && m_last->newSessionId != currentSessionId) {
        Joiner joiner;
        joiner.context = context;
        joiner.hasContext = context != nullptr;
        joiner.callback = std::move(callback);
        deliver(joiner, *m_last);
        return;
    }
    start(currentSessionId);
    addJoiner(waitMs, context, std::move(callback));
    // The joiner is registered before the connect function runs, so a synchronous done still reaches it.
    Q_EMIT started();
    if (!m_connect) {
        complete(m_attempt, false, QString(), tr("no way to reconnect this server is set up"));
        return;
    }
    const QPointer<Reconnector> self(this);
    const quint64 attempt = m_attempt;
    m_connect([self, attempt](bool ok, const QString& newSessionId, const QString& error) {
        if (self)
            self->complete(attempt, ok, newSessionId, error);
    });
}

void Reconnector::addJoiner(qint64 waitMs, QObject* context, Callback callback)
{
    Joiner joiner;
    joiner.id = m_nextJoinerId++;
    joiner.context = context;
    joiner.hasContext = context != nullptr;
    joiner.callback = std::move(callback);
    joiner.waitMs = waitMs;
    if (waitMs > 0) {
        joiner.timer = new QTimer(this);
        joiner.timer->setSingleShot(true);
        const quint64 id = joiner.id;
        connect(joiner.timer, &QTimer::timeout, this, [this, id] { onWaitExpired(id); });
        joiner.timer->start(int(std::min<qint64>(waitMs, std::numeric_limits<int>::max())));
    }
    m_joiners.append(std::move(joiner));
}

void Reconnector::start(const QString& currentSessionId)
{
    m_running = true;
    ++m_attempt;
    m_runningOldSessionId = currentSessionId;
    m_runningStartedAt = m_clock();
    m_knownSessionId = currentSessionId;
}

void Reconnector::complete(quint64 attempt, bool ok, const QString& newSessionId, const QString& error)
{
    // A second done, or one from a reconnect already superseded, must not end the current one.
    if (!m_running || attempt != m_attempt)
        return;
    Result result;
    result.attempt = attempt;
    result.oldSessionId = m_runningOldSessionId;
    result.newSessionId = newSessionId;
    result.durationMs = m_clock() - m_runningStartedAt;
    if (!ok) {
        result.error = error.isEmpty() ? tr("the reconnect failed") : error;
    } else if (newSessionId.isEmpty()) {
        // Without an id there is no telling a fresh session from the old one still marked ready.
        result.error = tr("the server came back without a session id");
    } else if (newSessionId == m_runningOldSessionId) {
        result.error = tr("the server came back with the same session");
    } else {
        result.ok = true;
    }

    m_running = false;
    ++m_reconnectCount;
    m_last = result;
    m_lastFinishedAt = m_clock();
    if (result.ok) {
        m_knownSessionId = result.newSessionId;
        // Whoever asked for it, a new session ends the background backoff.
        endBackground();
    }
    const QList<Joiner> joiners = std::exchange(m_joiners, {});
    for (const Joiner& joiner : joiners)
        disposeTimer(joiner.timer);
    Q_EMIT finished(result);
    for (const Joiner& joiner : joiners)
        deliver(joiner, result);
}

void Reconnector::onWaitExpired(quint64 joinerId)
{
    const auto it = std::find_if(
        m_joiners.begin(), m_joiners.end(), [joinerId](const Joiner& joiner) { return joiner.id == joinerId; });
    if (it == m_joiners.end())
        return;
    const Joiner joiner = *it;
    m_joiners.erase(it);
    disposeTimer(joiner.timer);
    // Only this caller stops waiting; the reconnect itself carries on for everyone else (§4).
    Result result;
    result.attempt = m_attempt;
    result.oldSessionId = m_runningOldSessionId;
    result.durationMs = m_clock() - m_runningStartedAt;
    result.error = tr("timed out after %1 ms waiting for the reconnect").arg(joiner.waitMs);
    deliver(joiner, result);
}

void Reconnector::deliver(const Joiner& joiner, const Result& result)
{
    if (joiner.hasContext && !joiner.context)
        return;
    if (joiner.callback)
        joiner.callback(result);
}

void Reconnector::disposeTimer(QTimer* timer)
{
    if (!timer)
        return;
    timer->stop();
    // Deferred: this may run inside the timer's own timeout.
    timer->deleteLater();
}

void Reconnector::startBackground(const QString& currentSessionId)
{
    if (m_background)
        return;
    m_knownSessionId = currentSessionId;
    m_background = true;
    m_parked = false;
    m_backgroundFailures = 0;
    scheduleBackground();
}

void Reconnector::stopBackground()
{
    endBackground();
}

void Reconnector::reconnectNow(const QString& currentSessionId)
{
    if (!currentSessionId.isEmpty())
        m_knownSessionId = currentSessionId;
    m_background = true;
    m_parked = false;
    m_backgroundFailures = 0;
    m_backgroundTimer.stop();
    if (!m_backgroundAttemptOut)
        runBackgroundAttempt();
}

void Reconnector::scheduleBackground()
{
    if (m_parked) {
        m_backgroundTimer.start(
            int(std::min<qint64>(m_backoff.parkedProbeIntervalMs, std::numeric_limits<int>::max())));
        return;
    }
    const qint64 delay = backoffDelay(m_backgroundFailures);
    Q_EMIT backoffScheduled(delay, m_backgroundFailures);
    // A slot on backoffScheduled may have stopped or restarted the background work.
    if (m_background && !m_backgroundAttemptOut && !m_parked)
        m_backgroundTimer.start(int(std::min<qint64>(delay, std::numeric_limits<int>::max())));
}

void Reconnector::runBackgroundAttempt()
{
    if (!m_background)
        return;
    m_backgroundAttemptOut = true;
    // The background never takes a late result: a cached failure would burn a backoff step without
    // trying, and a cached success would already have ended the background work.
    attach(
        m_knownSessionId, 0, this, [this](const Result& result) { onBackgroundResult(result); }, false);
}

void Reconnector::onBackgroundResult(const Result& result)
{
    m_backgroundAttemptOut = false;
    if (!m_background || result.ok)
        return;
    ++m_backgroundFailures;
    if (!m_parked && m_backgroundFailures >= m_backoff.parkAfterFailures) {
        m_parked = true;
        Q_EMIT parked();
        if (!m_background || !m_parked)
            return;
    }
    scheduleBackground();
}

void Reconnector::endBackground()
{
    m_background = false;
    m_parked = false;
    m_backgroundFailures = 0;
    m_backgroundTimer.stop();
}

qint64 Reconnector::backoffDelay(int failures) const
{
    qint64 base = m_backoff.initialDelayMs;
    for (int i = 0; i < failures && base < m_backoff.maxDelayMs; ++i)
        base *= 2;
    base = std::min(base, m_backoff.maxDelayMs);
    const double factor = 1.0 + m_backoff.jitter * std::clamp(m_jitter ? m_jitter() : 0.0, -1.0, 1.0);
    return std::max<qint64>(0, std::llround(double(base) * factor));
}

} // namespace mcpscope
