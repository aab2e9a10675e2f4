#pragma once

#include "calllog/callstats.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

class QTimer;

namespace mcpscope {

class Engine;

/// One finished call on a server's latency chart.
struct LatencyPoint
{
    qint64 endedAt = 0; ///< ms since the epoch
    double latencyMs = 0;
    CallOutcome outcome = CallOutcome::Success;
    int attempts = 1; ///< more than one: the call was retried
    bool fault = false; ///< a fault fired (or a manual action was taken) while it ran
    QString tool; ///< the tool of a tools/call, otherwise the method
};

/// The live statistics of every call the engine finishes, per server: one LatencyPoint per call (the
/// latency chart), the server's latencies (the histogram) and, per tool, CallStats (the tools table's
/// count, error rate, p50 and p99). Fed by Engine::callUpdated; only final records count.
///
/// Signals: changed(server) at most ten times a second per server, however many calls end, so views
/// that follow it never redraw per call; cleared(server) when a server's figures are dropped (the
/// server was removed, or clear()).
class CallMetrics : public QObject
{
    Q_OBJECT
public:
    /// How many points a server's chart keeps; older ones are dropped first (the statistics keep all).
    static constexpr int MaxPoints = 100000;
    /// The most often changed() fires, per server.
    static constexpr int CoalesceMs = 100;

    explicit CallMetrics(Engine* engine, QObject* parent = nullptr);
    ~CallMetrics() override;

    /// The server's points, oldest first; pointsDropped() counts those removed at the front.
    const QList<LatencyPoint>& points(const QString& server) const;
    qint64 pointsDropped(const QString& server) const;
    /// Every tools/call and other request of the server.
    const LatencyStats& latency(const QString& server) const;
    /// The tools/calls of one tool of the server; nullptr before the first one ended.
    const CallStats* toolStats(const QString& server, const QString& tool) const;

    void clear(const QString& server);
    /// Adds a final record (what callUpdated feeds in); a pending one is ignored.
    void add(const CallRecord& record);

Q_SIGNALS:
    void changed(const QString& server);
    void cleared(const QString& server);

private:
    struct Server
    {
        QList<LatencyPoint> points;
        qint64 dropped = 0;
        LatencyStats latency;
        QHash<QString, CallStats> tools;
    };
    void flush();

    QPointer<Engine> m_engine;
    QHash<QString, Server> m_servers;
    QSet<QString> m_pending;
    QTimer* m_flush = nullptr;
};

} // namespace mcpscope
