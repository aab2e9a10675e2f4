#include "requesttracker.h"

#include "jsonrpcmessage.h"

#include <QElapsedTimer>

#include <algorithm>
#include <limits>

namespace mcpscope {

namespace {
// Enough to recognise late answers to recently abandoned requests without growing forever.
constexpr size_t MaxRememberedAbandoned = 4096;
} // namespace

RequestTracker::RequestTracker(QObject* parent)
    : QObject(parent)
{
    auto elapsed = std::make_shared<QElapsedTimer>();
    elapsed->start();
    m_clock = [elapsed] { return elapsed->elapsed(); };
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] { expire(); });
}

void RequestTracker::setClock(Clock clock)
{
    m_clock = std::move(clock);
    m_ownTimer = false;
    m_timer.stop();
}

QJsonValue RequestTracker::nextId()
{
    return QJsonValue(m_nextId++);
}

QJsonValue RequestTracker::nextProgressToken()
{
    return QJsonValue(QStringLiteral("mcpscope-progress-") + QString::number(m_nextToken++));
}

void RequestTracker::track(
    const QJsonValue& id, const QString& method, qint64 timeoutMs, qint64 maxTotalMs, const QJsonValue& progressToken)
{
    Entry entry;
    entry.id = id;
    entry.method = method;
    entry.progressToken = progressToken;
    entry.startedAt = now();
    entry.sequence = m_nextSequence++;
    entry.timeoutMs = timeoutMs;
    entry.deadline = entry.startedAt + timeoutMs;
    entry.hardDeadline = entry.startedAt + std::max(timeoutMs, maxTotalMs);
    const IdKey key = idKey(id);
    if (!progressToken.isUndefined() && !progressToken.isNull())
        m_tokenToId.insert(idKey(progressToken), key);
    m_pending.insert(key, entry);
    // Lazy timer: only pull it earlier, never restart it for later deadlines. On the hot path of
    // sequential calls this keeps one timer armed instead of re-registering it on every call.
    if (m_ownTimer && (!m_timer.isActive() || m_armedAt > entry.deadline))
        armAt(entry.deadline);
}

bool RequestTracker::isPending(const QJsonValue& id) const
{
    return m_pending.contains(idKey(id));
}

const RequestTracker::Entry* RequestTracker::find(const QJsonValue& id) const
{
    const auto it = m_pending.constFind(idKey(id));
    return it == m_pending.constEnd() ? nullptr : &it.value();
}

std::optional<RequestTracker::Entry> RequestTracker::complete(const QJsonValue& id)
{
    const auto it = m_pending.find(idKey(id));
    if (it == m_pending.end())
        return std::nullopt;
    Entry entry = it.value();
    m_pending.erase(it);
    if (!entry.progressToken.isUndefined())
        m_tokenToId.remove(idKey(entry.progressToken));
    return entry;
}

bool RequestTracker::wasAbandoned(const QJsonValue& id) const
{
    return m_abandoned.contains(idKey(id));
}

std::optional<RequestTracker::Entry> RequestTracker::abandon(const QJsonValue& id)
{
    auto entry = complete(id);
    if (entry)
        rememberAbandoned(idKey(id));
    return entry;
}

QList<RequestTracker::Entry> RequestTracker::abandonAll()
{
    QList<Entry> entries;
    entries.reserve(m_pending.size());
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) {
        entries.append(it.value());
        rememberAbandoned(it.key());
    }
    m_pending.clear();
    m_tokenToId.clear();
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.sequence < b.sequence; });
    return entries;
}

std::optional<RequestTracker::Entry> RequestTracker::progress(const QJsonValue& token, double value)
{
    const auto tokenIt = m_tokenToId.constFind(idKey(token));
    if (tokenIt == m_tokenToId.constEnd())
        return std::nullopt;
    const auto it = m_pending.find(tokenIt.value());
    if (it == m_pending.end())
        return std::nullopt;
    Entry& entry = it.value();
    // The spec says progress only increases; a value going backwards is not honoured.
    if (value < entry.lastProgress)
        return std::nullopt;
    entry.lastProgress = value;
    entry.deadline = std::min(now() + entry.timeoutMs, entry.hardDeadline);
    return entry;
}

QList<RequestTracker::Entry> RequestTracker::expire()
{
    const qint64 t = now();
    QList<Entry> expired;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it.value().deadline <= t) {
            expired.append(it.value());
            if (!it.value().progressToken.isUndefined())
                m_tokenToId.remove(idKey(it.value().progressToken));
            rememberAbandoned(it.key());
            it = m_pending.erase(it);
        } else {
            ++it;
        }
    }
    std::sort(expired.begin(), expired.end(), [](const Entry& a, const Entry& b) { return a.sequence < b.sequence; });
    rearm();
    for (const Entry& entry : std::as_const(expired))
        Q_EMIT timedOut(entry);
    return expired;
}

void RequestTracker::rememberAbandoned(const IdKey& key)
{
    if (m_abandoned.contains(key))
        return;
    m_abandoned.insert(key);
    m_abandonedOrder.push_back(key);
    if (m_abandonedOrder.size() > MaxRememberedAbandoned) {
        m_abandoned.remove(m_abandonedOrder.front());
        m_abandonedOrder.pop_front();
    }
}

void RequestTracker::rearm()
{
    if (!m_ownTimer)
        return;
    if (m_pending.isEmpty()) {
        m_timer.stop();
        return;
    }
    qint64 earliest = std::numeric_limits<qint64>::max();
    for (const Entry& entry : std::as_const(m_pending))
        earliest = std::min(earliest, entry.deadline);
    armAt(earliest);
}

void RequestTracker::armAt(qint64 deadline)
{
    m_armedAt = deadline;
    const qint64 wait = std::max<qint64>(0, deadline - now());
    m_timer.start(int(std::min<qint64>(wait, std::numeric_limits<int>::max())));
}

} // namespace mcpscope
