// The HTTP call-overhead benchmark (DESIGN.md, "Performance goals": "Call overhead over HTTP"). Three
// clients make the same sequential tools/call round trips ("echo", {message: "hello"}) to the
// project's C++ Streamable HTTP echo peer (httpechopeer), in one run:
// - the floor: a bare blocking keep-alive HTTP/1.1 loop (httpfloorclient.h), in a thread of this process;
// - our engine on the path users run: ServerConnection::callTool with call records, as
//   `mcpscope-cli run` and the app do, each call started from the previous one's done;
// - the official TypeScript SDK client on the pinned Node 22 (sdkhttpclient.mjs).
// Then concurrency: 16 calls of `sleep` {ms: 1000} started at once over ONE session, timed from the
// first start to the last answer, for the engine and the SDK client.
// Goals: sequential engine within 1.5x of the floor; the 16 concurrent 1 s calls done in 1.3 s.
//
// The peer answers every POST with a plain JSON body, so unlike server-everything (bench_httpcall)
// it adds next to nothing of its own, and the floor is close to the cost of loopback HTTP itself.
//
// Timing is only printed, never asserted: the machine's load decides the numbers. The run fails only
// when something fails functionally (the peer does not start, a call fails or does not echo). The
// clients take turns over several rounds, in alternating order; the best round counts. By default
// the run pins itself, and so every thread and child it starts, to one CPU, as bench_stdiocall does
// and for the same reason: a round trip then costs the CPU work of both sides, which is what the
// ratio compares, not the wake-up latency of a second CPU on a loaded machine. --no-pin measures that
// way anyway. Next to wall time per call, each client's own CPU time per call is printed (the floor's
// thread, this whole process for the engine, the node process for the SDK): load from elsewhere
// stretches the first, hardly the second.

#include "benchsupport.h"
#include "engine/serverconnection.h"
#include "httpfloorclient.h"
#include "session/clientsession.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>
#include <limits>
#include <sched.h>
#include <sys/prctl.h>
#include <thread>
#include <vector>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

using mcpscope::bench::print;

constexpr int RunTimeoutMs = 300'000;
constexpr int PeerStartTimeoutMs = 10'000;
constexpr double EngineFloorGoal = 1.5;
constexpr double ConcurrentGoalFactor = 1.3; ///< wall time of the burst / the time one call sleeps

struct Config
{
    QString peer;
    QString node;
    QString sdkScript;
    QString peersDir;
    QString url; ///< set once the peer listens
    int calls = 3000;
    int warmup = 1000;
    int rounds = 3;
    int sleepCalls = 16;
    int sleepMs = 1000;
    bool pin = true;
};

enum class ClientKind { Floor, Engine, Sdk };

struct Measurement
{
    bool ok = false;
    double usPerCall = 0; ///< sequential: the timed calls' wall time over their number
    double p50Us = 0;
    double p99Us = 0;
    double cpuUsPerCall = 0; ///< the client's CPU time (all its threads) over the timed calls, per call
    bool hasBurst = false;
    double burstWallMs = 0; ///< the concurrent sleep calls, first start to last answer
    QString label; ///< what ran, when the helper says more than its name (the SDK's version)
    QString error;
};

struct ClientRow
{
    ClientRow(ClientKind kind, QString name)
        : kind(kind)
        , name(std::move(name))
    { }

    ClientKind kind;
    QString name;
    bool selected = true;
    bool failed = false;
    Measurement best; ///< the round with the lowest µs/call
    /// The lowest burst wall time of any round: the burst and the sequential calls vary apart.
    double bestBurstMs = std::numeric_limits<double>::infinity();
    bool measured = false;
};

// Children die with us: a CTest timeout must not leave a peer listening on a port.
void dieWithParent(QProcess& process)
{
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
}

void summarize(std::vector<qint64>& latenciesNs, qint64 elapsedNs, qint64 cpuNs, Measurement* m)
{
    std::sort(latenciesNs.begin(), latenciesNs.end());
    const auto percentile = [&](double p) {
        const auto index = std::min(latenciesNs.size() - 1, size_t(p / 100.0 * double(latenciesNs.size())));
        return double(latenciesNs[index]) / 1000.0;
    };
    m->usPerCall = double(elapsedNs) / 1000.0 / double(latenciesNs.size());
    m->p50Us = percentile(50);
    m->p99Us = percentile(99);
    m->cpuUsPerCall = double(cpuNs) / 1000.0 / double(latenciesNs.size());
}

/// Starts httpechopeer on a free loopback port; returns its MCP endpoint, or empty with error set.
QString startPeer(QProcess& peer, const QString& program, QString* error)
{
    peer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    dieWithParent(peer);
    peer.start(program, { u"0"_s });
    QByteArray output;
    QElapsedTimer clock;
    clock.start();
    while (!output.contains('\n') && clock.elapsed() < PeerStartTimeoutMs && peer.state() != QProcess::NotRunning) {
        peer.waitForReadyRead(100);
        output += peer.readAllStandardOutput();
    }
    const QByteArray line = output.left(output.indexOf('\n')).trimmed();
    const quint16 port = line.startsWith("listening ") ? quint16(line.mid(10).toUInt()) : 0;
    if (port == 0) {
        *error = u"the HTTP echo peer %1 did not start listening within %2 s: %3 %4"_s.arg(program)
                     .arg(PeerStartTimeoutMs / 1000)
                     .arg(peer.errorString(), QString::fromUtf8(output));
        return {};
    }
    return u"http://127.0.0.1:%1/mcp"_s.arg(port);
}

// The floor blocks, so it runs on a thread of its own while this one's event loop waits.
Measurement runFloor(const Config& config)
{
    Measurement result;
    QEventLoop loop;
    HttpFloorRun run;
    std::thread worker([&] {
        const std::string version = ClientSession::supportedProtocolVersions().constFirst().toStdString();
        run = runHttpFloor(QUrl(config.url), version, config.warmup, config.calls, R"("text":"hello")");
        QMetaObject::invokeMethod(
            &loop, [&loop] { loop.quit(); }, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
    if (!run.ok) {
        result.error = run.error;
        return result;
    }
    summarize(run.latenciesNs, run.elapsedNs, run.cpuNs, &result);
    result.ok = true;
    return result;
}

bool echoesHello(const CallRecord& record)
{
    const QJsonArray content = record.result.toObject().value(QLatin1String("content")).toArray();
    return content.size() == 1 && content.at(0).toObject().value(QLatin1String("text")) == QLatin1String("hello");
}

ServerConfig peerConfig(const Config& config)
{
    ServerConfig server;
    server.name = u"httpechopeer"_s;
    server.transport = TransportKind::StreamableHttp;
    server.url = QUrl(config.url);
    return server;
}

// One ServerConnection, one session: the sequential warm-up and timed calls, then the sleep burst.
Measurement runEngine(const Config& config)
{
    Measurement result;
    QEventLoop loop; // declared first so it outlives the connection and its lambdas
    ServerConnection connection(peerConfig(config));
    bool stopped = false;
    auto stop = [&](const QString& error) {
        if (result.error.isEmpty())
            result.error = error;
        stopped = true;
        loop.quit();
    };
    QObject::connect(&connection, &ServerConnection::failed, &loop, stop);
    QTimer::singleShot(RunTimeoutMs, &loop, [&] { stop(u"the engine did not finish within the time limit"_s); });
    // The app and `mcpscope-cli run --log` take every finished record; so does this, to pay the same.
    int finishedRecords = 0;
    QObject::connect(&connection, &ServerConnection::callUpdated, &loop, [&](const CallRecord& record) {
        if (record.isFinished())
            ++finishedRecords;
    });

    const QString echo = u"echo"_s;
    const QJsonObject echoArguments { { u"message"_s, u"hello"_s } };
    const CallOptions options;
    const int total = config.warmup + config.calls;
    int completed = 0;
    std::vector<qint64> latenciesNs;
    latenciesNs.reserve(size_t(config.calls));
    QElapsedTimer clock;
    clock.start();
    qint64 timedStartNs = 0;
    qint64 cpuStartNs = 0; // the whole process: Qt's HTTP thread does part of each call
    qint64 callStartNs = 0;

    std::function<void()> startBurst;
    std::function<void(const CallRecord&)> onEcho;
    auto callNext = [&] {
        callStartNs = clock.nsecsElapsed();
        connection.callTool(echo, echoArguments, options, onEcho);
    };
    onEcho = [&](const CallRecord& record) {
        if (stopped)
            return;
        const qint64 endNs = clock.nsecsElapsed();
        if (record.outcome != CallOutcome::Success || !echoesHello(record)) {
            const QByteArray json = record.toCompactJson();
            stop(u"call %1 did not echo \"hello\": %2"_s.arg(completed).arg(QString::fromUtf8(json)));
            return;
        }
        if (completed >= config.warmup)
            latenciesNs.push_back(endNs - callStartNs);
        if (++completed == config.warmup) {
            timedStartNs = clock.nsecsElapsed();
            cpuStartNs = cpuTimeNs(true);
        }
        if (completed == total) {
            summarize(latenciesNs, endNs - timedStartNs, cpuTimeNs(true) - cpuStartNs, &result);
            startBurst();
            return;
        }
        callNext();
    };

    int burstDone = 0;
    qint64 burstStartNs = 0;
    startBurst = [&] {
        if (config.sleepCalls == 0) {
            result.ok = true;
            loop.quit();
            return;
        }
        burstStartNs = clock.nsecsElapsed();
        const QJsonObject sleepArguments { { u"ms"_s, config.sleepMs } };
        for (int i = 0; i < config.sleepCalls && !stopped; ++i) {
            connection.callTool(u"sleep"_s, sleepArguments, options, [&, i](const CallRecord& record) {
                if (stopped)
                    return;
                if (record.outcome != CallOutcome::Success) {
                    stop(u"sleep call %1 failed: %2"_s.arg(i).arg(QString::fromUtf8(record.toCompactJson())));
                    return;
                }
                if (++burstDone < config.sleepCalls)
                    return;
                result.hasBurst = true;
                result.burstWallMs = double(clock.nsecsElapsed() - burstStartNs) / 1e6;
                result.ok = true;
                loop.quit();
            });
        }
    };

    bool started = false;
    QObject::connect(&connection, &ServerConnection::ready, &loop, [&] {
        if (std::exchange(started, true))
            return; // ready fires again after a reconnect; none is expected here
        const ToolInfo* tool = connection.session() ? connection.session()->tool(echo) : nullptr;
        if (!tool || !tool->isReadOnly()) {
            stop(u"the HTTP echo peer did not list a read-only tool \"echo\""_s);
            return;
        }
        if (config.warmup == 0) {
            timedStartNs = clock.nsecsElapsed();
            cpuStartNs = cpuTimeNs(true);
        }
        callNext();
    });
    connection.connectToServer();
    loop.exec();

    QObject::disconnect(&connection, nullptr, &loop, nullptr);
    const int expectedRecords = total + (result.hasBurst ? config.sleepCalls : 0);
    if (result.ok && finishedRecords != expectedRecords) {
        result.ok = false;
        result.error = u"%1 finished call records for %2 calls"_s.arg(finishedRecords).arg(expectedRecords);
    }
    // disconnectFromServer ends the session on the server (DELETE); the limit only guards against a hang.
    QObject::connect(&connection, &ServerConnection::closed, &loop, &QEventLoop::quit);
    QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
    connection.disconnectFromServer();
    if (connection.state() != ServerConnection::State::Closed)
        loop.exec();
    if (!result.error.isEmpty())
        result.ok = false;
    return result;
}

// The SDK client is a separate process that times itself and ends with one JSON line on stdout.
// Its stderr goes to ours, so its errors show in CTest.
Measurement runSdk(const Config& config)
{
    Measurement result;
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    dieWithParent(process);
    QStringList arguments { config.sdkScript, config.url, QString::number(config.calls), QString::number(config.warmup),
        u"0"_s, config.peersDir, u"--echo-text"_s, u"hello"_s };
    if (config.sleepCalls > 0)
        arguments << u"--sleep"_s << u"%1:%2"_s.arg(config.sleepCalls).arg(config.sleepMs);
    process.start(config.node, arguments);
    if (!process.waitForStarted()) {
        result.error = u"could not start %1: %2"_s.arg(config.node, process.errorString());
        return result;
    }
    if (!process.waitForFinished(RunTimeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.error = u"the SDK client did not finish within %1 s"_s.arg(RunTimeoutMs / 1000);
        return result;
    }
    const QByteArray output = process.readAllStandardOutput().trimmed();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        result.error = u"the SDK client failed (exit code %1)"_s.arg(process.exitCode());
        return result;
    }
    const QByteArray lastLine = output.mid(output.lastIndexOf('\n') + 1);
    const QJsonObject report = QJsonDocument::fromJson(lastLine).object();
    const QJsonObject sequential = report.value(u"sequential"_s).toObject();
    const QJsonObject sleep = report.value(u"sleep"_s).toObject();
    if (!sequential.value(u"seconds"_s).isDouble() || (config.sleepCalls > 0 && !sleep.value(u"wallMs"_s).isDouble())) {
        result.error = u"the SDK client printed no result: %1"_s.arg(QString::fromUtf8(lastLine));
        return result;
    }
    result.ok = true;
    result.usPerCall = sequential.value(u"seconds"_s).toDouble() * 1e6 / double(config.calls);
    result.p50Us = sequential.value(u"p50Us"_s).toDouble();
    result.p99Us = sequential.value(u"p99Us"_s).toDouble();
    result.cpuUsPerCall = sequential.value(u"cpuUsPerCall"_s).toDouble();
    result.hasBurst = config.sleepCalls > 0;
    result.burstWallMs = sleep.value(u"wallMs"_s).toDouble();
    result.label
        = u"SDK %1, Node %2"_s.arg(report.value(u"sdkVersion"_s).toString(), report.value(u"node"_s).toString());
    return result;
}

Measurement measure(ClientKind kind, const Config& config)
{
    switch (kind) {
    case ClientKind::Floor:
        return runFloor(config);
    case ClientKind::Engine:
        return runEngine(config);
    case ClientKind::Sdk:
        return runSdk(config);
    }
    return {};
}

QString resultLine(const QString& name, const Measurement& m)
{
    return u"%1 %2 %3 %4 %5 %6"_s.arg(name, -22)
        .arg(m.usPerCall, 9, 'f', 1)
        .arg(m.p50Us, 9, 'f', 1)
        .arg(m.p99Us, 9, 'f', 1)
        .arg(m.cpuUsPerCall, 9, 'f', 1)
        .arg(m.hasBurst ? QString::number(m.burstWallMs, 'f', 0) : u"-"_s, 12);
}

QString ratioLine(const QString& name, const QString& value, const QString& goalText, const QString& verdict)
{
    return u"  %1 %2   %3   %4\n"_s.arg(name, -34).arg(value, 8).arg(goalText, -9).arg(verdict);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"tools/call over Streamable HTTP to the C++ echo peer: floor, engine and SDK, "
                                     "sequential and a burst of concurrent sleep calls."_s);
    parser.addHelpOption();
    const Config defaults;
    const QCommandLineOption callsOption(
        u"calls"_s, u"Timed sequential calls per client and round."_s, u"n"_s, QString::number(defaults.calls));
    const QCommandLineOption warmupOption(
        u"warmup"_s, u"Untimed calls before timing."_s, u"n"_s, QString::number(defaults.warmup));
    const QCommandLineOption roundsOption(
        u"rounds"_s, u"Rounds; the best one counts."_s, u"n"_s, QString::number(defaults.rounds));
    const QCommandLineOption sleepCallsOption(u"sleep-calls"_s, u"Concurrent sleep calls in the burst (0: no burst)."_s,
        u"n"_s, QString::number(defaults.sleepCalls));
    const QCommandLineOption sleepMsOption(
        u"sleep-ms"_s, u"How long each sleep call sleeps."_s, u"ms"_s, QString::number(defaults.sleepMs));
    const QCommandLineOption onlyOption(
        u"only"_s, u"Run only these clients (comma-separated: floor, engine, sdk)."_s, u"clients"_s);
    const QCommandLineOption noPinOption(u"no-pin"_s, u"Let the clients and the peer run on any CPU."_s);
    const QCommandLineOption peerOption(
        u"echo-peer"_s, u"The HTTP echo peer."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_HTTPECHOPEER));
    const QCommandLineOption nodeOption(u"node"_s, u"The pinned Node 22."_s, u"path"_s, QStringLiteral(MCPSCOPE_NODE));
    const QCommandLineOption sdkOption(
        u"sdk-client"_s, u"The SDK client script."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_SDKHTTPCLIENT));
    const QCommandLineOption peersOption(
        u"peers-dir"_s, u"Where the pinned SDK is installed."_s, u"path"_s, QStringLiteral(MCPSCOPE_PEERS_DIR));
    parser.addOptions({ callsOption, warmupOption, roundsOption, sleepCallsOption, sleepMsOption, onlyOption,
        noPinOption, peerOption, nodeOption, sdkOption, peersOption });
    parser.process(app);

    Config config;
    config.peer = parser.value(peerOption);
    config.node = parser.value(nodeOption);
    config.sdkScript = parser.value(sdkOption);
    config.peersDir = parser.value(peersOption);
    config.calls = std::max(1, parser.value(callsOption).toInt());
    config.warmup = std::max(0, parser.value(warmupOption).toInt());
    config.rounds = std::max(1, parser.value(roundsOption).toInt());
    config.sleepCalls = std::max(0, parser.value(sleepCallsOption).toInt());
    config.sleepMs = std::max(1, parser.value(sleepMsOption).toInt());
    config.pin = !parser.isSet(noPinOption);

    QList<ClientRow> rows { { ClientKind::Floor, u"floor (bare HTTP loop)"_s },
        { ClientKind::Engine, u"McpScope engine"_s }, { ClientKind::Sdk, u"TypeScript SDK client"_s } };
    if (parser.isSet(onlyOption)
        && !bench::selectOnly(parser.value(onlyOption), { u"floor"_s, u"engine"_s, u"sdk"_s }, rows))
        return 2;

    QString placement = u"any CPU"_s;
    if (config.pin) {
        // Threads and children started from here on inherit the mask: the floor's thread, Qt's HTTP
        // thread, the peer and node.
        placement = bench::pinToCurrentCpu();
    }

    QProcess peer;
    QString error;
    config.url = startPeer(peer, config.peer, &error);
    if (config.url.isEmpty()) {
        print(u"FAILED: %1\n"_s.arg(error));
        return 1;
    }
    print(u"HTTP call overhead: tools/call echo to httpechopeer at %1, %2 timed sequential calls per client and "
          "round after %3 warm-up calls, then %4 concurrent sleep calls of %5 ms on one session; %6 round(s), %7\n"_s
              .arg(config.url)
              .arg(config.calls)
              .arg(config.warmup)
              .arg(config.sleepCalls)
              .arg(config.sleepMs)
              .arg(config.rounds)
              .arg(placement));

    const QString header = u"%1 %2 %3 %4 %5 %6"_s.arg(u"client"_s, -22)
                               .arg(u"µs/call"_s, 9)
                               .arg(u"p50 µs"_s, 9)
                               .arg(u"p99 µs"_s, 9)
                               .arg(u"CPU µs"_s, 9)
                               .arg(u"burst ms"_s, 12);
    print(u"\n           "_s + header + u'\n');
    bool anyFailed = false;
    for (int round = 1; round <= config.rounds; ++round) {
        // Alternate the order, so that no client always follows the same other client's load.
        QList<qsizetype> order { 0, 1, 2 };
        if (round % 2 == 0)
            std::reverse(order.begin(), order.end());
        for (const qsizetype index : order) {
            ClientRow& row = rows[index];
            if (!row.selected || row.failed)
                continue;
            const Measurement m = measure(row.kind, config);
            if (!m.ok) {
                row.failed = anyFailed = true;
                print(u"  round %1  %2 FAILED: %3\n"_s.arg(round).arg(row.name, -22).arg(m.error));
                continue;
            }
            print(u"  round %1  %2\n"_s.arg(round).arg(resultLine(row.name, m)));
            if (!row.measured || m.usPerCall < row.best.usPerCall)
                row.best = m;
            if (m.hasBurst)
                row.bestBurstMs = std::min(row.bestBurstMs, m.burstWallMs);
            row.measured = true;
        }
        if (peer.state() != QProcess::Running) {
            print(u"FAILED: the HTTP echo peer exited (exit code %1)\n"_s.arg(peer.exitCode()));
            return 1;
        }
    }
    peer.kill();
    peer.waitForFinished();

    print(u"\n  best round (sequential by µs/call; burst by wall time on its own)\n  "_s + header + u'\n');
    for (ClientRow& row : rows) {
        if (!row.selected)
            continue;
        if (!row.measured) {
            print(u"  %1 failed\n"_s.arg(row.name, -22));
            continue;
        }
        Measurement shown = row.best;
        shown.hasBurst = row.kind != ClientKind::Floor && config.sleepCalls > 0;
        shown.burstWallMs = row.bestBurstMs;
        print(u"  "_s + resultLine(row.name, shown) + u'\n');
        if (!row.best.label.isEmpty())
            print(u"  %1 (%2)\n"_s.arg(QString(), -22).arg(row.best.label));
    }

    const auto usable = [&](ClientKind kind) { return rows.at(qsizetype(kind)).measured; };
    const auto best = [&](ClientKind kind) { return rows.at(qsizetype(kind)).best.usPerCall; };
    QString ratios;
    if (usable(ClientKind::Engine) && usable(ClientKind::Floor)) {
        const double ratio = best(ClientKind::Engine) / best(ClientKind::Floor);
        ratios += ratioLine(u"engine / floor, sequential"_s, QString::number(ratio, 'f', 2),
            u"≤ %1"_s.arg(EngineFloorGoal), ratio <= EngineFloorGoal ? u"PASS"_s : u"MISS"_s);
    }
    if (usable(ClientKind::Sdk) && usable(ClientKind::Engine)) {
        const double ratio = best(ClientKind::Sdk) / best(ClientKind::Engine);
        ratios += ratioLine(u"SDK / engine, sequential"_s, QString::number(ratio, 'f', 2), u"-"_s, u"-"_s);
    }
    // Client CPU per call says what each side costs whatever the machine's load adds to the wall time.
    const auto cpu = [&](ClientKind kind) { return rows.at(qsizetype(kind)).best.cpuUsPerCall; };
    if (usable(ClientKind::Engine) && usable(ClientKind::Floor) && cpu(ClientKind::Floor) > 0) {
        ratios += ratioLine(u"engine / floor, client CPU per call"_s,
            QString::number(cpu(ClientKind::Engine) / cpu(ClientKind::Floor), 'f', 2), u"-"_s, u"-"_s);
    }
    if (usable(ClientKind::Sdk) && usable(ClientKind::Engine) && cpu(ClientKind::Engine) > 0) {
        ratios += ratioLine(u"SDK / engine, client CPU per call"_s,
            QString::number(cpu(ClientKind::Sdk) / cpu(ClientKind::Engine), 'f', 2), u"-"_s, u"-"_s);
    }
    if (config.sleepCalls > 0) {
        const double goalMs = ConcurrentGoalFactor * config.sleepMs;
        for (const ClientKind kind : { ClientKind::Engine, ClientKind::Sdk }) {
            const ClientRow& row = rows.at(qsizetype(kind));
            if (!row.measured)
                continue;
            // Only the engine's burst has a goal; the SDK's says what a client without a cap reaches.
            const bool hasGoal = kind == ClientKind::Engine;
            ratios += ratioLine(u"%1 x %2 ms sleep, %3 (ms)"_s.arg(config.sleepCalls)
                                    .arg(config.sleepMs)
                                    .arg(hasGoal ? u"engine"_s : u"SDK"_s),
                QString::number(row.bestBurstMs, 'f', 0), hasGoal ? u"≤ %1"_s.arg(goalMs, 0, 'f', 0) : u"-"_s,
                hasGoal ? (row.bestBurstMs <= goalMs ? u"PASS"_s : u"MISS"_s) : u"-"_s);
        }
    }
    if (!ratios.isEmpty()) {
        print(u"\n"_s + ratioLine(u"measure"_s, u"value"_s, u"goal"_s, u"result"_s));
        print(ratios);
    }
    return anyFailed ? 1 : 0;
}
