#include "latencyhistogramview.h"

#include "calllog/callstats.h"
#include "presentation/presentation.h"

#include <QAreaSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>

namespace mcpscope {

namespace {
struct Percentile
{
    double p;
    QColor colour;
};
const Percentile Percentiles[]
    = { { 50, QColor(0x19, 0x87, 0x54) }, { 90, QColor(0xb0, 0x6a, 0x00) }, { 99, QColor(0xb0, 0x2a, 0x37) } };
} // namespace

LatencyHistogramView::LatencyHistogramView(QWidget* parent)
    : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    auto* chart = new QChart;
    chart->setTitle(tr("Latency histogram"));
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_x = new QValueAxis(chart);
    m_x->setTitleText(tr("latency (ms)"));
    m_x->setLabelFormat(QStringLiteral("%.3g"));
    m_y = new QValueAxis(chart);
    m_y->setTitleText(tr("calls"));
    m_y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);

    m_upper = new QLineSeries(chart);
    m_area = new QAreaSeries(m_upper);
    m_area->setName(tr("calls"));
    m_area->setColor(QColor(0x3d, 0x7e, 0xc9, 160));
    m_area->setBorderColor(QColor(0x1f, 0x4e, 0x8c));
    chart->addSeries(m_area);
    m_area->attachAxis(m_x);
    m_area->attachAxis(m_y);
    for (const Percentile& percentile : Percentiles) {
        auto* line = new QLineSeries(chart);
        QPen pen(percentile.colour);
        pen.setWidth(2);
        pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        chart->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
        m_percentiles.append(line);
    }
    setChart(chart);
    showStats(LatencyStats());
}

void LatencyHistogramView::showStats(const LatencyStats& stats)
{
    const QList<LatencyStats::Bin> bins = stats.histogram(Bins);
    m_binCount = int(bins.size());
    QList<QPointF> steps;
    steps.reserve(bins.size() * 2);
    int highest = 0;
    for (const LatencyStats::Bin& bin : bins) {
        steps.append(QPointF(bin.lowMs, bin.count));
        steps.append(QPointF(bin.highMs, bin.count));
        highest = std::max(highest, bin.count);
    }
    m_upper->replace(steps);
    const double top = std::max(1.0, highest * 1.1);
    for (qsizetype i = 0; i < m_percentiles.size(); ++i) {
        QLineSeries* line = m_percentiles.at(i);
        const double p = Percentiles[i].p;
        if (stats.count() == 0) {
            line->clear();
            line->setName(tr("p%1").arg(p));
            continue;
        }
        const double at = stats.percentile(p);
        line->replace({ QPointF(at, 0), QPointF(at, top) });
        line->setName(tr("p%1 %2").arg(p).arg(Presentation::latencyText(at)));
    }
    if (bins.isEmpty()) {
        m_x->setRange(0, 1);
    } else {
        const double span = std::max(bins.last().highMs - bins.first().lowMs, 0.001);
        m_x->setRange(std::max(0.0, bins.first().lowMs - span * 0.02), bins.last().highMs + span * 0.02);
        m_x->applyNiceNumbers();
    }
    m_y->setRange(0, top);
    m_y->applyNiceNumbers();
}

QStringList LatencyHistogramView::percentileLabels() const
{
    QStringList labels;
    for (const QLineSeries* line : m_percentiles)
        labels.append(line->name());
    return labels;
}

} // namespace mcpscope
