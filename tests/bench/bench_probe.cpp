// The era probe's cost (issue 16): a server in era `auto` is first sent a 2026-07-28 `server/discover`;
// a legacy server answers it with an error and the engine goes on with `initialize`. The goal: that
// detour costs less than 50 ms against a legacy server that answers errors. Measured on the path users
// run, a ServerConnection from connectToServer() to ready (initialize, notifications/initialized and
// the lists), against the real server-everything, which answers an unknown method at once:
// - legacy: era legacy, no probe;
// - auto: era auto with nothing known, the probe first;
// - auto, cached: era auto with the era the last probe found (knownEra legacy), as the next start.
// Over stdio (a new server-everything process each time, so its start is in all three alike) and over
// Streamable HTTP (one server-everything, a new connection each time). The rows alternate, so load
// from elsewhere hits them alike. Probe cost = median(auto) - median(legacy), PASS below 50 ms.
//
// Timing is only printed, never asserted: the run fails only when a connection never gets ready or
// ends in another era than legacy.

#include "benchconnect.h"
#include "benchsupport.h"
#include "engine/serverconnection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTcpServer>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

using mcpscope::bench::print;

constexpr double GoalMs = 50.0;
constexpr int WaitMs = 30000;

double median(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype mid = values.size() / 2;
    return values.size() % 2 ? values.at(mid) : (values.at(mid - 1) + values.at(mid)) / 2;
}

struct Row
{
    QString name;
    ProtocolEra era;
    std::optional<ProtocolEra> knownEra;
    QList<double> ms;
};

/// Connects, waits for ready, checks the era that was used, disconnects. The time to ready in ms, or -1.
double timeToReady(const ServerConfig& config, QString* error)
{
    ServerConnection connection(config);
    QElapsedTimer clock;
    clock.start();
    const bool ready = mcpscope::bench::connectAndWait(connection, error, WaitMs);
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    if (ready && connection.config().knownEra.value_or(ProtocolEra::Legacy) != ProtocolEra::Legacy)
        *error
            = u"'%1' was detected as %2, not legacy"_s.arg(config.name, protocolEraName(*connection.config().knownEra));
    mcpscope::bench::closeAndWait(connection);
    return ready && error->isEmpty() ? ms : -1;
}

/// Runs the three rows alternately on one transport and prints them; false when a connection failed.
bool measure(const QString& transport, const ServerConfig& base, int reps, int warmup)
{
    QList<Row> rows { { u"legacy"_s, ProtocolEra::Legacy, std::nullopt, {} },
        { u"auto"_s, ProtocolEra::Auto, std::nullopt, {} },
        { u"auto, cached legacy"_s, ProtocolEra::Auto, ProtocolEra::Legacy, {} } };
    for (int rep = 0; rep < warmup + reps; ++rep) {
        for (Row& row : rows) {
            ServerConfig config = base;
            config.era = row.era;
            config.knownEra = row.knownEra;
            QString error;
            const double ms = timeToReady(config, &error);
            if (ms < 0) {
                print(u"%1 %2: %3\n"_s.arg(transport, row.name, error));
                return false;
            }
            if (rep >= warmup)
                row.ms.append(ms);
        }
    }
    print(u"\n%1, server-everything, %2 connections each, connectToServer to ready (ms):\n"_s.arg(transport).arg(reps));
    print(u"  %1 %2 %3 %4\n"_s.arg(u"era"_s, -22).arg(u"median"_s, 8).arg(u"min"_s, 8).arg(u"max"_s, 8));
    for (const Row& row : rows) {
        print(u"  %1 %2 %3 %4\n"_s.arg(row.name, -22)
                  .arg(median(row.ms), 8, 'f', 1)
                  .arg(*std::min_element(row.ms.begin(), row.ms.end()), 8, 'f', 1)
                  .arg(*std::max_element(row.ms.begin(), row.ms.end()), 8, 'f', 1));
    }
    const double cost = median(rows.at(1).ms) - median(rows.at(0).ms);
    const double cached = median(rows.at(2).ms) - median(rows.at(0).ms);
    print(u"  probe cost (auto - legacy): %1 ms, goal < %2 ms: %3\n"_s.arg(cost, 0, 'f', 1)
              .arg(GoalMs, 0, 'f', 0)
              .arg(cost < GoalMs ? u"PASS"_s : u"MISS"_s));
    print(u"  cached era (auto, cached - legacy): %1 ms\n"_s.arg(cached, 0, 'f', 1));
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"What the era probe costs against a legacy server that answers errors."_s);
    parser.addHelpOption();
    const QCommandLineOption repsOption(u"reps"_s, u"Connections per row and transport."_s, u"n"_s, u"15"_s);
    const QCommandLineOption warmupOption(u"warmup"_s, u"Untimed rounds first."_s, u"n"_s, u"2"_s);
    parser.addOptions({ repsOption, warmupOption });
    parser.process(app);
    const int reps = std::max(1, parser.value(repsOption).toInt());
    const int warmup = std::max(0, parser.value(warmupOption).toInt());
    const QString peersDir = QStringLiteral(MCPSCOPE_PEERS_DIR);
    const QString everything = peersDir + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js"_s;
    print(u"Era probe cost: %1\n"_s.arg(mcpscope::bench::pinToCurrentCpu()));

    ServerConfig stdio;
    stdio.name = u"everything-stdio"_s;
    stdio.transport = TransportKind::Stdio;
    stdio.command = QStringLiteral(MCPSCOPE_NODE);
    stdio.args = { everything, u"stdio"_s };
    stdio.cwd = peersDir;
    if (!measure(u"stdio"_s, stdio, reps, warmup))
        return 1;

    quint16 port = 0;
    {
        QTcpServer free;
        free.listen(QHostAddress::LocalHost, 0);
        port = free.serverPort();
    }
    QProcess server;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"PORT"_s, QString::number(port));
    server.setProcessEnvironment(env);
    server.setProgram(QStringLiteral(MCPSCOPE_NODE));
    server.setArguments({ everything, u"streamableHttp"_s });
    server.setWorkingDirectory(peersDir);
    server.setProcessChannelMode(QProcess::MergedChannels);
    server.start();
    QByteArray output;
    const QByteArray readyText = u"listening on port %1"_s.arg(port).toUtf8();
    for (int i = 0; i < 300 && !output.contains(readyText); ++i) {
        if (!server.waitForReadyRead(100) && server.state() != QProcess::Running)
            break;
        output += server.readAll();
    }
    if (!output.contains(readyText)) {
        print(u"server-everything over HTTP did not start: %1\n"_s.arg(QString::fromUtf8(output)));
        return 1;
    }
    ServerConfig http;
    http.name = u"everything-http"_s;
    http.transport = TransportKind::StreamableHttp;
    http.url = QUrl(u"http://127.0.0.1:%1/mcp"_s.arg(port));
    const bool ok = measure(u"Streamable HTTP"_s, http, reps, warmup);
    server.kill();
    server.waitForFinished(5000);
    return ok ? 0 : 1;
}
