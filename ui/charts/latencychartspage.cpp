#include "latencychartspage.h"

#include "calllog/callstats.h"
#include "latencyhistogramview.h"
#include "models/callmetrics.h"
#include "presentation/presentation.h"

#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>

namespace mcpscope {

LatencyChartsPage::LatencyChartsPage(CallMetrics* metrics, QWidget* parent)
    : QSplitter(Qt::Horizontal, parent)
    , m_metrics(metrics)
{
    auto* chart = new QChart;
    chart->setTitle(tr("Call latency over time"));
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_time = new QDateTimeAxis(chart);
    m_time->setFormat(QStringLiteral("HH:mm:ss"));
    m_time->setTitleText(tr("time"));
    m_latency = new QValueAxis(chart);
    m_latency->setTitleText(tr("latency (ms)"));
    m_latency->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(m_time, Qt::AlignBottom);
    chart->addAxis(m_latency, Qt::AlignLeft);
    m_timeline = new QChartView(chart, this);
    m_timeline->setObjectName(QStringLiteral("latencyTimeline"));
    m_timeline->setRenderHint(QPainter::Antialiasing);
    // The badge colours of the calls table, one series per class of the load report; a tool error, which
    // the table shows red like any failure, is orange here so it stands apart from transport errors.
    const auto colour = [](CallOutcome outcome) { return Presentation::outcomeColour(outcome); };
    m_byClass.insert(int(CallStats::Class::Ok), addSeries(tr("ok"), colour(CallOutcome::Success), 6, false));
    m_byClass.insert(int(CallStats::Class::ToolError), addSeries(tr("tool error"), QColor(0xe0, 0x7a, 0x00), 6, false));
    m_byClass.insert(
        int(CallStats::Class::Error), addSeries(tr("error"), colour(CallOutcome::TransportError), 6, false));
    m_byClass.insert(
        int(CallStats::Class::Uncertain), addSeries(tr("uncertain"), colour(CallOutcome::OutcomeUncertain), 8, false));
    m_byClass.insert(
        int(CallStats::Class::BreakerOpen), addSeries(tr("breaker open"), colour(CallOutcome::BreakerOpen), 6, false));
    m_retried = addSeries(tr("retried"), QColor(0x1f, 0x4e, 0x8c), 13, true);
    m_faulted = addSeries(tr("fault"), QColor(0xd6, 0x33, 0x84), 15, true);
    m_faulted->setMarkerShape(QScatterSeries::MarkerShapeRectangle);

    m_histogram = new LatencyHistogramView(this);
    m_histogram->setObjectName(QStringLiteral("latencyHistogram"));
    // Side by side: the centre of the window is wider than it is tall, and both charts need height.
    m_timeline->setMinimumSize(360, 240);
    m_histogram->setMinimumSize(400, 240);
    setStretchFactor(0, 3);
    setStretchFactor(1, 2);
    setSizes({ 600, 400 });

    if (metrics) {
        const auto changed = [this](const QString& server) {
            if (server != m_server)
                return;
            m_dirty = true;
            if (isVisible())
                redraw();
        };
        connect(metrics, &CallMetrics::changed, this, changed);
        connect(metrics, &CallMetrics::cleared, this, changed);
    }
    redraw();
}

QScatterSeries* LatencyChartsPage::addSeries(const QString& name, const QColor& colour, qreal size, bool hollow)
{
    auto* series = new QScatterSeries(m_timeline->chart());
    series->setName(name);
    series->setMarkerSize(size);
    if (hollow) {
        series->setBrush(Qt::NoBrush);
        series->setPen(QPen(colour, 1.5));
    } else {
        series->setColor(colour);
        series->setBorderColor(colour.darker(130));
    }
    m_timeline->chart()->addSeries(series);
    series->attachAxis(m_time);
    series->attachAxis(m_latency);
    return series;
}

void LatencyChartsPage::showServer(const QString& server)
{
    if (server == m_server)
        return;
    m_server = server;
    m_dirty = true;
    redraw();
}

void LatencyChartsPage::showEvent(QShowEvent* event)
{
    QSplitter::showEvent(event);
    if (m_dirty)
        redraw();
}

void LatencyChartsPage::redraw()
{
    m_dirty = false;
    static const QList<LatencyPoint> none;
    const QList<LatencyPoint>& points = m_metrics ? m_metrics->points(m_server) : none;
    const qsizetype first = std::max<qsizetype>(0, points.size() - MaxShownPoints);
    QHash<int, QList<QPointF>> byClass;
    QList<QPointF> retried;
    QList<QPointF> faulted;
    double highest = 1;
    for (qsizetype i = first; i < points.size(); ++i) {
        const LatencyPoint& point = points.at(i);
        const QPointF at(double(point.endedAt), point.latencyMs);
        byClass[int(CallStats::classOf(point.outcome))].append(at);
        if (point.attempts > 1)
            retried.append(at);
        if (point.fault)
            faulted.append(at);
        highest = std::max(highest, point.latencyMs);
    }
    for (auto it = m_byClass.constBegin(); it != m_byClass.constEnd(); ++it)
        it.value()->replace(byClass.value(it.key()));
    m_retried->replace(retried);
    m_faulted->replace(faulted);

    qint64 from = QDateTime::currentMSecsSinceEpoch() - 60000;
    qint64 to = from + 60000;
    if (first < points.size()) {
        from = points.at(first).endedAt;
        to = std::max(points.last().endedAt, from + 1000);
        const qint64 pad = (to - from) / 50 + 1;
        from -= pad;
        to += pad;
    }
    m_time->setRange(QDateTime::fromMSecsSinceEpoch(from), QDateTime::fromMSecsSinceEpoch(to));
    m_latency->setRange(0, highest * 1.1);
    m_latency->applyNiceNumbers();
    m_histogram->showStats(m_metrics ? m_metrics->latency(m_server) : LatencyStats());
}

int LatencyChartsPage::shownPoints() const
{
    int n = 0;
    for (const QScatterSeries* series : m_byClass)
        n += series->count();
    return n;
}

int LatencyChartsPage::shownRetries() const
{
    return m_retried->count();
}

int LatencyChartsPage::shownFaults() const
{
    return m_faulted->count();
}

} // namespace mcpscope
