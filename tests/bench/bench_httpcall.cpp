// The Streamable HTTP throughput benchmark (DESIGN.md, "Performance goals"). Three clients make the
// same tools/call round trips ("echo", {message: "hello"}) to the same real server, in one run:
// - the floor: a bare blocking HTTP/1.1 loop on one keep-alive socket, in a thread of this process;
// - our engine: ClientSession over StreamableHttpTransport, in this process;
// - the official TypeScript SDK client on the pinned Node 22 (sdkhttpclient.mjs).
// The server is @modelcontextprotocol/server-everything in streamableHttp mode on a free loopback
// port, started once on the pinned Node 22 and shared by every client and round; each client opens
// its own MCP session on it (and ends it with DELETE).
//
// The engine and the SDK client run two modes, each after untimed warm-up calls:
// - sequential: one call in flight, each started from the previous reply's callback;
// - concurrent: --concurrency calls in flight at all times (a new one starts as each ends).
// The floor runs the sequential mode only. Each reports calls/s and the p50 and p99 latency of one
// call (from the call to its reply). Goal: the engine's sequential throughput at least 2x the SDK's.
//
// The floor says how much of each call is the server's, which no client can win back. With protocol
// version 2025-11-25 (what the engine and the SDK negotiate) this server answers every POST with an
// SSE stream that starts with a priming event, and the SDK's Node adapter (@hono/node-server) then
// waits a setTimeout(0), about 1 ms, before it writes the response. That caps every client at well
// under 1,000 sequential calls/s here, however fast it is; compare engine / floor as well.
//
// Timing is only printed, never asserted: the machine's load decides the numbers. The run fails
// only when something fails functionally (the server does not start, a call errors or does not
// echo). The clients take turns over several rounds, in alternating order so that none always
// meets the server right after the same other client; the best round counts. --url measures
// against a server started elsewhere (to profile either side alone).

#include "benchsupport.h"
#include "httpfloorclient.h"
#include "session/clientsession.h"
#include "transport/streamablehttptransport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTcpServer>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <sys/prctl.h>
#include <thread>
#include <vector>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

using mcpscope::bench::print;

constexpr int RunTimeoutMs = 300'000;
constexpr int ServerStartTimeoutMs = 30'000;
constexpr double SequentialGoal = 2.0; ///< engine / SDK sequential throughput
constexpr qsizetype ServerLogTail = 4096;

struct Config
{
    QString node;
    QString sdkScript;
    QString peersDir;
    QString url; ///< set once the server listens
    int calls = 3000;
    int warmup = 300;
    int concurrency = 16;
    int rounds = 2;
};

enum class ClientKind { Floor, Engine, Sdk };
enum class Mode { Sequential, Concurrent };
constexpr int ModeCount = 2;

struct ModeResult
{
    double callsPerSec = 0;
    double p50Us = 0;
    double p99Us = 0;
};

struct Measurement
{
    bool ok = false;
    ModeResult modes[ModeCount];
    bool hasMode[ModeCount] = { true, true };
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
    ModeResult best[ModeCount]; ///< per mode, the round with the highest throughput
    bool hasMode[ModeCount] = { false, false };
    QString label;
};

// Children die with us: a CTest timeout must not leave a server listening on a port.
void dieWithParent(QProcess& process)
{
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
}

QString modeName(Mode mode, const Config& config)
{
    return mode == Mode::Sequential ? u"sequential"_s : u"%1 in flight"_s.arg(config.concurrency);
}

/// server-everything on the pinned Node 22, its output drained all along (it logs every POST to
/// stdout, and a full pipe would stall it) and its tail kept for error messages.
class Server
{
public:
    explicit Server(const Config& config)
        : m_config(config)
    { }

    ~Server() { stop(); }

    QString version() const { return m_version; }

    /// Starts the server on a free loopback port; returns its MCP endpoint, or empty with error set.
    QString start(QString* error)
    {
        const QString package = m_config.peersDir + u"/node_modules/@modelcontextprotocol/server-everything"_s;
        QFile packageJson(package + u"/package.json"_s);
        if (packageJson.open(QIODevice::ReadOnly))
            m_version = QJsonDocument::fromJson(packageJson.readAll()).object().value(u"version"_s).toString();

        quint16 port = 0;
        {
            // Asking the kernel for a free port and freeing it again leaves a short race, which a
            // loopback benchmark can live with: the server's EADDRINUSE would be reported below.
            QTcpServer probe;
            if (!probe.listen(QHostAddress::LocalHost, 0)) {
                *error = u"no free loopback port: %1"_s.arg(probe.errorString());
                return {};
            }
            port = probe.serverPort();
        }

        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"PORT"_s, QString::number(port));
        m_process.setProcessEnvironment(environment);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        dieWithParent(m_process);
        QObject::connect(&m_process, &QProcess::readyRead, &m_process, [this] { drain(); });

        QEventLoop loop;
        bool listening = false;
        const QByteArray marker = "listening on port " + QByteArray::number(port);
        QObject::connect(&m_process, &QProcess::readyRead, &loop, [&] {
            if (m_log.contains(marker)) {
                listening = true;
                loop.quit();
            }
        });
        QObject::connect(&m_process, &QProcess::finished, &loop, &QEventLoop::quit);
        QObject::connect(&m_process, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
        QTimer::singleShot(ServerStartTimeoutMs, &loop, &QEventLoop::quit);
        m_process.start(m_config.node, { package + u"/dist/index.js"_s, u"streamableHttp"_s });
        loop.exec();
        QObject::disconnect(&m_process, nullptr, &loop, nullptr);
        if (!listening) {
            *error = u"server-everything did not start listening on port %1 within %2 s (%3)\n%4"_s.arg(port)
                         .arg(ServerStartTimeoutMs / 1000)
                         .arg(m_process.errorString(), QString::fromUtf8(m_log));
            stop();
            return {};
        }
        return u"http://127.0.0.1:%1/mcp"_s.arg(port);
    }

    /// Measures against a server someone else runs (for profiling either side on its own).
    QString useExternal(const QString& url)
    {
        m_external = true;
        m_version = u"(external)"_s;
        return url;
    }

    bool running() const { return m_external || m_process.state() == QProcess::Running; }
    QString logTail() const { return QString::fromUtf8(m_log); }

    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate(); // Node's default SIGTERM action ends it; it handles only SIGINT itself
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }

private:
    void drain()
    {
        m_log.append(m_process.readAll());
        if (m_log.size() > 2 * ServerLogTail)
            m_log.remove(0, m_log.size() - ServerLogTail);
    }

    const Config& m_config;
    QProcess m_process;
    QByteArray m_log;
    QString m_version;
    bool m_external = false;
};

ModeResult summarize(std::vector<qint64>& latenciesNs, int calls, qint64 elapsedNs)
{
    ModeResult result;
    std::sort(latenciesNs.begin(), latenciesNs.end());
    const auto percentile = [&](double p) {
        const auto index = std::min(latenciesNs.size() - 1, size_t(p / 100.0 * double(latenciesNs.size())));
        return double(latenciesNs[index]) / 1000.0;
    };
    result.callsPerSec = double(calls) * 1e9 / double(elapsedNs);
    result.p50Us = percentile(50);
    result.p99Us = percentile(99);
    return result;
}

// The floor (httpfloorclient.h), sequential only. It offers the same protocol version as the engine,
// so the server takes the same path for it.
Measurement runFloorThread(const Config& config)
{
    Measurement result;
    result.hasMode[int(Mode::Concurrent)] = false;
    const std::string version = ClientSession::supportedProtocolVersions().constFirst().toStdString();
    HttpFloorRun run = runHttpFloor(QUrl(config.url), version, config.warmup, config.calls, "Echo: hello");
    if (!run.ok) {
        result.error = run.error;
        return result;
    }
    result.modes[int(Mode::Sequential)] = summarize(run.latenciesNs, config.calls, run.elapsedNs);
    result.ok = true;
    return result;
}

// The floor blocks, so it runs on a thread of its own while this one drains the server's output.
Measurement runFloor(const Config& config)
{
    Measurement result;
    QEventLoop loop;
    std::thread worker([&] {
        result = runFloorThread(config);
        QMetaObject::invokeMethod(
            &loop, [&loop] { loop.quit(); }, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
    return result;
}

bool echoesHello(const Reply& reply)
{
    const QJsonObject result = reply.resultObject();
    const QJsonArray content = result.value(QLatin1String("content")).toArray();
    return !result.value(QLatin1String("isError")).toBool() && content.size() == 1
        && content.at(0).toObject().value(QLatin1String("text")) == QLatin1String("Echo: hello");
}

// One session, both modes: the sequential warm-up and timed calls, then the concurrent ones.
Measurement runEngine(const Config& config, Server& server)
{
    Measurement result;
    QEventLoop loop; // declared first so it outlives the session and its connections
    HttpTransportOptions transportOptions;
    transportOptions.serverName = u"server-everything"_s;
    transportOptions.url = QUrl(config.url);
    ClientSession::Options sessionOptions;
    sessionOptions.serverName = transportOptions.serverName;
    ClientSession session(std::make_unique<StreamableHttpTransport>(transportOptions), sessionOptions);

    bool stopped = false;
    auto stop = [&](const QString& error) {
        if (result.error.isEmpty())
            result.error = error;
        stopped = true;
        loop.quit();
    };
    QObject::connect(&session, &ClientSession::failed, &loop, stop);
    QTimer::singleShot(RunTimeoutMs, &loop, [&] { stop(u"the engine did not finish within the time limit"_s); });
    QTimer serverWatch;
    serverWatch.setInterval(250);
    QObject::connect(&serverWatch, &QTimer::timeout, &loop, [&] {
        if (!server.running())
            stop(u"the server exited:\n"_s + server.logTail());
    });
    serverWatch.start();

    const QString tool = u"echo"_s;
    const QJsonObject arguments { { u"message"_s, u"hello"_s } };
    const RequestOptions options;
    QElapsedTimer clock;
    clock.start();

    // The phases, in order; each runs `count` calls with `width` of them in flight at all times.
    struct Phase
    {
        Mode mode;
        int count;
        int width;
        bool timed;
    };
    const std::vector<Phase> phases { { Mode::Sequential, config.warmup, 1, false },
        { Mode::Sequential, config.calls, 1, true }, { Mode::Concurrent, config.warmup, config.concurrency, false },
        { Mode::Concurrent, config.calls, config.concurrency, true } };
    size_t phaseIndex = 0;
    int started = 0;
    int finished = 0;
    int callNumber = 0;
    qint64 phaseStartNs = 0;
    std::vector<qint64> latenciesNs;
    latenciesNs.reserve(size_t(config.calls));

    std::function<void()> startPhase;
    std::function<void()> callOne;
    callOne = [&] {
        ++started;
        const qint64 startNs = clock.nsecsElapsed();
        const int number = callNumber++;
        session.callTool(tool, arguments, options, [&, startNs, number](const Reply& reply) {
            if (stopped)
                return;
            const qint64 endNs = clock.nsecsElapsed();
            if (!reply.ok()) {
                stop(u"call %1 failed: %2"_s.arg(number).arg(reply.describe()));
                return;
            }
            if (!echoesHello(reply)) {
                const QByteArray json = QJsonDocument(reply.resultObject()).toJson(QJsonDocument::Compact);
                stop(u"call %1 did not echo \"hello\": %2"_s.arg(number).arg(QString::fromUtf8(json)));
                return;
            }
            const Phase& phase = phases[phaseIndex];
            if (phase.timed)
                latenciesNs.push_back(endNs - startNs);
            ++finished;
            if (started < phase.count) {
                callOne();
                return;
            }
            if (finished < phase.count)
                return;
            if (phase.timed) {
                result.modes[int(phase.mode)] = summarize(latenciesNs, phase.count, endNs - phaseStartNs);
                latenciesNs.clear();
            }
            ++phaseIndex;
            startPhase();
        });
    };
    startPhase = [&] {
        // Skip empty phases (--warmup 0).
        while (phaseIndex < phases.size() && phases[phaseIndex].count == 0)
            ++phaseIndex;
        if (phaseIndex == phases.size()) {
            result.ok = true;
            loop.quit();
            return;
        }
        const Phase& phase = phases[phaseIndex];
        started = finished = 0;
        phaseStartNs = clock.nsecsElapsed();
        const int width = std::min(phase.width, phase.count);
        for (int i = 0; i < width && !stopped; ++i)
            callOne();
    };

    QObject::connect(&session, &ClientSession::ready, &loop, [&] {
        session.listTools([&](const Reply& reply) {
            if (!reply.ok() || !session.tool(tool)) {
                stop(u"the server did not list a tool \"echo\""_s);
                return;
            }
            startPhase();
        });
    });
    session.start();
    loop.exec();

    serverWatch.stop();
    QObject::disconnect(&session, nullptr, &loop, nullptr);
    if (session.state() != ClientSession::State::Closed && session.state() != ClientSession::State::Failed) {
        // close() ends the session on the server (DELETE); the limit only guards against a hang.
        QObject::connect(&session, &ClientSession::closed, &loop, &QEventLoop::quit);
        QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
        session.close();
        loop.exec();
    }
    if (!result.error.isEmpty())
        result.ok = false;
    return result;
}

ModeResult parseMode(const QJsonObject& mode)
{
    return { mode.value(u"callsPerSec"_s).toDouble(), mode.value(u"p50Us"_s).toDouble(),
        mode.value(u"p99Us"_s).toDouble() };
}

// The SDK client is a separate process that times itself and ends with one JSON line on stdout.
// It runs while our event loop keeps draining the server's output. Its stderr goes to ours.
Measurement runSdk(const Config& config, Server& server)
{
    Measurement result;
    QEventLoop loop;
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    dieWithParent(process);
    bool done = false;
    QObject::connect(&process, &QProcess::finished, &loop, [&] {
        done = true;
        loop.quit();
    });
    QObject::connect(&process, &QProcess::errorOccurred, &loop, [&](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            loop.quit();
    });
    QTimer serverWatch;
    serverWatch.setInterval(250);
    QObject::connect(&serverWatch, &QTimer::timeout, &loop, [&] {
        if (!server.running())
            loop.quit();
    });
    serverWatch.start();
    QTimer::singleShot(RunTimeoutMs, &loop, &QEventLoop::quit);
    process.start(config.node,
        { config.sdkScript, config.url, QString::number(config.calls), QString::number(config.warmup),
            QString::number(config.concurrency), config.peersDir });
    loop.exec();
    serverWatch.stop();

    if (!done) {
        if (process.error() == QProcess::FailedToStart) {
            result.error = u"could not start %1: %2"_s.arg(config.node, process.errorString());
            return result;
        }
        process.kill();
        process.waitForFinished();
        result.error = server.running() ? u"the SDK client did not finish within %1 s"_s.arg(RunTimeoutMs / 1000)
                                        : u"the server exited:\n"_s + server.logTail();
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
    const QJsonObject concurrent = report.value(u"concurrent"_s).toObject();
    if (!sequential.value(u"callsPerSec"_s).isDouble() || !concurrent.value(u"callsPerSec"_s).isDouble()) {
        result.error = u"the SDK client printed no result: %1"_s.arg(QString::fromUtf8(lastLine));
        return result;
    }
    result.ok = true;
    result.modes[int(Mode::Sequential)] = parseMode(sequential);
    result.modes[int(Mode::Concurrent)] = parseMode(concurrent);
    result.label
        = u"SDK %1, Node %2"_s.arg(report.value(u"sdkVersion"_s).toString(), report.value(u"node"_s).toString());
    return result;
}

Measurement measure(ClientKind kind, const Config& config, Server& server)
{
    switch (kind) {
    case ClientKind::Floor:
        return runFloor(config);
    case ClientKind::Engine:
        return runEngine(config, server);
    case ClientKind::Sdk:
        return runSdk(config, server);
    }
    return {};
}

QString resultLine(const QString& name, const QString& mode, const ModeResult& m)
{
    return u"%1 %2 %3 %4 %5"_s.arg(name, -22)
        .arg(mode, -14)
        .arg(m.callsPerSec, 9, 'f', 0)
        .arg(m.p50Us, 9, 'f', 0)
        .arg(m.p99Us, 9, 'f', 0);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"tools/call throughput over Streamable HTTP against server-everything: engine and SDK."_s);
    parser.addHelpOption();
    const Config defaults;
    const QCommandLineOption callsOption(
        u"calls"_s, u"Timed calls per client, mode and round."_s, u"n"_s, QString::number(defaults.calls));
    const QCommandLineOption warmupOption(
        u"warmup"_s, u"Untimed calls before each timed mode."_s, u"n"_s, QString::number(defaults.warmup));
    const QCommandLineOption concurrencyOption(
        u"concurrency"_s, u"Calls in flight in the concurrent mode."_s, u"n"_s, QString::number(defaults.concurrency));
    const QCommandLineOption roundsOption(
        u"rounds"_s, u"Rounds; the best one counts."_s, u"n"_s, QString::number(defaults.rounds));
    const QCommandLineOption onlyOption(
        u"only"_s, u"Run only these clients (comma-separated: floor, engine, sdk)."_s, u"clients"_s);
    const QCommandLineOption urlOption(u"url"_s,
        u"Measure against a server already running at this MCP endpoint instead of starting server-everything."_s,
        u"url"_s);
    const QCommandLineOption nodeOption(u"node"_s, u"The pinned Node 22."_s, u"path"_s, QStringLiteral(MCPSCOPE_NODE));
    const QCommandLineOption sdkOption(
        u"sdk-client"_s, u"The SDK client script."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_SDKHTTPCLIENT));
    const QCommandLineOption peersOption(u"peers-dir"_s, u"Where the pinned SDK and server-everything are installed."_s,
        u"path"_s, QStringLiteral(MCPSCOPE_PEERS_DIR));
    parser.addOptions({ callsOption, warmupOption, concurrencyOption, roundsOption, onlyOption, urlOption, nodeOption,
        sdkOption, peersOption });
    parser.process(app);

    Config config;
    config.node = parser.value(nodeOption);
    config.sdkScript = parser.value(sdkOption);
    config.peersDir = parser.value(peersOption);
    config.calls = std::max(1, parser.value(callsOption).toInt());
    config.warmup = std::max(0, parser.value(warmupOption).toInt());
    config.concurrency = std::max(1, parser.value(concurrencyOption).toInt());
    config.rounds = std::max(1, parser.value(roundsOption).toInt());

    QList<ClientRow> rows { { ClientKind::Floor, u"floor (bare HTTP loop)"_s },
        { ClientKind::Engine, u"McpScope engine"_s }, { ClientKind::Sdk, u"TypeScript SDK client"_s } };
    if (parser.isSet(onlyOption)
        && !bench::selectOnly(parser.value(onlyOption), { u"floor"_s, u"engine"_s, u"sdk"_s }, rows))
        return 2;

    Server server(config);
    QString error;
    config.url = parser.isSet(urlOption) ? server.useExternal(parser.value(urlOption)) : server.start(&error);
    if (config.url.isEmpty()) {
        print(u"FAILED: %1\n"_s.arg(error));
        return 1;
    }
    print(u"Streamable HTTP tools/call throughput: echo on server-everything %1 at %2\n"
          "%3 timed calls per client, mode and round after %4 warm-up calls; %5 round(s); concurrent mode: %6 in "
          "flight\n"_s.arg(server.version(), config.url)
              .arg(config.calls)
              .arg(config.warmup)
              .arg(config.rounds)
              .arg(config.concurrency));

    const QString header = u"%1 %2 %3 %4 %5"_s.arg(u"client"_s, -22)
                               .arg(u"mode"_s, -14)
                               .arg(u"calls/s"_s, 9)
                               .arg(u"p50 µs"_s, 9)
                               .arg(u"p99 µs"_s, 9);
    print(u"\n           "_s + header + u'\n');
    bool anyFailed = false;
    for (int round = 1; round <= config.rounds; ++round) {
        // Alternate the order, so that no client always follows the same other client's load on the server.
        QList<qsizetype> order { 0, 1, 2 };
        if (round % 2 == 0)
            std::reverse(order.begin(), order.end());
        for (const qsizetype index : order) {
            ClientRow& row = rows[index];
            if (!row.selected || row.failed)
                continue;
            const Measurement m = measure(row.kind, config, server);
            if (!m.ok) {
                row.failed = anyFailed = true;
                print(u"  round %1  %2 FAILED: %3\n"_s.arg(round).arg(row.name, -22).arg(m.error));
                continue;
            }
            if (!m.label.isEmpty())
                row.label = m.label;
            for (int mode = 0; mode < ModeCount; ++mode) {
                if (!m.hasMode[mode])
                    continue;
                print(u"  round %1  %2\n"_s.arg(round).arg(
                    resultLine(row.name, modeName(Mode(mode), config), m.modes[mode])));
                row.hasMode[mode] = true;
                if (m.modes[mode].callsPerSec > row.best[mode].callsPerSec)
                    row.best[mode] = m.modes[mode];
            }
        }
        if (!server.running()) {
            print(u"FAILED: the server exited:\n%1\n"_s.arg(server.logTail()));
            return 1;
        }
    }
    server.stop();

    print(u"\n  best round (by calls/s)\n  "_s + header + u'\n');
    for (const ClientRow& row : rows) {
        if (!row.selected)
            continue;
        if (row.failed) {
            print(u"  %1 failed\n"_s.arg(row.name, -22));
            continue;
        }
        for (int mode = 0; mode < ModeCount; ++mode) {
            if (row.hasMode[mode])
                print(u"  "_s + resultLine(row.name, modeName(Mode(mode), config), row.best[mode]) + u'\n');
        }
        if (!row.label.isEmpty())
            print(u"  %1 (%2)\n"_s.arg(QString(), -22).arg(row.label));
    }

    // Throughput ratios, best round against best round. Only engine / SDK sequential has a goal; the
    // floor's rows say how much of the time per call is the server's, which no client can win back.
    const auto usable = [&](ClientKind kind, Mode mode) {
        const ClientRow& row = rows.at(qsizetype(kind));
        return row.selected && !row.failed && row.hasMode[int(mode)];
    };
    const auto rate = [&](ClientKind kind, Mode mode) { return rows.at(qsizetype(kind)).best[int(mode)].callsPerSec; };
    struct RatioRow
    {
        QString name;
        ClientKind over;
        ClientKind under;
        Mode mode;
        bool hasGoal;
    };
    const QList<RatioRow> ratioRows { { u"engine / SDK, sequential"_s, ClientKind::Engine, ClientKind::Sdk,
                                          Mode::Sequential, true },
        { u"engine / SDK, %1 in flight"_s.arg(config.concurrency), ClientKind::Engine, ClientKind::Sdk,
            Mode::Concurrent, false },
        { u"engine / floor, sequential"_s, ClientKind::Engine, ClientKind::Floor, Mode::Sequential, false },
        { u"floor / SDK, sequential"_s, ClientKind::Floor, ClientKind::Sdk, Mode::Sequential, false } };
    QString ratios;
    for (const RatioRow& r : ratioRows) {
        if (!usable(r.over, r.mode) || !usable(r.under, r.mode))
            continue;
        const double ratio = rate(r.over, r.mode) / rate(r.under, r.mode);
        ratios += u"  %1 %2   %3   %4\n"_s.arg(r.name, -30)
                      .arg(ratio, 6, 'f', 2)
                      .arg(r.hasGoal ? u"≥ %1"_s.arg(SequentialGoal) : u"-"_s, -7)
                      .arg(r.hasGoal ? (ratio >= SequentialGoal ? u"PASS"_s : u"MISS"_s) : u"-"_s);
    }
    if (!ratios.isEmpty()) {
        print(u"\n  %1 %2   %3   %4\n"_s.arg(u"throughput ratio"_s, -30)
                  .arg(u"value"_s, 6)
                  .arg(u"goal"_s, -7)
                  .arg(u"result"_s));
        print(ratios);
    }
    return anyFailed ? 1 : 0;
}
