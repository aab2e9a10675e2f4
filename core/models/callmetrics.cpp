#include "callmetrics.h"

#include "engine/engine.h"

#include <QTimer>

namespace mcpscope {

namespace {
const QList<LatencyPoint> NoPoints;
const LatencyStats NoLatency;
} // namespace

CallMetrics::CallMetrics(Engine* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_flush(new QTimer(this))
{
    m_flush->setSingleShot(true);
    m_flush->setInterval(CoalesceMs);
    connect(m_flush, &QTimer::timeout, this, &CallMetrics::flush);
    if (engine) {
        connect(engine, &Engine::callUpdated, this, &CallMetrics::add);
        connect(engine, &Engine::serverRemoved, this, &CallMetrics::clear);
    }
}

CallMetrics::~CallMetrics() = default;

const QList<LatencyPoint>& CallMetrics::points(const QString& server) const
{
    const auto it = m_servers.constFind(server);
    return it == m_servers.constEnd() ? NoPoints : it->points;
}

qint64 CallMetrics::pointsDropped(const QString& server) const
{
    const auto it = m_servers.constFind(server);
    return it == m_servers.constEnd() ? 0 : it->dropped;
}

const LatencyStats& CallMetrics::latency(const QString& server) const
{
    const auto it = m_servers.constFind(server);
    return it == m_servers.constEnd() ? NoLatency : it->latency;
}

const CallStats* CallMetrics::toolStats(const QString& server, const QString& tool) const
{
    const auto it = m_servers.constFind(server);
    if (it == m_servers.constEnd())
        return nullptr;
    const auto found = it->tools.constFind(tool);
    return found == it->tools.constEnd() ? nullptr : &found.value();
}

void CallMetrics::clear(const QString& server)
{
    m_pending.remove(server);
    if (m_servers.remove(server))
        Q_EMIT cleared(server);
}

void CallMetrics::add(const CallRecord& record)
{
    if (!record.isFinished())
        return;
    Server& server = m_servers[record.server];
    const bool toolCall = record.method == QLatin1String("tools/call");
    LatencyPoint point;
    point.endedAt = record.endedAt;
    point.latencyMs = double(record.durationMs());
    point.outcome = record.outcome;
    point.attempts = int(record.attempts.size());
    point.tool = toolCall ? record.tool : record.method;
    for (const CallEvent& event : record.events)
        point.fault = point.fault || event.kind == QLatin1String("fault") || event.kind == QLatin1String("action");
    if (server.points.size() >= MaxPoints) {
        // Drop a tenth at once, so a full chart does not move its whole list for every call.
        const qsizetype drop = MaxPoints / 10;
        server.points.remove(0, drop);
        server.dropped += drop;
    }
    server.points.append(point);
    server.latency.add(point.latencyMs);
    if (toolCall)
        server.tools[record.tool].add(record);
    m_pending.insert(record.server);
    if (!m_flush->isActive())
        m_flush->start();
}

void CallMetrics::flush()
{
    const QSet<QString> pending = std::exchange(m_pending, {});
    for (const QString& server : pending)
        Q_EMIT changed(server);
}

} // namespace mcpscope
