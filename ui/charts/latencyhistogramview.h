#pragma once

#include <QChartView>

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace mcpscope {

class LatencyStats;

/// A latency histogram with its p50, p90 and p99 marked as vertical lines (named with their values in the
/// legend): the Charts tab's lower half and the Load… dialog's live view.
class LatencyHistogramView : public QChartView
{
    Q_OBJECT
public:
    static constexpr int Bins = 30;

    explicit LatencyHistogramView(QWidget* parent = nullptr);

    /// Redraws from stats (which the caller keeps; nothing is held).
    void showStats(const LatencyStats& stats);
    /// The percentile lines as the legend names them ("p99 12 ms"), for tests.
    QStringList percentileLabels() const;
    int binCount() const { return m_binCount; }

private:
    QLineSeries* m_upper = nullptr;
    QAreaSeries* m_area = nullptr;
    QList<QLineSeries*> m_percentiles;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    int m_binCount = 0;
};

} // namespace mcpscope
