// The stdio call-overhead benchmark (DESIGN.md, "Performance goals"). Three clients make the
// same sequential tools/call round trips to the same echo peer, in one run:
// - the floor: a bare C++ loop that writes one line and reads one line (floorclient);
// - our bare session: ClientSession over StdioTransport, in this process;
// - the path users run: ServerConnection::callTool with call records, each finished record written
//   as a redacted JSONL line, the way `mcpscope-cli run --log` and the app take them;
// - the official TypeScript SDK client on the pinned Node 22 (sdkclient.mjs).
// Goals: session within 1.5x of the floor, SDK at least 3x slower than the session; the real path
// within 2x of the floor and at least 3x faster than the SDK (issue 17).
//
// Timing is only printed, never asserted: the machine's load decides the numbers. The run fails
// only when a client fails functionally (no handshake, a wrong echo, a helper that crashed).
// The clients take turns over several rounds, so that a burst of load from elsewhere hits one
// round rather than one client; the best round counts. Each client first makes 5,000 untimed
// calls: Node's JIT keeps speeding the SDK client up for thousands of calls, and after only 500
// its timed calls still pay for compilation (about 22 instead of 15 µs per call, pinned).
//
// By default the run pins itself, and so every client and peer it starts, to one CPU. A round
// trip then costs the CPU work of both sides plus two context switches, which is what the goals
// compare. Unpinned, each call also waits for the other side's CPU to wake up; on a small VM that
// wake-up (tens of µs, varying with the host's load) swamps every client's own work and the
// ratios say little. --no-pin measures that way anyway.

#include "benchsupport.h"
#include "calllog/calllogappender.h"
#include "calllog/redactor.h"
#include "engine/serverconnection.h"
#include "session/clientsession.h"
#include "transport/processgroupstop.h"
#include "transport/stdiotransport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <sched.h>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

using mcpscope::bench::print;

constexpr int RunTimeoutMs = 300'000;
constexpr double EngineFloorGoal = 1.5;
constexpr double SdkEngineGoal = 3.0;
constexpr double RealFloorGoal = 2.0;
constexpr double SdkRealGoal = 3.0;

struct Config
{
    QString echoPeer;
    QString floorClient;
    QString node;
    QString sdkScript;
    QString peersDir;
    int calls = 20000;
    int warmup = 5000;
    int rounds = 5;
    bool pin = true;
};

enum class ClientKind { Floor, Engine, Real, Sdk };

struct Measurement
{
    bool ok = false;
    double usPerCall = 0;
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
    double bestUs = std::numeric_limits<double>::infinity();
    QString label;
};

// Floor and SDK clients are separate processes that time themselves after their warm-up and end
// with one JSON line on stdout. Their stderr goes straight to ours, so their errors show in CTest.
Measurement runHelper(const QString& program, const QStringList& arguments)
{
    Measurement result;
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.start(program, arguments);
    if (!process.waitForStarted()) {
        result.error = u"could not start %1: %2"_s.arg(program, process.errorString());
        return result;
    }
    if (!process.waitForFinished(RunTimeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.error = u"%1 did not finish within %2 s"_s.arg(program).arg(RunTimeoutMs / 1000);
        return result;
    }
    const QByteArray output = process.readAllStandardOutput().trimmed();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        result.error = u"%1 failed (exit code %2)"_s.arg(program).arg(process.exitCode());
        return result;
    }
    const QByteArray lastLine = output.mid(output.lastIndexOf('\n') + 1);
    const QJsonObject report = QJsonDocument::fromJson(lastLine).object();
    const QJsonValue usPerCall = report.value(QLatin1String("usPerCall"));
    if (!usPerCall.isDouble()) {
        result.error = u"%1 printed no result: %2"_s.arg(program, QString::fromUtf8(lastLine));
        return result;
    }
    result.ok = true;
    result.usPerCall = usPerCall.toDouble();
    if (report.contains(QLatin1String("sdkVersion"))) {
        result.label = u"SDK %1, Node %2"_s.arg(
            report.value(QLatin1String("sdkVersion")).toString(), report.value(QLatin1String("node")).toString());
    }
    return result;
}

bool echoesHello(const Reply& reply)
{
    const QJsonArray content = reply.result.toObject().value(QLatin1String("content")).toArray();
    return content.size() == 1 && content.at(0).toObject().value(QLatin1String("text")) == QLatin1String("hello");
}

// Each call starts from the previous reply's callback, the way a scripted sequence of calls would.
Measurement runEngine(const Config& config)
{
    Measurement result;
    QEventLoop loop; // declared first so it outlives the session and its connections
    StdioTransport::Options transportOptions;
    transportOptions.serverName = u"echopeer"_s;
    transportOptions.command = config.echoPeer;
    ClientSession::Options sessionOptions;
    sessionOptions.serverName = transportOptions.serverName;
    ClientSession session(std::make_unique<StdioTransport>(transportOptions), sessionOptions);

    auto stop = [&](const QString& error) {
        if (result.error.isEmpty())
            result.error = error;
        loop.quit();
    };
    QObject::connect(&session, &ClientSession::failed, &loop, stop);
    QTimer::singleShot(RunTimeoutMs, &loop, [&] { stop(u"the engine did not finish within the time limit"_s); });

    const QString tool = u"echo"_s;
    const QJsonObject arguments { { u"message"_s, u"hello"_s } };
    const RequestOptions options;
    const int total = config.warmup + config.calls;
    int completed = 0;
    QElapsedTimer timer;
    qint64 elapsedNs = 0;
    ReplyHandler onReply;
    auto callNext = [&] { session.callTool(tool, arguments, options, onReply); };
    onReply = [&](const Reply& reply) {
        if (!reply.ok()) {
            stop(u"call %1 failed: %2"_s.arg(completed).arg(reply.describe()));
            return;
        }
        if (!echoesHello(reply)) {
            const QByteArray json = QJsonDocument(reply.resultObject()).toJson(QJsonDocument::Compact);
            stop(u"call %1 did not echo \"hello\": %2"_s.arg(completed).arg(QString::fromUtf8(json)));
            return;
        }
        if (++completed == config.warmup)
            timer.start();
        if (completed == total) {
            elapsedNs = timer.nsecsElapsed();
            result.ok = true;
            loop.quit();
            return;
        }
        callNext();
    };
    QObject::connect(&session, &ClientSession::ready, &loop, [&] {
        session.listTools([&](const Reply& reply) {
            const ToolInfo* echo = session.tool(tool);
            if (!reply.ok() || !echo || !echo->isReadOnly()) {
                stop(u"the echo peer did not list a read-only tool \"echo\""_s);
                return;
            }
            if (config.warmup == 0)
                timer.start();
            callNext();
        });
    });
    session.start();
    loop.exec();

    QObject::disconnect(&session, nullptr, &loop, nullptr);
    if (session.state() != ClientSession::State::Closed) {
        // Closing stdin ends the peer at once; the limit only guards against a hang.
        QObject::connect(&session, &ClientSession::closed, &loop, &QEventLoop::quit);
        QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
        session.close();
        loop.exec();
    }
    if (result.ok)
        result.usPerCall = double(elapsedNs) / 1000.0 / double(config.calls);
    return result;
}

bool recordEchoesHello(const CallRecord& record)
{
    const QJsonArray content = record.result.toObject().value(QLatin1String("content")).toArray();
    return content.size() == 1 && content.at(0).toObject().value(QLatin1String("text")) == QLatin1String("hello");
}

// The path users run: one ServerConnection, calls through callTool with their records, and every
// finished record written as the redacted JSONL line `mcpscope-cli run --log` writes, by the same
// CallLogAppender (to /dev/null).
Measurement runReal(const Config& config)
{
    Measurement result;
    QEventLoop loop; // declared first so it outlives the connection and its lambdas
    ServerConfig server;
    server.name = u"echopeer"_s;
    server.transport = TransportKind::Stdio;
    server.command = config.echoPeer;
    ServerConnection connection(server);
    QFile sink(u"/dev/null"_s);
    if (!sink.open(QIODevice::WriteOnly)) {
        result.error = u"could not open /dev/null"_s;
        return result;
    }
    bool stopped = false;
    auto stop = [&](const QString& error) {
        if (result.error.isEmpty())
            result.error = error;
        stopped = true;
        loop.quit();
    };
    QObject::connect(&connection, &ServerConnection::failed, &loop, stop);
    QTimer::singleShot(RunTimeoutMs, &loop, [&] { stop(u"the real path did not finish within the time limit"_s); });
    Redactor redactor; // what the CLI's engine holds for this server
    redactor.addServer(server);
    // As `run --log` writes them: each line once the loop is about to wait for the next answer.
    CallLogAppender appender(&sink, &redactor);
    QObject::connect(&connection, &ServerConnection::callUpdated, &appender, &CallLogAppender::append);

    const QString tool = u"echo"_s;
    const QJsonObject arguments { { u"message"_s, u"hello"_s } };
    const CallOptions options;
    const int total = config.warmup + config.calls;
    int completed = 0;
    QElapsedTimer timer;
    qint64 elapsedNs = 0;
    std::function<void(const CallRecord&)> onRecord;
    auto callNext = [&] { connection.callTool(tool, arguments, options, onRecord); };
    onRecord = [&](const CallRecord& record) {
        if (stopped)
            return;
        if (record.outcome != CallOutcome::Success || !recordEchoesHello(record)) {
            stop(u"call %1 did not echo \"hello\": %2"_s.arg(completed).arg(QString::fromUtf8(record.toCompactJson())));
            return;
        }
        if (++completed == config.warmup)
            timer.start();
        if (completed == total) {
            elapsedNs = timer.nsecsElapsed();
            result.ok = true;
            loop.quit();
            return;
        }
        callNext();
    };
    bool started = false;
    QObject::connect(&connection, &ServerConnection::ready, &loop, [&] {
        if (std::exchange(started, true))
            return; // ready fires again after a respawn; none is expected here
        const ToolInfo* echo = connection.session() ? connection.session()->tool(tool) : nullptr;
        if (!echo || !echo->isReadOnly()) {
            stop(u"the echo peer did not list a read-only tool \"echo\""_s);
            return;
        }
        if (config.warmup == 0)
            timer.start();
        callNext();
    });
    connection.connectToServer();
    loop.exec();

    QObject::disconnect(&connection, nullptr, &loop, nullptr);
    appender.flush();
    if (result.ok && appender.written() < total) {
        result.ok = false;
        result.error = u"%1 call records written for %2 calls"_s.arg(appender.written()).arg(total);
    }
    QObject::connect(&connection, &ServerConnection::closed, &loop, &QEventLoop::quit);
    QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
    connection.disconnectFromServer();
    if (connection.state() != ServerConnection::State::Closed)
        loop.exec();
    if (!result.error.isEmpty())
        result.ok = false;
    if (result.ok)
        result.usPerCall = double(elapsedNs) / 1000.0 / double(config.calls);
    return result;
}

Measurement measure(ClientKind kind, const Config& config)
{
    const QString calls = QString::number(config.calls);
    const QString warmup = QString::number(config.warmup);
    switch (kind) {
    case ClientKind::Floor:
        return runHelper(config.floorClient, { config.echoPeer, calls, warmup });
    case ClientKind::Engine:
        return runEngine(config);
    case ClientKind::Real:
        return runReal(config);
    case ClientKind::Sdk:
        return runHelper(config.node, { config.sdkScript, config.echoPeer, calls, warmup, config.peersDir });
    }
    return {};
}

QString ratioLine(const QString& name, double value, const QString& goalText, bool pass)
{
    return u"  %1 %2   %3   %4\n"_s.arg(name, -16)
        .arg(value, 6, 'f', 2)
        .arg(goalText, -7)
        .arg(pass ? u"PASS"_s : u"MISS"_s);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Sequential tools/call round trips over stdio: floor, engine and SDK."_s);
    parser.addHelpOption();
    const Config defaults;
    const QCommandLineOption callsOption(
        u"calls"_s, u"Timed calls per client and round."_s, u"n"_s, QString::number(defaults.calls));
    const QCommandLineOption warmupOption(
        u"warmup"_s, u"Untimed calls before timing."_s, u"n"_s, QString::number(defaults.warmup));
    const QCommandLineOption roundsOption(
        u"rounds"_s, u"Rounds; the best one counts."_s, u"n"_s, QString::number(defaults.rounds));
    const QCommandLineOption onlyOption(
        u"only"_s, u"Run only these clients (comma-separated: floor, engine, real, sdk)."_s, u"clients"_s);
    const QCommandLineOption peerOption(
        u"echo-peer"_s, u"The echo peer."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_ECHOPEER));
    const QCommandLineOption floorOption(
        u"floor-client"_s, u"The floor client."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_FLOORCLIENT));
    const QCommandLineOption nodeOption(u"node"_s, u"The pinned Node 22."_s, u"path"_s, QStringLiteral(MCPSCOPE_NODE));
    const QCommandLineOption sdkOption(
        u"sdk-client"_s, u"The SDK client script."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_SDKCLIENT));
    const QCommandLineOption peersOption(
        u"peers-dir"_s, u"Where the pinned SDK is installed."_s, u"path"_s, QStringLiteral(MCPSCOPE_PEERS_DIR));
    const QCommandLineOption noPinOption(u"no-pin"_s, u"Let the clients and the peer run on any CPU."_s);
    parser.addOptions({ callsOption, warmupOption, roundsOption, onlyOption, noPinOption, peerOption, floorOption,
        nodeOption, sdkOption, peersOption });
    parser.process(app);

    Config config;
    config.echoPeer = parser.value(peerOption);
    config.floorClient = parser.value(floorOption);
    config.node = parser.value(nodeOption);
    config.sdkScript = parser.value(sdkOption);
    config.peersDir = parser.value(peersOption);
    config.calls = std::max(1, parser.value(callsOption).toInt());
    config.warmup = std::max(0, parser.value(warmupOption).toInt());
    config.rounds = std::max(1, parser.value(roundsOption).toInt());
    config.pin = !parser.isSet(noPinOption);

    QList<ClientRow> rows { { ClientKind::Floor, u"floor (bare C++ loop)"_s },
        { ClientKind::Engine, u"McpScope session"_s }, { ClientKind::Real, u"McpScope real path"_s },
        { ClientKind::Sdk, u"TypeScript SDK client"_s } };
    if (parser.isSet(onlyOption)
        && !bench::selectOnly(parser.value(onlyOption), { u"floor"_s, u"engine"_s, u"real"_s, u"sdk"_s }, rows))
        return 2;

    QString placement = u"any CPU"_s;
    if (config.pin) {
        // The children inherit the main thread's mask: QProcess forks from here, and so does node.
        placement = bench::pinToCurrentCpu();
    }
    print(u"stdio call overhead: %1 sequential tools/call round trips per client after %2 warm-up calls, "
          "%3 round(s), %4\n"_s.arg(config.calls)
              .arg(config.warmup)
              .arg(config.rounds)
              .arg(placement));
    bool anyFailed = false;
    for (int round = 1; round <= config.rounds; ++round) {
        for (ClientRow& row : rows) {
            if (!row.selected || row.failed)
                continue;
            const Measurement m = measure(row.kind, config);
            if (!m.ok) {
                row.failed = anyFailed = true;
                print(u"  round %1  %2  FAILED: %3\n"_s.arg(round).arg(row.name, -22).arg(m.error));
                continue;
            }
            row.bestUs = std::min(row.bestUs, m.usPerCall);
            if (!m.label.isEmpty())
                row.label = m.label;
            print(u"  round %1  %2 %3 µs/call\n"_s.arg(round).arg(row.name, -22).arg(m.usPerCall, 8, 'f', 2));
        }
    }
    // The real path's last echo peer, killed as its connection went, is reaped here as the app's and the
    // CLI's main reap theirs, not destroyed running (with QProcess's warning) when the program ends.
    ProcessGroupStop::finishDetached(5000);

    print(u"\n  %1 %2\n"_s.arg(u"client (best round)"_s, -22).arg(u"µs/call"_s, 8));
    for (const ClientRow& row : rows) {
        if (!row.selected)
            continue;
        const QString value = row.failed ? u"failed"_s : QString::number(row.bestUs, 'f', 2);
        const QString label = row.label.isEmpty() ? QString() : u"   ("_s + row.label + u')';
        print(u"  %1 %2%3\n"_s.arg(row.name, -22).arg(value, 8).arg(label));
    }
    const auto usable = [&](ClientKind kind) {
        const ClientRow& row = rows.at(qsizetype(kind));
        return row.selected && !row.failed;
    };
    const auto best = [&](ClientKind kind) { return rows.at(qsizetype(kind)).bestUs; };
    QStringList ratios;
    if (usable(ClientKind::Engine) && usable(ClientKind::Floor)) {
        const double ratio = best(ClientKind::Engine) / best(ClientKind::Floor);
        ratios.append(ratioLine(u"session / floor"_s, ratio, u"≤ %1"_s.arg(EngineFloorGoal), ratio <= EngineFloorGoal));
    }
    if (usable(ClientKind::Sdk) && usable(ClientKind::Engine)) {
        const double ratio = best(ClientKind::Sdk) / best(ClientKind::Engine);
        ratios.append(ratioLine(u"SDK / session"_s, ratio, u"≥ %1"_s.arg(SdkEngineGoal), ratio >= SdkEngineGoal));
    }
    if (usable(ClientKind::Real) && usable(ClientKind::Floor)) {
        const double ratio = best(ClientKind::Real) / best(ClientKind::Floor);
        ratios.append(ratioLine(u"real / floor"_s, ratio, u"≤ %1"_s.arg(RealFloorGoal), ratio <= RealFloorGoal));
    }
    if (usable(ClientKind::Sdk) && usable(ClientKind::Real)) {
        const double ratio = best(ClientKind::Sdk) / best(ClientKind::Real);
        ratios.append(ratioLine(u"SDK / real"_s, ratio, u"≥ %1"_s.arg(SdkRealGoal), ratio >= SdkRealGoal));
    }
    if (!ratios.isEmpty()) {
        print(u"\n  %1 %2   %3   %4\n"_s.arg(u"ratio"_s, -16).arg(u"value"_s, 6).arg(u"goal"_s, -7).arg(u"result"_s));
        print(ratios.join(QString()));
    }
    return anyFailed ? 1 : 0;
}
