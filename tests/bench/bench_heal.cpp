// The heal-time benchmark: how long a read-only call takes when its session expires under it,
// compared with what a healthy client would pay to start over. Over Streamable HTTP against the
// ledger peer behind a FaultProxy:
// - heal: `read` with expire-after armed. The server runs it, the proxy answers 404 instead, the engine
//   reconnects (initialize, notifications/initialized, tools/list on a new session) and sends it once
//   more (R4). Timed from callTool to the final record.
// - plain + initialize: a fresh ServerConnection through the same proxy, from connectToServer to ready
//   (initialize and tools/list), then one `read`. Timed from connectToServer to the record.
// The two alternate, so load from elsewhere hits both alike. Goal: median heal / median
// (plain + initialize) ≤ 1.2. The heal necessarily pays one round trip more (the first `read` that ran
// and was lost), so the goal says the recovery machinery adds next to nothing on top of that.
//
// Timing is only printed, never asserted: the run fails only when a call fails functionally (a heal
// that is not an R4 success on a new session, a connection that never gets ready).

#include "benchconnect.h"
#include "benchsupport.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

using mcpscope::bench::closeAndWait;
using mcpscope::bench::connectAndWait;
using mcpscope::bench::print;

constexpr double Goal = 1.2;
constexpr int WaitMs = 30000;

double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const double at = p * double(values.size() - 1);
    const auto low = qsizetype(at);
    const qsizetype high = std::min<qsizetype>(low + 1, values.size() - 1);
    return values.at(low) + (values.at(high) - values.at(low)) * (at - double(low));
}

ServerConfig ledgerConfig(const QUrl& url)
{
    ServerConfig config;
    config.name = u"ledger-http"_s;
    config.transport = TransportKind::StreamableHttp;
    config.url = url;
    config.requestTimeoutMs = 20000;
    return config;
}

std::optional<CallRecord> callAndWait(ServerConnection& connection, const QString& tool)
{
    QEventLoop loop;
    std::optional<CallRecord> result;
    connection.callTool(tool, {}, {}, [&](const CallRecord& record) {
        result = record;
        loop.quit();
    });
    if (!result) {
        QTimer::singleShot(WaitMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Heal time of a read-only call across expire-after, against a fresh "
                                     "initialize plus one call."_s);
    parser.addHelpOption();
    const QCommandLineOption repsOption(u"reps"_s, u"Repetitions of each measurement."_s, u"n"_s, u"50"_s);
    const QCommandLineOption warmupOption(u"warmup"_s, u"Untimed repetitions first."_s, u"n"_s, u"5"_s);
    const QCommandLineOption nodeOption(u"node"_s, u"The pinned Node 22."_s, u"path"_s, QStringLiteral(MCPSCOPE_NODE));
    const QCommandLineOption peersOption(
        u"peers-dir"_s, u"Where ledger-peer.mjs is."_s, u"path"_s, QStringLiteral(MCPSCOPE_PEERS_DIR));
    parser.addOptions({ repsOption, warmupOption, nodeOption, peersOption });
    parser.process(app);
    const int reps = std::max(1, parser.value(repsOption).toInt());
    const int warmup = std::max(0, parser.value(warmupOption).toInt());
    const QString peersDir = parser.value(peersOption);

    QTemporaryDir dir;
    QProcess peer;
    peer.setProgram(parser.value(nodeOption));
    peer.setArguments({ peersDir + u"/ledger-peer.mjs"_s, u"http"_s, u"0"_s, dir.filePath(u"ledger.jsonl"_s) });
    peer.setWorkingDirectory(peersDir);
    peer.setProcessChannelMode(QProcess::MergedChannels);
    peer.start();
    QByteArray output;
    for (int i = 0; i < 300 && !output.contains('\n') && peer.waitForStarted(10000); ++i) {
        if (!peer.waitForReadyRead(100) && peer.state() != QProcess::Running)
            break;
        output += peer.readAll();
    }
    const qsizetype at = output.indexOf("listening ");
    const QByteArray rest = at < 0 ? QByteArray() : output.mid(at + 10);
    const quint16 port = quint16(rest.left(rest.indexOf('\n')).trimmed().toUInt());
    if (port == 0) {
        print(u"bench_heal: the ledger peer did not start: %1\n"_s.arg(QString::fromUtf8(output)));
        return 1;
    }
    const QUrl upstream(u"http://127.0.0.1:%1/mcp"_s.arg(port));
    FaultProxy proxy(upstream);
    QString error;
    if (!proxy.listen(0, &error)) {
        print(u"bench_heal: the fault proxy did not listen: %1\n"_s.arg(error));
        return 1;
    }

    ServerConnection healing(ledgerConfig(upstream));
    healing.setEndpointOverride(proxy.url());
    if (!connectAndWait(healing, &error)) {
        print(u"bench_heal: %1\n"_s.arg(error));
        return 1;
    }

    print(u"heal time over Streamable HTTP (ledger peer behind the fault proxy): %1 repetitions after %2 "
          "warm-up\n"_s.arg(reps)
              .arg(warmup));
    QList<double> healMs;
    QList<double> freshMs;
    // The heal's parts, from the record's own timestamps (whole milliseconds).
    QList<double> firstAttemptMs;
    QList<double> reconnectMs;
    QList<double> retryMs;
    QElapsedTimer timer;
    for (int i = 0; i < warmup + reps; ++i) {
        const bool timed = i >= warmup;

        // heal: expire-after on the next `read`, R4 reconnects and retries once.
        FaultProxy::Fault fault;
        fault.kind = FaultProxy::FaultKind::ExpireAfter;
        fault.method = u"tools/call"_s;
        fault.tool = u"read"_s;
        proxy.arm(fault);
        const QString before = healing.sessionId();
        timer.start();
        const std::optional<CallRecord> healed = callAndWait(healing, u"read"_s);
        const qint64 healNs = timer.nsecsElapsed();
        if (!healed || healed->outcome != CallOutcome::Success || healed->rule != "R4"_L1
            || healed->attempts.size() != 2 || healing.sessionId() == before) {
            print(
                u"bench_heal: repetition %1: the healed read was not an R4 success on a new session: %2\n"_s.arg(i).arg(
                    healed ? outcomeName(healed->outcome) + u' ' + healed->rule : u"no record"_s));
            return 1;
        }

        // plain + initialize: a fresh connection, ready, one read.
        {
            ServerConnection fresh(ledgerConfig(upstream));
            fresh.setEndpointOverride(proxy.url());
            timer.start();
            if (!connectAndWait(fresh, &error)) {
                print(u"bench_heal: repetition %1: fresh connection: %2\n"_s.arg(i).arg(error));
                return 1;
            }
            const std::optional<CallRecord> plain = callAndWait(fresh, u"read"_s);
            const qint64 freshNs = timer.nsecsElapsed();
            if (!plain || plain->outcome != CallOutcome::Success || plain->attempts.size() != 1) {
                print(u"bench_heal: repetition %1: the plain read failed: %2\n"_s.arg(i).arg(
                    plain ? outcomeName(plain->outcome) : u"no record"_s));
                return 1;
            }
            closeAndWait(fresh);
            if (timed) {
                healMs.append(double(healNs) / 1e6);
                freshMs.append(double(freshNs) / 1e6);
                const CallAttempt& first = healed->attempts.at(0);
                const CallAttempt& retry = healed->attempts.at(1);
                firstAttemptMs.append(double(first.endedAt - first.sentAt));
                reconnectMs.append(healed->reconnects.isEmpty() ? 0.0 : double(healed->reconnects.first().durationMs));
                retryMs.append(double(retry.endedAt - retry.sentAt));
            }
        }
    }
    closeAndWait(healing);
    peer.kill();
    peer.waitForFinished(5000);

    const double healMedian = percentile(healMs, 0.5);
    const double freshMedian = percentile(freshMs, 0.5);
    print(u"\n  %1 %2 %3 %4 %5\n"_s.arg(u"measurement"_s, -34)
              .arg(u"min ms"_s, 8)
              .arg(u"median"_s, 8)
              .arg(u"p90"_s, 8)
              .arg(u"max"_s, 8));
    const auto row = [](const QString& name, const QList<double>& values) {
        print(u"  %1 %2 %3 %4 %5\n"_s.arg(name, -34)
                  .arg(percentile(values, 0), 8, 'f', 2)
                  .arg(percentile(values, 0.5), 8, 'f', 2)
                  .arg(percentile(values, 0.9), 8, 'f', 2)
                  .arg(percentile(values, 1), 8, 'f', 2));
    };
    row(u"heal (read across expire-after)"_s, healMs);
    row(u"  first attempt (ran, then 404)"_s, firstAttemptMs);
    row(u"  reconnect to a new session"_s, reconnectMs);
    row(u"  retry on the new session"_s, retryMs);
    row(u"plain + initialize (fresh, 1 read)"_s, freshMs);
    const double ratio = healMedian / std::max(1e-9, freshMedian);
    print(u"\n  %1 %2   %3   %4\n"_s.arg(u"ratio"_s, -34).arg(u"value"_s, 6).arg(u"goal"_s, -7).arg(u"result"_s));
    print(u"  %1 %2   %3   %4\n"_s.arg(u"heal / (plain + initialize)"_s, -34)
              .arg(ratio, 6, 'f', 2)
              .arg(u"≤ %1"_s.arg(Goal), -7)
              .arg(ratio <= Goal ? u"PASS"_s : u"MISS"_s));
    return 0;
}
