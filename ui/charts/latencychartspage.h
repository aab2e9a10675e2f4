#pragma once

#include "calllog/callrecord.h"

#include <QHash>
#include <QPointer>
#include <QSplitter>

class QChartView;
class QDateTimeAxis;
class QScatterSeries;
class QValueAxis;

namespace mcpscope {

class CallMetrics;
class LatencyHistogramView;

/// The Charts tab: for the selected server, call latency over time (one point per call, coloured by
/// outcome, with retried calls ringed and calls that a fault or manual action touched boxed) beside a latency
/// histogram with p50, p90 and p99. It redraws from CallMetrics, whose changed() comes at most ten times
/// a second, and only while it is on screen, so a load run never stalls the GUI.
class LatencyChartsPage : public QSplitter
{
    Q_OBJECT
public:
    /// The most recent calls the timeline draws; the histogram counts every call.
    static constexpr int MaxShownPoints = 5000;

    explicit LatencyChartsPage(CallMetrics* metrics, QWidget* parent = nullptr);

    void showServer(const QString& server);
    QString server() const { return m_server; }

    /// Points on the timeline, all outcome series together (retry and fault markers not counted).
    int shownPoints() const;
    int shownRetries() const;
    int shownFaults() const;
    QChartView* timelineView() const { return m_timeline; }
    LatencyHistogramView* histogramView() const { return m_histogram; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void redraw();
    QScatterSeries* addSeries(const QString& name, const QColor& colour, qreal size, bool hollow);

    QPointer<CallMetrics> m_metrics;
    QString m_server;
    bool m_dirty = true;
    QChartView* m_timeline = nullptr;
    QDateTimeAxis* m_time = nullptr;
    QValueAxis* m_latency = nullptr;
    QHash<int, QScatterSeries*> m_byClass; ///< CallStats::Class → series
    QScatterSeries* m_retried = nullptr;
    QScatterSeries* m_faulted = nullptr;
    LatencyHistogramView* m_histogram = nullptr;
};

} // namespace mcpscope
