#pragma once

#include "calllog/callrecord.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

#include <optional>
#include <vector>

namespace mcpscope {

/// Latencies of a set of calls, in milliseconds (fractional: a load run times each call to the microsecond): the one
/// percentile code shared by the CLI's load report, the load dialog, the tools table and the latency charts, so each
/// shows the same p99 for the same calls. Percentiles are nearest-rank (the smallest sample with at least p % of the
/// samples at or below it), so every figure is a latency that a call really had.
class LatencyStats
{
public:
    void add(double ms);
    void clear();

    int count() const { return int(m_samples.size()); }
    double min() const;
    double max() const;
    double mean() const;
    /// p in [0, 100]; 0 with no samples.
    double percentile(double p) const;

    /// One bucket of histogram(): [lowMs, highMs) holding count samples.
    struct Bin
    {
        double lowMs = 0;
        double highMs = 0;
        int count = 0;
    };
    /// binCount equal-width buckets from min() to max() (one when every sample is the same); empty with
    /// no samples.
    QList<Bin> histogram(int binCount) const;

    /// {min, mean, p50, p90, p99, max}, rounded to the microsecond: the load report's latencyMs.
    QJsonObject toJson() const;

private:
    void sort() const;

    mutable std::vector<double> m_samples;
    mutable bool m_sorted = true;
    double m_sum = 0;
};

/// Finished calls counted the way the load report counts them: ok, tool error, uncertain, breaker open and
/// every other failure as error, with their latencies and their error messages by frequency.
class CallStats
{
public:
    enum class Class { Ok, ToolError, Error, Uncertain, BreakerOpen };
    static Class classOf(CallOutcome outcome);
    /// The text a person reads for a call that did not succeed: the tool's own error text, the uncertain
    /// result's message, the server's error message or the last attempt's error.
    static QString errorMessage(const CallRecord& record);

    /// Counts a finished record (a pending one is ignored), with its latency: latencyMs when given (a
    /// load run's own finer clock), otherwise the record's durationMs().
    void add(const CallRecord& record, std::optional<double> latencyMs = std::nullopt);
    void clear();

    int count() const { return m_latency.count(); }
    int ok() const { return m_ok; }
    int toolErrors() const { return m_toolErrors; }
    int errors() const { return m_errors; }
    int uncertain() const { return m_uncertain; }
    int breakerOpen() const { return m_breakerOpen; }
    /// The share of calls that did not end ok, 0..1 (0 with no calls).
    double errorRate() const;
    const LatencyStats& latency() const { return m_latency; }

    struct Message
    {
        QString text;
        int count = 0;
    };
    /// The most frequent error messages first (ties by text), at most limit.
    QList<Message> topErrors(int limit = 5) const;
    /// [{message, count}] of topErrors(limit).
    QJsonArray topErrorsJson(int limit = 5) const;

private:
    LatencyStats m_latency;
    int m_ok = 0;
    int m_toolErrors = 0;
    int m_errors = 0;
    int m_uncertain = 0;
    int m_breakerOpen = 0;
    QHash<QString, int> m_messages;
};

} // namespace mcpscope
