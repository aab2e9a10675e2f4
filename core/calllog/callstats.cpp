#include "callstats.h"

#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace mcpscope {

void LatencyStats::add(double ms)
{
    ms = std::max(ms, 0.0);
    if (!m_samples.empty() && ms < m_samples.back())
        m_sorted = false;
    m_samples.push_back(ms);
    m_sum += ms;
}

void LatencyStats::clear()
{
    m_samples.clear();
    m_sorted = true;
    m_sum = 0;
}

void LatencyStats::sort() const
{
    if (m_sorted)
        return;
    std::sort(m_samples.begin(), m_samples.end());
    m_sorted = true;
}

double LatencyStats::min() const
{
    sort();
    return m_samples.empty() ? 0 : m_samples.front();
}

double LatencyStats::max() const
{
    sort();
    return m_samples.empty() ? 0 : m_samples.back();
}

double LatencyStats::mean() const
{
    return m_samples.empty() ? 0.0 : m_sum / double(m_samples.size());
}

double LatencyStats::percentile(double p) const
{
    if (m_samples.empty())
        return 0;
    sort();
    const auto n = double(m_samples.size());
    const auto rank = qint64(std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * n));
    return m_samples.at(size_t(std::clamp<qint64>(rank, 1, qint64(m_samples.size())) - 1));
}

QList<LatencyStats::Bin> LatencyStats::histogram(int binCount) const
{
    QList<Bin> bins;
    if (m_samples.empty() || binCount < 1)
        return bins;
    const double low = min();
    const double span = max() - low;
    if (span <= 0)
        binCount = 1;
    const double width = span > 0 ? span / binCount : 1.0;
    for (int i = 0; i < binCount; ++i)
        bins.append(Bin { low + i * width, low + (i + 1) * width, 0 });
    for (const double sample : m_samples)
        ++bins[std::min<qsizetype>(qsizetype((sample - low) / width), binCount - 1)].count;
    return bins;
}

QJsonObject LatencyStats::toJson() const
{
    const auto us = [](double ms) { return std::round(ms * 1000) / 1000; };
    return QJsonObject { { QStringLiteral("min"), us(min()) }, { QStringLiteral("mean"), us(mean()) },
        { QStringLiteral("p50"), us(percentile(50)) }, { QStringLiteral("p90"), us(percentile(90)) },
        { QStringLiteral("p99"), us(percentile(99)) }, { QStringLiteral("max"), us(max()) } };
}

CallStats::Class CallStats::classOf(CallOutcome outcome)
{
    switch (outcome) {
    case CallOutcome::Success:
        return Class::Ok;
    case CallOutcome::ToolError:
        return Class::ToolError;
    case CallOutcome::OutcomeUncertain:
        return Class::Uncertain;
    case CallOutcome::BreakerOpen:
        return Class::BreakerOpen;
    default:
        return Class::Error;
    }
}

QString CallStats::errorMessage(const CallRecord& record)
{
    if (record.outcome == CallOutcome::ToolError) {
        const QJsonArray content = record.result.toObject().value(QLatin1String("content")).toArray();
        for (const QJsonValue& item : content) {
            const QString text = item.toObject().value(QLatin1String("text")).toString();
            if (!text.isEmpty())
                return text.left(200);
        }
        return outcomeName(record.outcome);
    }
    if (record.outcome == CallOutcome::OutcomeUncertain) {
        const QJsonObject result = record.result.toObject();
        return QStringLiteral("%1 (%2): not sent again")
            .arg(outcomeName(record.outcome), result.value(QLatin1String("rule")).toString(record.rule));
    }
    const QString server = record.error.value(QLatin1String("message")).toString();
    if (!server.isEmpty())
        return server.left(200);
    if (!record.attempts.isEmpty() && !record.attempts.last().error.isEmpty())
        return record.attempts.last().error.left(200);
    return outcomeName(record.outcome);
}

void CallStats::add(const CallRecord& record, std::optional<double> latencyMs)
{
    if (!record.isFinished())
        return;
    m_latency.add(latencyMs.value_or(double(record.durationMs())));
    const Class kind = classOf(record.outcome);
    switch (kind) {
    case Class::Ok:
        ++m_ok;
        return;
    case Class::ToolError:
        ++m_toolErrors;
        break;
    case Class::Error:
        ++m_errors;
        break;
    case Class::Uncertain:
        ++m_uncertain;
        break;
    case Class::BreakerOpen:
        ++m_breakerOpen;
        break;
    }
    ++m_messages[errorMessage(record)];
}

void CallStats::clear()
{
    *this = CallStats();
}

double CallStats::errorRate() const
{
    return count() == 0 ? 0.0 : double(count() - m_ok) / double(count());
}

QList<CallStats::Message> CallStats::topErrors(int limit) const
{
    QList<Message> messages;
    messages.reserve(m_messages.size());
    for (auto it = m_messages.constBegin(); it != m_messages.constEnd(); ++it)
        messages.append(Message { it.key(), it.value() });
    std::sort(messages.begin(), messages.end(),
        [](const Message& a, const Message& b) { return a.count != b.count ? a.count > b.count : a.text < b.text; });
    if (messages.size() > limit)
        messages.resize(limit);
    return messages;
}

QJsonArray CallStats::topErrorsJson(int limit) const
{
    QJsonArray out;
    for (const Message& message : topErrors(limit))
        out.append(
            QJsonObject { { QStringLiteral("message"), message.text }, { QStringLiteral("count"), message.count } });
    return out;
}

} // namespace mcpscope
