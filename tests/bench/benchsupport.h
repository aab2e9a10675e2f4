#pragma once

// What the side-by-side benchmarks share: printing as they go, the --only client filter, and pinning
// every client and peer to one CPU so that they meet the same machine.

#include <QList>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sched.h>

namespace mcpscope::bench {

inline void print(const QString& text)
{
    std::fputs(text.toUtf8().constData(), stdout);
    std::fflush(stdout);
}

/// Applies --only (comma-separated keys, in the order of rows) to rows[i].selected. False, after
/// saying which name is unknown, when a name is not a key.
template <typename Row> bool selectOnly(const QString& only, const QStringList& keys, QList<Row>& rows)
{
    const QStringList names = only.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString& name : names) {
        if (!keys.contains(name)) {
            print(
                QStringLiteral("--only: unknown client '%1' (known: %2)\n").arg(name, keys.join(QStringLiteral(", "))));
            return false;
        }
    }
    for (qsizetype i = 0; i < rows.size() && i < keys.size(); ++i)
        rows[i].selected = names.contains(keys.at(i));
    return true;
}

/// The lowest of a row's rounds (NaN for none).
inline double best(const QList<double>& values)
{
    return values.isEmpty() ? std::numeric_limits<double>::quiet_NaN()
                            : *std::min_element(values.begin(), values.end());
}

/// The middle of a row's rounds, the upper one of two (NaN for none).
inline double median(QList<double> values)
{
    if (values.isEmpty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

/// Pins this process, and so every thread and child started after it, to the CPU it runs on.
/// Returns where everything runs, in words for the report.
inline QString pinToCurrentCpu()
{
    const int cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0)
        CPU_SET(cpu, &set);
    return cpu >= 0 && sched_setaffinity(0, sizeof set, &set) == 0 ? QStringLiteral("all on CPU %1").arg(cpu)
                                                                   : QStringLiteral("any CPU (pinning failed)");
}

} // namespace mcpscope::bench
