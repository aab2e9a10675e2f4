// The recovery soak (`make soak`): thousands of tools/call through ServerConnection with faults armed
// at random, over both transports at once, then the one property that matters checked from the
// SERVER's side. The ledger peer (tests/peers/ledger-peer.mjs) appends a line for every tool run with
// the call id of our attempt-identity _meta, so the ledger files say what really ran, whatever the
// engine believes.
//
// - Streamable HTTP: the ledger peer behind a FaultProxy; faults expire-before, expire-after,
//   cut-after, drop-stream, auth-401, delay 50 ms, close-before-head and rst-before-head. The proxy's
//   duplicate check is on: a tools/call attempt that reaches it a second time (re-sent by a layer below
//   the decision table) is refused with 409 and counted.
// - stdio: the ledger peer as a child; faults kill-after-write, close-stdin and delay 50 ms through
//   ServerConnection::armStdioFault.
// - Tools: write, set (idempotent, but the idempotent-replay policy is off, so write-capable),
//   sleep-write (write-capable), read and sleep (read-only). A few calls are timeout probes: a sleep
//   longer than their deadline, so R6 is exercised too.
// - Up to 4 calls in flight; the target changes every block of 100 calls.
//
// The plan (every call's transport, tool, fault and deadline, and the concurrency targets) comes from
// one seed, printed first; --seed repeats it. Timing still varies from run to run, so a rerun hits the
// same faults on the same calls, not necessarily the same interleavings.
//
// Fails (exit 1) when: a write-capable call ran more than once on the server; any call ran more than
// twice (R7); the proxy refused a duplicate attempt; a call produced no finished record or more than one (callbacks
// counted, and the --log JSONL when given); a call never finished (the stall watchdog); or the overall watchdog fired.

#include "benchsupport.h"
#include "calllog/callrecord.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "recovery/reconnector.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTimer>

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

using mcpscope::bench::print;

enum class Side { Http, Stdio };

struct Config
{
    QString node;
    QString peersDir;
    int calls = 10000;
    quint64 seed = 0;
    double faultRate = 0.15;
    int maxInFlight = 4;
    qint64 timeoutMs = 4000;
    int stallSeconds = 90;
    int maxSeconds = 3600;
    int breakerThreshold = 3;
    int breakerCooldownSec = 2;
    QString logPath;
    bool keep = false;
};

/// One planned call, fixed by the seed before anything runs.
struct PlannedCall
{
    Side side = Side::Http;
    QString tool;
    QJsonObject arguments;
    qint64 timeoutMs = 0;
    std::optional<FaultProxy::FaultKind> httpFault;
    std::optional<StdioFault> stdioFault;
    QString faultName; ///< empty: no fault
};

struct CallState
{
    QString callId; ///< what callTool returned
    QString recordCallId; ///< what the record said
    int callbacks = 0;
    qint64 startedMs = 0;
    std::optional<CallRecord> record;
};

QString sideName(Side side)
{
    return side == Side::Http ? u"http"_s : u"stdio"_s;
}

bool isWriteCapable(const QString& tool)
{
    return tool == "write"_L1 || tool == "set"_L1 || tool == "sleep-write"_L1;
}

QList<PlannedCall> makePlan(const Config& config, std::mt19937_64& rng, QList<int>* blockTargets)
{
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<int> sleepMs(0, 20);
    QList<PlannedCall> plan;
    plan.reserve(config.calls);
    for (int i = 0; i < config.calls; ++i) {
        if (i % 100 == 0)
            blockTargets->append(std::uniform_int_distribution<int>(1, std::max(1, config.maxInFlight))(rng));
        PlannedCall call;
        call.side = unit(rng) < 0.5 ? Side::Http : Side::Stdio;
        call.timeoutMs = config.timeoutMs;
        const double pick = unit(rng);
        if (pick < 0.34) {
            call.tool = u"write"_s;
            call.arguments = { { u"note"_s, u"n%1"_s.arg(i) } };
        } else if (pick < 0.68) {
            call.tool = u"read"_s;
        } else if (pick < 0.88) {
            call.tool = u"set"_s;
            call.arguments = { { u"key"_s, u"k%1"_s.arg(i % 17) }, { u"value"_s, u"v%1"_s.arg(i) } };
        } else if (pick < 0.93) {
            call.tool = u"sleep-write"_s;
            call.arguments = { { u"ms"_s, sleepMs(rng) } };
        } else if (pick < 0.98) {
            call.tool = u"sleep"_s;
            call.arguments = { { u"ms"_s, sleepMs(rng) } };
        } else {
            // A timeout probe: the server outlives the deadline (R6: cancelled, never sent again).
            call.tool = unit(rng) < 0.5 ? u"sleep-write"_s : u"sleep"_s;
            call.arguments = { { u"ms"_s, 400 } };
            call.timeoutMs = 150;
        }
        if (unit(rng) < config.faultRate) {
            if (call.side == Side::Http) {
                using K = FaultProxy::FaultKind;
                static const K kinds[] = { K::ExpireBefore, K::ExpireAfter, K::CutAfter, K::DropStream, K::Auth401,
                    K::Delay, K::CloseBeforeHead, K::RstBeforeHead };
                call.httpFault = kinds[std::uniform_int_distribution<int>(0, int(std::size(kinds)) - 1)(rng)];
                call.faultName = FaultProxy::kindName(*call.httpFault);
            } else {
                const int which = std::uniform_int_distribution<int>(0, int(std::size(StdioFaultEntries)) - 1)(rng);
                call.stdioFault = StdioFaultEntries[which].value;
                call.faultName = StdioFaultEntries[which].name.toString();
            }
        }
        plan.append(call);
    }
    return plan;
}

/// A ledger peer over HTTP: started on a free port of its own choosing, which it prints.
class HttpPeer
{
public:
    ~HttpPeer() { stop(); }

    bool start(const Config& config, const QString& ledger, quint16* port, QString* error)
    {
        m_process.setProgram(config.node);
        m_process.setArguments({ config.peersDir + u"/ledger-peer.mjs"_s, u"http"_s, u"0"_s, ledger });
        m_process.setWorkingDirectory(config.peersDir);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
        if (!m_process.waitForStarted(10000)) {
            *error = u"could not start %1: %2"_s.arg(config.node, m_process.errorString());
            return false;
        }
        QByteArray output;
        for (int i = 0; i < 300 && !output.contains('\n'); ++i) {
            if (!m_process.waitForReadyRead(100) && m_process.state() != QProcess::Running)
                break;
            output += m_process.readAll();
        }
        const qsizetype at = output.indexOf("listening ");
        if (at < 0) {
            *error = u"the HTTP ledger peer did not start: %1"_s.arg(QString::fromUtf8(output));
            return false;
        }
        const QByteArray rest = output.mid(at + 10);
        *port = quint16(rest.left(rest.indexOf('\n')).trimmed().toUInt());
        return *port != 0;
    }

    void stop()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

private:
    QProcess m_process;
};

struct LedgerCounts
{
    QHash<QString, int> runs; ///< call id → tool runs on the server
    QHash<QString, QString> tool; ///< call id → tool
    int entries = 0;
    int withoutCallId = 0;
};

void readLedger(const QString& path, LedgerCounts* counts)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject entry = QJsonDocument::fromJson(line).object();
        if (entry.contains("event"_L1))
            continue; // the peer's initialize and cancelled lines are no tool runs
        ++counts->entries;
        const QString callId = entry.value("attempt"_L1).toObject().value("callId"_L1).toString();
        if (callId.isEmpty()) {
            ++counts->withoutCallId;
            continue;
        }
        counts->runs[callId] += 1;
        counts->tool.insert(callId, entry.value("tool"_L1).toString());
    }
}

/// Per name: calls over HTTP, over stdio.
using SplitCounts = std::map<QString, std::array<int, 2>>;

QString splitHistogram(const QString& title, const SplitCounts& counts, int total)
{
    QString out = u"  %1 %2 %3 %4\n"_s.arg(title, -26).arg(u"http"_s, 7).arg(u"stdio"_s, 7).arg(u"total"_s, 7);
    for (const auto& [name, n] : counts) {
        out += u"    %1 %2 %3 %4  %5 %\n"_s.arg(name, -24)
                   .arg(n[0], 7)
                   .arg(n[1], 7)
                   .arg(n[0] + n[1], 7)
                   .arg(100.0 * (n[0] + n[1]) / std::max(1, total), 5, 'f', 1);
    }
    return out;
}

QString histogram(const std::map<QString, int>& counts, int total)
{
    QString out;
    for (const auto& [name, n] : counts)
        out += u"    %1 %2  %3 %\n"_s.arg(name, -24).arg(n, 7).arg(100.0 * n / std::max(1, total), 5, 'f', 1);
    return out;
}

class Soak : public QObject
{
public:
    explicit Soak(Config config)
        : m_config(std::move(config))
    { }

    int run();

private:
    struct Rig
    {
        Side side = Side::Http;
        QString ledger;
        HttpPeer peer;
        std::unique_ptr<FaultProxy> proxy;
        std::unique_ptr<ServerConnection> connection;
        int stdioFaultsFired = 0;
    };

    bool startRig(Rig& rig, Side side, QString* error);
    void launchMore();
    void launch(int index);
    void onDone(int index, const CallRecord& record);
    void tick();
    int report();

    Config m_config;
    QTemporaryDir m_dir;
    Rig m_http;
    Rig m_stdio;
    QList<PlannedCall> m_plan;
    QList<int> m_blockTargets;
    QList<CallState> m_states;
    int m_next = 0;
    int m_inFlight = 0;
    int m_finished = 0;
    bool m_launchScheduled = false;
    QElapsedTimer m_clock;
    qint64 m_lastProgressMs = 0;
    qint64 m_lastReportMs = 0;
    QString m_abortReason;
    QSet<int> m_unfinishedAtEnd;
    std::unique_ptr<QFile> m_log;
    QEventLoop* m_loop = nullptr;
};

bool Soak::startRig(Rig& rig, Side side, QString* error)
{
    rig.side = side;
    rig.ledger = m_dir.filePath(u"ledger-%1.jsonl"_s.arg(sideName(side)));
    ServerConfig config;
    config.name = u"soak-"_s + sideName(side);
    config.requestTimeoutMs = int(std::max<qint64>(m_config.timeoutMs, 1000));
    config.breakerThreshold = m_config.breakerThreshold;
    config.breakerCooldownSec = m_config.breakerCooldownSec;
    const QString script = m_config.peersDir + u"/ledger-peer.mjs"_s;
    if (side == Side::Stdio) {
        config.transport = TransportKind::Stdio;
        config.command = m_config.node;
        config.args = { script, u"stdio"_s, rig.ledger };
    } else {
        quint16 port = 0;
        if (!rig.peer.start(m_config, rig.ledger, &port, error))
            return false;
        config.transport = TransportKind::StreamableHttp;
        config.url = QUrl(u"http://127.0.0.1:%1/mcp"_s.arg(port));
        rig.proxy = std::make_unique<FaultProxy>(config.url);
        if (!rig.proxy->listen(0, error))
            return false;
    }
    rig.connection = std::make_unique<ServerConnection>(config);
    if (rig.proxy)
        rig.connection->setEndpointOverride(rig.proxy->url());
    QObject::connect(rig.connection.get(), &ServerConnection::actionLogged, this,
        [&rig](const QString& kind, const QString&) { rig.stdioFaultsFired += kind == "fault"_L1; });

    QEventLoop loop;
    bool ready = false;
    QObject::connect(rig.connection.get(), &ServerConnection::ready, &loop, [&] {
        ready = true;
        loop.quit();
    });
    QObject::connect(rig.connection.get(), &ServerConnection::failed, &loop, [&](const QString& message) {
        *error = message;
        loop.quit();
    });
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    rig.connection->connectToServer();
    loop.exec();
    QObject::disconnect(rig.connection.get(), nullptr, &loop, nullptr);
    if (!ready && error->isEmpty())
        *error = u"%1 was not ready within 30 s"_s.arg(config.name);
    return ready;
}

int Soak::run()
{
    if (!m_dir.isValid()) {
        print(u"soak: no temporary directory\n"_s);
        return 2;
    }
    m_dir.setAutoRemove(!m_config.keep);
    std::mt19937_64 rng(m_config.seed);
    m_plan = makePlan(m_config, rng, &m_blockTargets);
    m_states.resize(m_plan.size());

    print(u"recovery soak: %1 calls, seed %2, fault rate %3 %, up to %4 in flight, deadline %5 ms, "
          "breaker %6 strikes / %7 s\n"_s.arg(m_config.calls)
              .arg(m_config.seed)
              .arg(m_config.faultRate * 100, 0, 'f', 0)
              .arg(m_config.maxInFlight)
              .arg(m_config.timeoutMs)
              .arg(m_config.breakerThreshold)
              .arg(m_config.breakerCooldownSec));
    print(u"  repeat with: --seed %1 --calls %2\n"_s.arg(m_config.seed).arg(m_config.calls));
    if (m_config.keep)
        print(u"  ledgers kept in %1\n"_s.arg(m_dir.path()));

    if (!m_config.logPath.isEmpty()) {
        m_log = std::make_unique<QFile>(m_config.logPath);
        if (!m_log->open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            print(u"soak: cannot write %1\n"_s.arg(m_config.logPath));
            return 2;
        }
    }

    QString error;
    if (!startRig(m_http, Side::Http, &error) || !startRig(m_stdio, Side::Stdio, &error)) {
        print(u"soak: setup failed: %1\n"_s.arg(error));
        return 2;
    }

    QEventLoop loop;
    m_loop = &loop;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, this, [this] { tick(); });
    ticker.start(1000);
    m_clock.start();
    launchMore();
    loop.exec();
    ticker.stop();
    m_loop = nullptr;
    // Taken now: closing the connections below ends whatever is still in flight as cancelled.
    for (int i = 0; i < m_next; ++i) {
        if (m_states.at(i).callbacks == 0)
            m_unfinishedAtEnd.insert(i);
    }
    const double seconds = double(m_clock.elapsed()) / 1000.0;
    print(u"  ran %1 of %2 calls in %3 s (%4 calls/s)\n"_s.arg(m_finished)
              .arg(m_config.calls)
              .arg(seconds, 0, 'f', 1)
              .arg(double(m_finished) / std::max(0.001, seconds), 0, 'f', 1));
    return report();
}

void Soak::launchMore()
{
    m_launchScheduled = false;
    if (!m_abortReason.isEmpty())
        return;
    while (m_next < m_plan.size()) {
        const int target = m_blockTargets.value(m_next / 100, 1);
        if (m_inFlight >= target)
            break;
        launch(m_next++);
    }
    if (m_next >= m_plan.size() && m_inFlight == 0 && m_loop)
        m_loop->quit();
}

void Soak::launch(int index)
{
    const PlannedCall& call = m_plan.at(index);
    Rig& rig = call.side == Side::Http ? m_http : m_stdio;
    if (call.httpFault) {
        FaultProxy::Fault fault;
        fault.kind = *call.httpFault;
        fault.count = 1;
        fault.method = u"tools/call"_s;
        fault.tool = call.tool;
        fault.delayMs = 50;
        rig.proxy->arm(fault);
    } else if (call.stdioFault) {
        rig.connection->armStdioFault(*call.stdioFault, 50);
    }
    ++m_inFlight;
    CallState& state = m_states[index];
    state.startedMs = m_clock.elapsed();
    CallOptions options;
    options.timeoutMs = call.timeoutMs;
    // The callback may run before callTool returns (breaker open): it is counted all the same.
    state.callId = rig.connection->callTool(
        call.tool, call.arguments, options, [this, index](const CallRecord& record) { onDone(index, record); });
}

void Soak::onDone(int index, const CallRecord& record)
{
    CallState& state = m_states[index];
    if (++state.callbacks > 1)
        return; // counted as a duplicate record in the report
    state.recordCallId = record.callId;
    state.record = record;
    --m_inFlight;
    ++m_finished;
    m_lastProgressMs = m_clock.elapsed();
    if (m_log) {
        m_log->write(QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact));
        m_log->write("\n");
    }
    if (m_finished % 1000 == 0) {
        const double seconds = double(m_clock.elapsed()) / 1000.0;
        print(u"  %1 calls done, %2 s, %3 calls/s\n"_s.arg(m_finished, 6)
                  .arg(seconds, 6, 'f', 1)
                  .arg(double(m_finished) / std::max(0.001, seconds), 0, 'f', 1));
    }
    // Not from inside the callback: the engine is still unwinding the call that just ended.
    if (!m_launchScheduled) {
        m_launchScheduled = true;
        QTimer::singleShot(0, this, [this] { launchMore(); });
    }
}

void Soak::tick()
{
    const qint64 now = m_clock.elapsed();
    if (now > qint64(m_config.maxSeconds) * 1000) {
        m_abortReason = u"the overall watchdog fired after %1 s"_s.arg(m_config.maxSeconds);
    } else if (m_inFlight > 0 && now - m_lastProgressMs > qint64(m_config.stallSeconds) * 1000) {
        m_abortReason = u"no call finished for %1 s with %2 in flight"_s.arg(m_config.stallSeconds).arg(m_inFlight);
    } else {
        // A single stuck call does not stop the others, so the age of each one is checked as well.
        for (int i = 0; i < m_next; ++i) {
            const CallState& state = m_states.at(i);
            if (state.callbacks == 0 && now - state.startedMs > qint64(m_config.stallSeconds) * 1000) {
                m_abortReason = u"call #%1 did not finish within %2 s"_s.arg(i).arg(m_config.stallSeconds);
                break;
            }
        }
    }
    if (!m_abortReason.isEmpty()) {
        print(u"  WATCHDOG: %1; stopping\n"_s.arg(m_abortReason));
        if (m_loop)
            m_loop->quit();
    }
}

int Soak::report()
{
    // Faults that never found their request, and stdio faults never consumed.
    const int httpArmedLeft = int(m_http.proxy->armed().size());
    const int stdioArmedLeft = m_stdio.connection->pendingStdioFaults();
    m_http.proxy->clear();
    const int httpReconnects = m_http.connection->reconnector()->reconnectCount();
    const int stdioReconnects = m_stdio.connection->reconnector()->reconnectCount();
    const int httpFired = m_http.proxy->faultsFired();
    const int duplicatesRefused = m_http.proxy->duplicatesRefused();
    const int stdioFired = m_stdio.stdioFaultsFired;

    // Let stragglers the engine gave up on (sleeps past their deadline, delayed forwards) reach the
    // ledger before it is read, then stop both servers.
    QEventLoop settle;
    QTimer::singleShot(1500, &settle, &QEventLoop::quit);
    settle.exec();
    for (Rig* rig : { &m_http, &m_stdio }) {
        QEventLoop closed;
        QObject::connect(rig->connection.get(), &ServerConnection::closed, &closed, &QEventLoop::quit);
        QTimer::singleShot(5000, &closed, &QEventLoop::quit);
        rig->connection->disconnectFromServer();
        closed.exec();
    }
    m_http.peer.stop();

    LedgerCounts ledger;
    readLedger(m_http.ledger, &ledger);
    readLedger(m_stdio.ledger, &ledger);

    SplitCounts outcomes;
    SplitCounts rules;
    std::map<QString, int> faults;
    int started = 0;
    int finished = 0;
    int neverFinished = 0;
    int duplicateRecords = 0;
    int idMismatch = 0;
    int duplicateWrites = 0;
    int sentMoreThanTwice = 0;
    int writeSuccessNotRun = 0;
    int notDispatchedButRan = 0;
    int healedCalls = 0;
    QSet<QString> ours;
    QStringList problems;
    for (int i = 0; i < m_next; ++i) {
        const PlannedCall& call = m_plan.at(i);
        const CallState& state = m_states.at(i);
        ++started;
        faults[call.faultName.isEmpty() ? u"(none)"_s : sideName(call.side) + u' ' + call.faultName] += 1;
        if (state.callbacks == 0 || m_unfinishedAtEnd.contains(i)) {
            ++neverFinished;
            problems.append(u"never finished: #%1 %2 %3 fault=%4 call id %5"_s.arg(i).arg(
                sideName(call.side), call.tool, call.faultName, state.callId));
            ours.insert(state.callId);
            continue;
        }
        ++finished;
        if (state.callbacks > 1) {
            duplicateRecords += state.callbacks - 1;
            problems.append(u"%1 finished records: #%2 call id %3"_s.arg(state.callbacks).arg(i).arg(state.callId));
        }
        if (state.recordCallId != state.callId) {
            ++idMismatch;
            problems.append(u"record call id %1 differs from the id callTool returned (%2)"_s.arg(
                state.recordCallId, state.callId));
        }
        const CallRecord& record = *state.record;
        ours.insert(record.callId);
        const int column = call.side == Side::Http ? 0 : 1;
        outcomes[outcomeName(record.outcome)][column] += 1;
        rules[record.rule.isEmpty() ? u"(first try)"_s : record.rule][column] += 1;
        healedCalls += !record.reconnects.isEmpty();
        const int runs = ledger.runs.value(record.callId);
        if (isWriteCapable(call.tool) && runs > 1) {
            ++duplicateWrites;
            problems.append(u"DUPLICATE WRITE: #%1 %2 %3 fault=%4 ran %5 times, outcome %6 rule %7, call id %8"_s.arg(i)
                                .arg(sideName(call.side), call.tool, call.faultName)
                                .arg(runs)
                                .arg(outcomeName(record.outcome), record.rule, record.callId));
        }
        if (runs > 2) {
            ++sentMoreThanTwice;
            problems.append(u"RAN %1 TIMES (R7 allows 2): #%2 %3 %4 call id %5"_s.arg(runs).arg(i).arg(
                sideName(call.side), call.tool, record.callId));
        }
        if (isWriteCapable(call.tool) && record.outcome == CallOutcome::Success && runs != 1)
            ++writeSuccessNotRun;
        const bool claimsNotRun = record.outcome == CallOutcome::NotDispatched
            || record.outcome == CallOutcome::BreakerOpen || record.outcome == CallOutcome::NeedsAuth;
        if (claimsNotRun && runs > 0) {
            ++notDispatchedButRan;
            problems.append(u"outcome %1 but the server ran it %2 time(s): #%3 %4 %5 fault=%6 call id %7"_s
                                .arg(outcomeName(record.outcome))
                                .arg(runs)
                                .arg(i)
                                .arg(sideName(call.side), call.tool, call.faultName, record.callId));
        }
    }
    int strangers = ledger.withoutCallId;
    for (auto it = ledger.runs.cbegin(); it != ledger.runs.cend(); ++it)
        strangers += ours.contains(it.key()) ? 0 : it.value();

    int logLost = 0;
    int logDuplicates = 0;
    if (m_log) {
        m_log->close();
        QHash<QString, int> seen;
        QFile file(m_config.logPath);
        if (file.open(QIODevice::ReadOnly)) {
            for (const QByteArray& line : file.readAll().split('\n')) {
                if (!line.trimmed().isEmpty())
                    seen[QJsonDocument::fromJson(line).object().value("callId"_L1).toString()] += 1;
            }
        }
        for (int i = 0; i < m_next; ++i) {
            const int n = seen.value(m_states.at(i).callId);
            logLost += n == 0;
            logDuplicates += std::max(0, n - 1);
        }
    }
    const int unstarted = int(m_plan.size()) - m_next;
    const int lost = neverFinished + idMismatch + logLost;

    print(u"\n"_s + splitHistogram(u"outcomes (%1 finished)"_s.arg(finished), outcomes, finished));
    print(splitHistogram(u"rules"_s, rules, finished));
    print(u"  faults planned\n"_s + histogram(faults, started));
    print(u"  faults fired: %1 on the HTTP proxy, %2 stdio (%3 + %4 armed but never used)\n"_s.arg(httpFired)
              .arg(stdioFired)
              .arg(httpArmedLeft)
              .arg(stdioArmedLeft));
    print(
        u"  reconnects: %1 (http %2, stdio %3); calls that waited on one: %4\n"_s.arg(httpReconnects + stdioReconnects)
            .arg(httpReconnects)
            .arg(stdioReconnects)
            .arg(healedCalls));
    print(u"  ledger: %1 tool runs on the servers, %2 not from a call of this run\n"_s.arg(ledger.entries)
              .arg(strangers));
    print(u"  write-capable successes the ledger does not show exactly once: %1\n"_s.arg(writeSuccessNotRun));
    print(u"  calls reported as not run (not_dispatched, breaker_open, needs_auth) that ran: %1\n"_s.arg(
        notDispatchedButRan));
    if (m_log)
        print(
            u"  --log %1: %2 call ids missing, %3 repeated\n"_s.arg(m_config.logPath).arg(logLost).arg(logDuplicates));
    const int shown = std::min<int>(int(problems.size()), 40);
    for (int i = 0; i < shown; ++i)
        print(u"  ! %1\n"_s.arg(problems.at(i)));
    if (problems.size() > shown)
        print(u"  ! … and %1 more\n"_s.arg(problems.size() - shown));

    const bool pass = duplicateWrites == 0 && duplicatesRefused == 0 && lost == 0 && duplicateRecords == 0
        && logDuplicates == 0 && sentMoreThanTwice == 0 && m_abortReason.isEmpty() && unstarted == 0;
    print(u"\n  %1 %2   %3\n"_s.arg(u"check"_s, -42).arg(u"value"_s, 6).arg(u"goal"_s));
    const auto line = [](const QString& name, int value) {
        print(u"  %1 %2   0      %3\n"_s.arg(name, -42).arg(value, 6).arg(value == 0 ? u"PASS"_s : u"MISS"_s));
    };
    line(u"write-capable calls run twice or more"_s, duplicateWrites);
    line(u"attempts re-sent below the engine (409s)"_s, duplicatesRefused);
    line(u"calls run more than twice (R7)"_s, sentMoreThanTwice);
    line(u"records lost (never finished / wrong id)"_s, lost);
    line(u"records duplicated"_s, duplicateRecords + logDuplicates);
    line(u"calls never started (watchdog)"_s, unstarted);
    if (!m_abortReason.isEmpty())
        print(u"  watchdog: %1\n"_s.arg(m_abortReason));
    print(u"\n  soak %1 (seed %2)\n"_s.arg(pass ? u"PASSED"_s : u"FAILED"_s).arg(m_config.seed));
    return pass ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Recovery soak: random faults over stdio and Streamable HTTP, duplicates "
                                     "and lost records counted from the servers' ledgers."_s);
    parser.addHelpOption();
    const Config defaults;
    const QCommandLineOption callsOption(u"calls"_s, u"Calls to make."_s, u"n"_s, QString::number(defaults.calls));
    const QCommandLineOption seedOption(u"seed"_s, u"The plan's seed (default: a random one, printed)."_s, u"n"_s);
    const QCommandLineOption rateOption(
        u"fault-rate"_s, u"Share of calls with a fault armed, 0–1."_s, u"p"_s, QString::number(defaults.faultRate));
    const QCommandLineOption inFlightOption(
        u"max-in-flight"_s, u"Most calls in flight at once."_s, u"n"_s, QString::number(defaults.maxInFlight));
    const QCommandLineOption timeoutOption(
        u"timeout-ms"_s, u"Each call's deadline."_s, u"ms"_s, QString::number(defaults.timeoutMs));
    const QCommandLineOption stallOption(u"stall-seconds"_s, u"A call unfinished this long counts as never finished."_s,
        u"s"_s, QString::number(defaults.stallSeconds));
    const QCommandLineOption maxOption(
        u"max-seconds"_s, u"The overall watchdog."_s, u"s"_s, QString::number(defaults.maxSeconds));
    const QCommandLineOption thresholdOption(u"breaker-threshold"_s, u"Strikes that open the breaker."_s, u"n"_s,
        QString::number(defaults.breakerThreshold));
    const QCommandLineOption cooldownOption(u"breaker-cooldown"_s,
        u"Breaker cooldown in seconds (short, so an open breaker does not idle the run)."_s, u"s"_s,
        QString::number(defaults.breakerCooldownSec));
    const QCommandLineOption logOption(u"log"_s, u"Write every finished call record here as JSONL."_s, u"file"_s);
    const QCommandLineOption keepOption(u"keep"_s, u"Keep the ledger files."_s);
    const QCommandLineOption nodeOption(u"node"_s, u"The pinned Node 22."_s, u"path"_s, QStringLiteral(MCPSCOPE_NODE));
    const QCommandLineOption peersOption(
        u"peers-dir"_s, u"Where ledger-peer.mjs is."_s, u"path"_s, QStringLiteral(MCPSCOPE_PEERS_DIR));
    parser.addOptions({ callsOption, seedOption, rateOption, inFlightOption, timeoutOption, stallOption, maxOption,
        thresholdOption, cooldownOption, logOption, keepOption, nodeOption, peersOption });
    parser.process(app);

    Config config;
    config.node = parser.value(nodeOption);
    config.peersDir = parser.value(peersOption);
    config.calls = std::max(1, parser.value(callsOption).toInt());
    config.seed = parser.isSet(seedOption) ? parser.value(seedOption).toULongLong()
                                           : QRandomGenerator::system()->generate() % 1000000000u;
    config.faultRate = std::clamp(parser.value(rateOption).toDouble(), 0.0, 1.0);
    config.maxInFlight = std::max(1, parser.value(inFlightOption).toInt());
    config.timeoutMs = std::max<qint64>(100, parser.value(timeoutOption).toLongLong());
    config.stallSeconds = std::max(5, parser.value(stallOption).toInt());
    config.maxSeconds = std::max(10, parser.value(maxOption).toInt());
    config.breakerThreshold = std::max(1, parser.value(thresholdOption).toInt());
    config.breakerCooldownSec = std::max(1, parser.value(cooldownOption).toInt());
    config.logPath = parser.value(logOption);
    config.keep = parser.isSet(keepOption);

    Soak soak(config);
    return soak.run();
}
