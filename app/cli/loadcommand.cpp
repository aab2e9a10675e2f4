// mcpscope-cli load TOOL [JSON] --concurrency N (--duration S | --requests N) [--rate R] [--fault SPEC]:
// a LoadRunner over the engine (every call through Engine::call, with its record and the recovery rules),
// a live progress line on a TTY, then the report, as text or as one JSON object (--json).

#include "cliapp.h"

#include "clijson.h"
#include "engine/engine.h"
#include "engine/loadrunner.h"
#include "engine/serverconnection.h"

#include <QJsonObject>
#include <QTimer>

#include <cstdio>
#include <unistd.h>

namespace mcpscope {

using cli::compactJson;

namespace {

QString latencyLine(const LatencyStats& latency)
{
    const auto ms = [](double value) { return QString::number(value, 'f', value < 10 ? 2 : 1); };
    return QStringLiteral("min %1  mean %2  p50 %3  p90 %4  p99 %5  max %6")
        .arg(ms(latency.min()), ms(latency.mean()), ms(latency.percentile(50)), ms(latency.percentile(90)),
            ms(latency.percentile(99)), ms(latency.max()));
}

} // namespace

void CliApp::load()
{
    if (m_commandArgs.isEmpty())
        return fail(tr("load needs a tool name"), ExitUsage);
    bool ok = false;
    m_load.tool = m_commandArgs.first();
    m_load.arguments = parseJsonArg(1, &ok);
    if (!ok)
        return;
    m_load.timeoutMs = m_timeoutMs;
    // Without --log nobody reads a record's wire exchange: the report counts outcomes and latencies.
    if (ServerConnection* connection = m_engine->connection(m_config.name); connection && !m_log)
        connection->setRecordsWire(false);
    auto* runner = new LoadRunner(m_engine, m_config.name, m_load, this);
    if (const QString problem = runner->checkFault(); !problem.isEmpty())
        return fail(problem, ExitUsage);

    // The progress line is for a person watching a terminal, never for a pipe or a log file.
    QTimer* ticker = nullptr;
    if (isatty(fileno(stderr)) != 0) {
        ticker = new QTimer(runner);
        connect(ticker, &QTimer::timeout, runner, [this, runner] {
            const CallStats& stats = runner->stats();
            m_err << "\r\033[K" << stats.count() << " calls  " << QString::number(runner->throughput(), 'f', 1)
                  << "/s  ok " << stats.ok() << "  failed " << stats.count() - stats.ok() << "  p50 "
                  << QString::number(stats.latency().percentile(50), 'f', 2) << " ms  p99 "
                  << QString::number(stats.latency().percentile(99), 'f', 2) << " ms  " << runner->inFlight()
                  << " in flight";
            m_err.flush();
        });
        ticker->start(250);
    }
    connect(runner, &LoadRunner::finished, this, [this, runner, ticker] {
        if (ticker) {
            ticker->stop();
            m_err << "\r\033[K";
            m_err.flush();
        }
        const QJsonObject report = runner->report();
        if (m_json) {
            m_out << compactJson(report) << '\n';
        } else {
            const CallStats& stats = runner->stats();
            m_out << "load " << m_load.tool << ": " << stats.count() << " calls in "
                  << QString::number(double(runner->elapsedMs()) / 1000.0, 'f', 2) << " s at concurrency "
                  << m_load.concurrency << " (" << QString::number(runner->throughput(), 'f', 1) << " calls/s)\n"
                  << "  ok " << stats.ok() << "  tool errors " << stats.toolErrors() << "  errors " << stats.errors()
                  << "  uncertain " << stats.uncertain() << "  breaker open " << stats.breakerOpen() << '\n'
                  << "  latency ms: " << latencyLine(stats.latency()) << '\n';
            const QList<CallStats::Message> top = stats.topErrors();
            if (!top.isEmpty()) {
                m_out << "  top errors:\n";
                for (const CallStats::Message& message : top)
                    m_out << "    " << QString::number(message.count).rightJustified(6) << "  " << message.text << '\n';
            }
        }
        m_out.flush();
        quit(ExitSuccess);
    });
    runner->start();
}

} // namespace mcpscope
