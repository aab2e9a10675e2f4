// The fault matrix (RECOVERY.md R1–R9): for each rule, over each transport where it applies, arm a
// fault, make the call through the engine, and assert the outcome and rule recorded, the EXACT number
// of times the server ran the tool (read from the ledger peer's file, not from our own log), whether
// the session was healed onto a new, distinct session, and the breaker state.
// Last, records from real runs of its own (faults on the ledger peer, plus a few real server-everything
// calls) make a round trip through a JSONL file and through the LogStore, and come back identical.

#include "calllog/calllogfile.h"
#include "calllog/logstore.h"
#include "calllog/logstorereader.h"
#include "calllog/redactor.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "ledger.h"
#include "logstorereads.h"
#include "peerprocess.h"
#include "recovery/circuitbreaker.h"
#include "recovery/reconnector.h"

#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

using namespace mcpscope;
using namespace mcpscope::testing;
using namespace mcpscope::test;

namespace {
constexpr int WaitMs = 40000;

/// One ledger peer (stdio, or Streamable HTTP or legacy SSE behind a fault proxy) and a connection to it.
struct Rig
{
    QTemporaryDir dir;
    Ledger ledger;
    PeerProcess httpPeer;
    std::unique_ptr<FaultProxy> proxy;
    std::unique_ptr<ServerConnection> connection;
    /// The HTTP ledger peer's environment (LEDGER_PEER_LIST_TWICE for the fresh-annotation rows).
    QProcessEnvironment peerEnv = QProcessEnvironment::systemEnvironment();
    int keepAliveMs = 0; ///< the HTTP peer's keep-alive timeout; 0: Node's default
    bool direct = false; ///< HTTP without the fault proxy

    bool start(const QString& transport, bool idempotentReplay = false)
    {
        ledger.path = dir.filePath(QStringLiteral("ledger.jsonl"));
        ServerConfig config;
        config.name = QStringLiteral("ledger-") + transport;
        config.requestTimeoutMs = 20000;
        config.idempotentReplay = idempotentReplay;
        const QString script = peersDir() + QStringLiteral("/ledger-peer.mjs");
        if (transport == QLatin1String("stdio")) {
            config.transport = TransportKind::Stdio;
            config.command = nodeBinary();
            config.args = { script, QStringLiteral("stdio"), ledger.path };
        } else {
            // "http": Streamable HTTP on /mcp; "sse": legacy HTTP+SSE, GET /sse and POST /messages.
            const bool sse = transport == QLatin1String("sse");
            const quint16 port = freePort();
            QProcessEnvironment env = peerEnv;
            if (keepAliveMs > 0)
                env.insert(QStringLiteral("LEDGER_KEEPALIVE_MS"), QString::number(keepAliveMs));
            if (!httpPeer.start(
                    script, { transport, QString::number(port), ledger.path }, QStringLiteral("listening"), env))
                return false;
            config.transport = sse ? TransportKind::LegacySse : TransportKind::StreamableHttp;
            config.url = QUrl(QStringLiteral("http://127.0.0.1:%1/%2").arg(port).arg(sse ? u"sse" : u"mcp"));
            if (!direct) {
                proxy = std::make_unique<FaultProxy>(config.url);
                if (!proxy->listen())
                    return false;
            }
        }
        connection = std::make_unique<ServerConnection>(config);
        if (proxy)
            connection->setEndpointOverride(proxy->url());
        QSignalSpy ready(connection.get(), &ServerConnection::ready);
        connection->connectToServer();
        return ready.wait(WaitMs);
    }

    void arm(FaultProxy::FaultKind kind, int count = 1, const QString& tool = {})
    {
        FaultProxy::Fault fault;
        fault.kind = kind;
        fault.count = count;
        fault.method = QStringLiteral("tools/call");
        fault.tool = tool;
        proxy->arm(fault);
    }

    CallRecord call(const QString& tool, const QJsonObject& args = {}, qint64 timeoutMs = 0)
    {
        std::optional<CallRecord> result;
        CallOptions options;
        options.timeoutMs = timeoutMs;
        connection->callTool(tool, args, options, [&result](const CallRecord& record) { result = record; });
        (void)QTest::qWaitFor([&result] { return result.has_value(); }, WaitMs);
        return result.value_or(CallRecord());
    }
};

QStringList sessionsOf(const CallRecord& record)
{
    QStringList sessions;
    for (const CallAttempt& attempt : record.attempts)
        sessions.append(attempt.sessionId);
    return sessions;
}
} // namespace

class TestFaultMatrix : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void httpFaults_data();
    void httpFaults();
    void keepAliveRaceRunsEachWriteOnce();
    void stdioKillAfterWrite_data();
    void stdioKillAfterWrite();
    void stdioDeadBeforeWriteIsR1();
    void concurrentExpiryJoinsOneReconnect();
    void breakerOpensFailsFastAndLetsOneProbe();
    void timeoutOnWriteCancelsAndIsUncertain();
    void killTransportEndsTheCallInFlightAtOnce_data();
    void killTransportEndsTheCallInFlightAtOnce();
    void idempotentReplayPolicy_data();
    void idempotentReplayPolicy();
    void freshAnnotations_data();
    void freshAnnotations();
    void recordsOfTheRunsRoundTrip();
};

void TestFaultMatrix::httpFaults_data()
{
    QTest::addColumn<QString>("transport");
    QTest::addColumn<int>("fault");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("serverRuns");
    QTest::addColumn<bool>("healed");
    using K = FaultProxy::FaultKind;
    const QString http = QStringLiteral("http");
    QTest::newRow("write + expire-after: ran once, uncertain, healed")
        << http << int(K::ExpireAfter) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 1 << true;
    QTest::newRow("read-only + expire-after: ran twice, success on a new session")
        << http << int(K::ExpireAfter) << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4")
        << 2 << true;
    QTest::newRow("write + expire-before: pre-dispatch 404 is still R5, ran zero times")
        << http << int(K::ExpireBefore) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 0 << true;
    QTest::newRow("read-only + expire-before: retried once, ran once")
        << http << int(K::ExpireBefore) << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4")
        << 1 << true;
    QTest::newRow("write + cut-after: ran once, uncertain")
        << http << int(K::CutAfter) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 1 << true;
    QTest::newRow("read-only + cut-after: ran twice, success")
        << http << int(K::CutAfter) << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4") << 2
        << true;
    QTest::newRow("write + drop-stream: ran once, uncertain")
        << http << int(K::DropStream) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 1 << true;
    QTest::newRow("read-only + expire-after on both attempts: R7 stops, ran twice")
        << http << int(K::ExpireAfter) * 100 + 2 << QStringLiteral("read") << QStringLiteral("transport_error")
        << QStringLiteral("R7") << 2 << true;
    QTest::newRow("write + auth-401: retried once, ran once (R2)")
        << http << int(K::Auth401) << QStringLiteral("write") << QStringLiteral("success") << QStringLiteral("R2") << 1
        << true;
    // Legacy SSE: the proxy keeps the answer off the event stream as well, so the POST's fate decides.
    const QString sse = QStringLiteral("sse");
    QTest::newRow("sse: write + expire-after: ran once, uncertain, healed")
        << sse << int(K::ExpireAfter) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 1 << true;
    QTest::newRow("sse: read-only + expire-after: ran twice, success on a new session")
        << sse << int(K::ExpireAfter) << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4")
        << 2 << true;
    QTest::newRow("sse: write + cut-after: ran once, uncertain")
        << sse << int(K::CutAfter) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 1 << true;
    QTest::newRow("sse: read-only + cut-after: ran twice, success")
        << sse << int(K::CutAfter) << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4") << 2
        << true;
    QTest::newRow("sse: write + drop-stream: ran once, uncertain")
        << sse << int(K::DropStream) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
        << QStringLiteral("R5") << 1 << true;
    // The server ran the call, then the connection closed or reset before one byte of the response: no
    // layer may send it again (RECOVERY.md §1). Over legacy SSE the answer is kept off the event stream too.
    for (const QString& transport : { QStringLiteral("http"), QStringLiteral("sse") }) {
        for (const auto& [kind, name] : { std::pair { K::CloseBeforeHead, "close-before-head" },
                 std::pair { K::RstBeforeHead, "rst-before-head" } }) {
            QTest::addRow("%s: write + %s: ran once, uncertain, healed", qPrintable(transport), name)
                << transport << int(kind) << QStringLiteral("write") << QStringLiteral("outcome_uncertain")
                << QStringLiteral("R5") << 1 << true;
            QTest::addRow("%s: read-only + %s: ran twice, success on a new session", qPrintable(transport), name)
                << transport << int(kind) << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4")
                << 2 << true;
        }
    }
}

void TestFaultMatrix::httpFaults()
{
    QFETCH(QString, transport);
    QFETCH(int, fault);
    QFETCH(QString, tool);
    QFETCH(QString, outcome);
    QFETCH(QString, rule);
    QFETCH(int, serverRuns);
    QFETCH(bool, healed);
    Rig rig;
    QVERIFY(rig.start(transport));
    const QString firstSession = rig.connection->sessionId();
    QVERIFY(!firstSession.isEmpty());
    // fault encodes kind * 100 + count when a row arms more than one.
    const int count = fault >= 100 ? fault % 100 : 1;
    rig.arm(FaultProxy::FaultKind(fault >= 100 ? fault / 100 : fault), count);

    const CallRecord record = rig.call(tool,
        tool == QLatin1String("write") ? QJsonObject { { QStringLiteral("note"), QStringLiteral("m") } }
                                       : QJsonObject());
    // What happened, in one line, for any check below that fails.
    QString attempts;
    for (const CallAttempt& attempt : record.attempts)
        attempts += QStringLiteral(" [#%1: HTTP %2, %3, %4]")
                        .arg(attempt.number)
                        .arg(attempt.httpStatus)
                        .arg(attempt.failureKind ? failureKindName(*attempt.failureKind) : QStringLiteral("ok"),
                            attempt.error);
    const QByteArray seen = QStringLiteral("outcome %1, rule %2, server ran it %3 time(s), proxy refused %4 "
                                           "duplicate(s); attempts:%5")
                                .arg(outcomeName(record.outcome), record.rule)
                                .arg(rig.ledger.runsOfCall(record.callId))
                                .arg(rig.proxy->duplicatesRefused())
                                .arg(attempts)
                                .toUtf8();
    // A refused duplicate means some layer below the decision table sent an attempt again.
    QVERIFY2(rig.proxy->duplicatesRefused() == 0, seen.constData());
    QVERIFY2(rig.ledger.runsOfCall(record.callId) == serverRuns, seen.constData());
    QVERIFY2(outcomeName(record.outcome) == outcome, seen.constData());
    QCOMPARE(record.rule, rule);
    QCOMPARE(rig.proxy->faultsFired(), count);
    if (healed) {
        QCOMPARE(record.reconnects.size(), count);
        QVERIFY(record.reconnects.first().ok);
        QVERIFY(!record.reconnects.first().newSessionId.isEmpty());
        QVERIFY(record.reconnects.first().newSessionId != firstSession);
        QCOMPARE(rig.connection->sessionId(), record.reconnects.last().newSessionId);
    }
    if (record.outcome == CallOutcome::OutcomeUncertain) {
        QCOMPARE(record.attempts.size(), 1);
        const QJsonObject result = record.result.toObject();
        QCOMPARE(result.value(QLatin1String("outcome")).toString(), QStringLiteral("uncertain"));
        QCOMPARE(result.value(QLatin1String("healed")).toBool(), true);
        QCOMPARE(result.value(QLatin1String("rule")).toString(), rule);
    }
    if (record.outcome == CallOutcome::Success && record.attempts.size() == 2)
        QCOMPARE(sessionsOf(record), QStringList({ firstSession, rig.connection->sessionId() }));
    // A heal closes the breaker; an uncertain outcome after a heal is not a strike.
    QCOMPARE(rig.connection->breaker()->state(), CircuitBreaker::State::Closed);
    QCOMPARE(rig.connection->breaker()->consecutiveFailures(), 0);
}

// The server closes an idle keep-alive connection after 1 s; each write comes 1.1 s after the last one
// finished, just after the close. A client that writes on the closed connection and then re-sends would
// run a write twice; one that sees the close first opens a new connection. No proxy: nothing in between.
void TestFaultMatrix::keepAliveRaceRunsEachWriteOnce()
{
    Rig rig;
    rig.keepAliveMs = 1000;
    rig.direct = true;
    QVERIFY(rig.start(QStringLiteral("http")));
    QList<CallRecord> records;
    std::function<void()> next = [&] {
        rig.connection->callTool(QStringLiteral("write"),
            { { QStringLiteral("note"), QStringLiteral("keep-alive %1").arg(records.size()) } }, {},
            [&](const CallRecord& record) {
                records.append(record);
                if (records.size() < 5)
                    QTimer::singleShot(1100, rig.connection.get(), next);
            });
    };
    next();
    QTRY_COMPARE_WITH_TIMEOUT(records.size(), 5, WaitMs);
    for (const CallRecord& record : std::as_const(records)) {
        QVERIFY2(record.outcome == CallOutcome::Success, QJsonDocument(record.toJson()).toJson().constData());
        QCOMPARE(record.attempts.size(), 1);
        QCOMPARE(rig.ledger.runsOfCall(record.callId), 1);
    }
    QCOMPARE(rig.ledger.runsOf(QStringLiteral("write")), 5);
}

void TestFaultMatrix::stdioKillAfterWrite_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("rule");
    QTest::newRow("write: ran at most once, uncertain, child respawned")
        << QStringLiteral("write") << QStringLiteral("outcome_uncertain") << QStringLiteral("R5");
    QTest::newRow("read-only: success after respawn")
        << QStringLiteral("read") << QStringLiteral("success") << QStringLiteral("R4");
}

void TestFaultMatrix::stdioKillAfterWrite()
{
    QFETCH(QString, tool);
    QFETCH(QString, outcome);
    QFETCH(QString, rule);
    Rig rig;
    QVERIFY(rig.start(QStringLiteral("stdio")));
    const QString firstPid = rig.connection->sessionId();
    rig.connection->armStdioFault(StdioFault::KillAfterWrite);
    const CallRecord record = rig.call(tool);
    QCOMPARE(outcomeName(record.outcome), outcome);
    QCOMPARE(record.rule, rule);
    QCOMPARE(record.reconnects.size(), 1);
    QVERIFY(record.reconnects.first().ok);
    const QString newPid = rig.connection->sessionId();
    QVERIFY2(newPid != firstPid && newPid.startsWith(QLatin1String("pid:")), qPrintable(newPid));
    // The killed child may or may not have run the request; the new child ran it exactly once for a
    // read and never for a write.
    int onOld = 0;
    int onNew = 0;
    for (const QJsonObject& e : rig.ledger.entries()) {
        const QString pid = QStringLiteral("pid:") + QString::number(e.value(QLatin1String("pid")).toInteger());
        (pid == firstPid ? onOld : onNew) += 1;
    }
    QVERIFY(onOld <= 1);
    QCOMPARE(onNew, tool == QLatin1String("read") ? 1 : 0);
    QCOMPARE(rig.ledger.runsOfCall(record.callId), onOld + onNew);
}

void TestFaultMatrix::stdioDeadBeforeWriteIsR1()
{
    Rig rig;
    QVERIFY(rig.start(QStringLiteral("stdio")));
    QSignalSpy failed(rig.connection.get(), &ServerConnection::failed);
    rig.connection->reconnector()->stopBackground();
    rig.connection->killTransport();
    QVERIFY(failed.wait(WaitMs));
    rig.connection->reconnector()->stopBackground();
    // The child is dead before the write: NotSent → R1, respawn and retry once; the write runs once.
    const CallRecord record = rig.call(QStringLiteral("write"));
    QCOMPARE(outcomeName(record.outcome), QStringLiteral("success"));
    QCOMPARE(record.rule, QStringLiteral("R1"));
    QCOMPARE(record.attempts.size(), 2);
    QCOMPARE(record.attempts.first().failureKind, std::optional<FailureKind>(FailureKind::NotSent));
    QCOMPARE(rig.ledger.runsOfCall(record.callId), 1);
}

void TestFaultMatrix::concurrentExpiryJoinsOneReconnect()
{
    Rig rig;
    QVERIFY(rig.start(QStringLiteral("http")));
    const int reconnectsBefore = rig.connection->reconnector()->reconnectCount();
    rig.arm(FaultProxy::FaultKind::ExpireAfter, 10);
    QList<CallRecord> records;
    for (int i = 0; i < 10; ++i)
        rig.connection->callTool(
            QStringLiteral("read"), {}, {}, [&records](const CallRecord& r) { records.append(r); });
    QTRY_COMPARE_WITH_TIMEOUT(records.size(), 10, WaitMs);
    QCOMPARE(rig.connection->reconnector()->reconnectCount() - reconnectsBefore, 1);
    for (const CallRecord& record : std::as_const(records)) {
        QVERIFY2(record.outcome == CallOutcome::Success, QJsonDocument(record.toJson()).toJson().constData());
        QCOMPARE(record.rule, QStringLiteral("R4"));
        QCOMPARE(rig.ledger.runsOfCall(record.callId), 2);
    }
    QCOMPARE(rig.ledger.runsOf(QStringLiteral("read")), 20);
    QCOMPARE(rig.proxy->duplicatesRefused(), 0);

    // The new session was listed once: the reconnect waits for the list every ready session asks for,
    // and asks for none of its own. One more list from here lands after any the heal sent, so two
    // "listed" events for the session mean the heal sent exactly one.
    const QString session = rig.connection->sessionId();
    const auto listedBy = [&rig](const QString& id) {
        int n = 0;
        for (const QJsonObject& e : rig.ledger.events(QStringLiteral("listed")))
            n += e.value(QLatin1String("session")).toString() == id;
        return n;
    };
    std::optional<mcpscope::Reply> relisted;
    rig.connection->session()->listTools([&relisted](const mcpscope::Reply& reply) { relisted = reply; });
    QTRY_VERIFY_WITH_TIMEOUT(relisted.has_value(), WaitMs);
    QVERIFY(relisted->ok());
    QTRY_VERIFY_WITH_TIMEOUT(listedBy(session) >= 2, WaitMs);
    QCOMPARE(listedBy(session), 2);
}

void TestFaultMatrix::breakerOpensFailsFastAndLetsOneProbe()
{
    Rig rig;
    QVERIFY(rig.start(QStringLiteral("http")));
    qint64 now = 0;
    rig.connection->breaker()->setClock([&now] { return now; });
    // Three final failures in a row: an unknown tool comes back as isError (a tool error is a strike).
    for (int i = 0; i < 3; ++i) {
        const CallRecord record = rig.call(QStringLiteral("no-such-tool"));
        QCOMPARE(outcomeName(record.outcome), QStringLiteral("tool_error"));
        QCOMPARE(record.rule, QStringLiteral("R8"));
    }
    QCOMPARE(rig.connection->breaker()->state(), CircuitBreaker::State::Open);
    const int forwarded = rig.proxy->forwarded();
    const CallRecord fast = rig.call(QStringLiteral("write"));
    QCOMPARE(outcomeName(fast.outcome), QStringLiteral("breaker_open"));
    QCOMPARE(fast.rule, QStringLiteral("R9"));
    QCOMPARE(fast.attempts.size(), 0);
    QCOMPARE(rig.proxy->forwarded(), forwarded);
    QCOMPARE(rig.ledger.runsOf(QStringLiteral("write")), 0);

    now += 60001;
    // Exactly one probe passes: a slow read is the probe, a call made meanwhile still fails fast.
    std::optional<CallRecord> probe;
    rig.connection->callTool(
        QStringLiteral("sleep"), { { QStringLiteral("ms"), 300 } }, {}, [&probe](const CallRecord& r) { probe = r; });
    const CallRecord meanwhile = rig.call(QStringLiteral("write"));
    QCOMPARE(outcomeName(meanwhile.outcome), QStringLiteral("breaker_open"));
    QTRY_VERIFY_WITH_TIMEOUT(probe.has_value(), WaitMs);
    QCOMPARE(outcomeName(probe->outcome), QStringLiteral("success"));
    QCOMPARE(rig.ledger.runsOf(QStringLiteral("sleep")), 1);
    QCOMPARE(rig.ledger.runsOf(QStringLiteral("write")), 0);
    QCOMPARE(rig.connection->breaker()->state(), CircuitBreaker::State::Closed);
    QCOMPARE(rig.proxy->duplicatesRefused(), 0);
}

void TestFaultMatrix::killTransportEndsTheCallInFlightAtOnce_data()
{
    QTest::addColumn<QString>("transport");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("serverRuns");
    for (const QString& transport : { QStringLiteral("http"), QStringLiteral("sse") }) {
        QTest::addRow("%s: write in flight ends uncertain, ran once", qPrintable(transport))
            << transport << QStringLiteral("sleep-write") << QStringLiteral("outcome_uncertain") << QStringLiteral("R5")
            << 1;
        QTest::addRow("%s: read in flight is retried on a new session, ran twice", qPrintable(transport))
            << transport << QStringLiteral("sleep") << QStringLiteral("success") << QStringLiteral("R4") << 2;
    }
}

// Issue 10: kill transport on HTTP left the call pending until its timeout. The call's deadline is
// far away here, so an attempt that ended as transport_lost (never timeout) ended by the kill.
void TestFaultMatrix::killTransportEndsTheCallInFlightAtOnce()
{
    QFETCH(QString, transport);
    QFETCH(QString, tool);
    QFETCH(QString, outcome);
    QFETCH(QString, rule);
    QFETCH(int, serverRuns);
    Rig rig;
    QVERIFY(rig.start(transport));
    const QString firstSession = rig.connection->sessionId();
    std::optional<CallRecord> record;
    CallOptions options;
    options.timeoutMs = 30000;
    rig.connection->callTool(
        tool, { { QStringLiteral("ms"), 1500 } }, options, [&record](const CallRecord& r) { record = r; });
    // The server has the call (it is in the ledger) before the transport is killed.
    QTRY_COMPARE_WITH_TIMEOUT(rig.ledger.runsOf(tool), 1, WaitMs);
    rig.connection->killTransport();
    QTRY_VERIFY_WITH_TIMEOUT(record.has_value(), WaitMs);
    QCOMPARE(outcomeName(record->outcome), outcome);
    QCOMPARE(record->rule, rule);
    QCOMPARE(record->attempts.first().failureKind, std::optional<FailureKind>(FailureKind::TransportLost));
    QCOMPARE(rig.ledger.runsOfCall(record->callId), serverRuns);
    QCOMPARE(record->reconnects.size(), 1);
    QVERIFY(record->reconnects.first().ok);
    QVERIFY(rig.connection->sessionId() != firstSession);
    QCOMPARE(rig.proxy->duplicatesRefused(), 0);
}

void TestFaultMatrix::timeoutOnWriteCancelsAndIsUncertain()
{
    Rig rig;
    QVERIFY(rig.start(QStringLiteral("stdio")));
    QByteArrayList sent;
    QObject::connect(rig.connection.get(), &ServerConnection::traffic, rig.connection.get(),
        [&sent](WireDirection direction, const QByteArray& bytes) {
            if (direction == WireDirection::Outgoing)
                sent.append(bytes);
        });
    const CallRecord record = rig.call(QStringLiteral("sleep-write"), { { QStringLiteral("ms"), 3000 } }, 500);
    QCOMPARE(outcomeName(record.outcome), QStringLiteral("outcome_uncertain"));
    QCOMPARE(record.rule, QStringLiteral("R6"));
    QCOMPARE(record.attempts.size(), 1);
    QCOMPARE(rig.ledger.runsOfCall(record.callId), 1);
    bool cancelled = false;
    for (const QByteArray& bytes : std::as_const(sent))
        cancelled = cancelled || bytes.contains("notifications/cancelled");
    QVERIFY(cancelled);

    const CallRecord read = rig.call(QStringLiteral("sleep"), { { QStringLiteral("ms"), 3000 } }, 500);
    QCOMPARE(outcomeName(read.outcome), QStringLiteral("timeout"));
    QCOMPARE(read.rule, QStringLiteral("R6"));
}

void TestFaultMatrix::idempotentReplayPolicy_data()
{
    QTest::addColumn<bool>("policy");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<int>("serverRuns");
    QTest::newRow("idempotentHint with the policy off: no replay") << false << QStringLiteral("outcome_uncertain") << 1;
    QTest::newRow("idempotentHint with the policy on: replayed") << true << QStringLiteral("success") << 2;
}

void TestFaultMatrix::idempotentReplayPolicy()
{
    QFETCH(bool, policy);
    QFETCH(QString, outcome);
    QFETCH(int, serverRuns);
    Rig rig;
    QVERIFY(rig.start(QStringLiteral("http"), policy));
    rig.arm(FaultProxy::FaultKind::ExpireAfter);
    const CallRecord record = rig.call(QStringLiteral("set"),
        { { QStringLiteral("key"), QStringLiteral("k") }, { QStringLiteral("value"), QStringLiteral("v") } });
    QCOMPARE(outcomeName(record.outcome), outcome);
    QCOMPARE(rig.ledger.runsOfCall(record.callId), serverRuns);
    QCOMPARE(rig.proxy->duplicatesRefused(), 0);
}

// ---- Fresh annotations (issue 10, RECOVERY.md §2 as amended) ----
// A tool that is read-only in the listing the call started with but write-capable in the newest
// listing at decision time (a list_changed re-list during the call, or the reconnect's own listing),
// or whose name is listed twice, must not be replayed: exactly one execution, R5, outcome_uncertain.
void TestFaultMatrix::freshAnnotations_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<int>("fault");
    QTest::addColumn<bool>("listTwice"); ///< LEDGER_PEER_LIST_TWICE=1 for the peer
    QTest::addColumn<QStringList>("rules"); ///< the decision entries' rules, in order
    QTest::addColumn<QString>("why"); ///< in the last decision's reason
    using K = FaultProxy::FaultKind;
    QTest::newRow("re-listed as readOnlyHint false mid-call + drop-stream: ran once, R5")
        << QStringLiteral("read-turns-write") << int(K::DropStream) << false << QStringList { QStringLiteral("R5") }
        << QStringLiteral("the tool's newest listing says readOnlyHint false");
    QTest::newRow("re-listed as readOnlyHint false mid-call + cut-after: ran once, R5")
        << QStringLiteral("read-turns-write") << int(K::CutAfter) << false << QStringList { QStringLiteral("R5") }
        << QStringLiteral("the tool's newest listing says readOnlyHint false");
    QTest::newRow("reconnect's tools/list says readOnlyHint false + expire-after: R4 re-decided as R5, ran once")
        << QStringLiteral("read-until-run") << int(K::ExpireAfter) << false
        << QStringList { QStringLiteral("R4"), QStringLiteral("R5") }
        << QStringLiteral("Decided again with the new session's tools/list before the retry");
    QTest::newRow("name listed twice (true, then false) + expire-after: ran once, R5")
        << QStringLiteral("listed-twice") << int(K::ExpireAfter) << true << QStringList { QStringLiteral("R5") }
        << QStringLiteral("the tool was listed more than once when the call started");
}

void TestFaultMatrix::freshAnnotations()
{
    QFETCH(QString, tool);
    QFETCH(int, fault);
    QFETCH(bool, listTwice);
    QFETCH(QStringList, rules);
    QFETCH(QString, why);
    Rig rig;
    if (listTwice)
        rig.peerEnv.insert(QStringLiteral("LEDGER_PEER_LIST_TWICE"), QStringLiteral("1"));
    QVERIFY(rig.start(QStringLiteral("http")));
    const QString firstSession = rig.connection->sessionId();
    // The call starts with a listing that says readOnlyHint true (first entry, for listed-twice).
    const ToolInfo* listed = rig.connection->session()->tool(tool);
    QVERIFY(listed);
    QVERIFY(listed->isReadOnly());
    QCOMPARE(listed->listedMoreThanOnce, listTwice);
    QSignalSpy toolsChanged(rig.connection.get(), &ServerConnection::toolsChanged);
    rig.arm(FaultProxy::FaultKind(fault), 1, tool);

    const CallRecord record = rig.call(tool);
    QVERIFY2(!record.callId.isEmpty(), "the call did not finish");
    QCOMPARE(rig.ledger.runsOfCall(record.callId), 1);
    QCOMPARE(rig.ledger.runsOf(tool), 1);
    QCOMPARE(outcomeName(record.outcome), QStringLiteral("outcome_uncertain"));
    QCOMPARE(record.rule, QStringLiteral("R5"));
    QCOMPARE(record.attempts.size(), 1);
    QCOMPARE(record.annotations.value(QLatin1String("readOnlyHint")), QJsonValue(true));
    QStringList decided;
    for (const CallDecision& decision : record.decisions)
        decided.append(decision.rule);
    QCOMPARE(decided, rules);
    QVERIFY2(record.decisions.last().reason.contains(why), qPrintable(record.decisions.last().reason));
    QCOMPARE(rig.proxy->faultsFired(), 1);
    // Healed onto a new, distinct session; the uncertain outcome after the heal is no strike.
    QVERIFY(record.healed);
    QCOMPARE(record.reconnects.size(), 1);
    QVERIFY(record.reconnects.first().ok);
    QVERIFY(record.reconnects.first().newSessionId != firstSession);
    const QJsonObject result = record.result.toObject();
    QCOMPARE(result.value(QLatin1String("rule")).toString(), QStringLiteral("R5"));
    QCOMPARE(result.value(QLatin1String("healed")).toBool(), true);
    QCOMPARE(rig.connection->breaker()->consecutiveFailures(), 0);
    if (tool == QLatin1String("read-turns-write"))
        QVERIFY2(toolsChanged.size() >= 2, "the client never re-listed after list_changed"); // re-list + reconnect
}
// ---- end of the fresh-annotation rows ----

// Issue 6: "records from a real fault-matrix run (server-everything and the ledger peer) exported to JSONL
// and re-opened produce identical records". Whole toJson() objects are compared, so every field counts,
// including ones added to CallRecord later. The writers redact, so the expectation is the redacted form.
void TestFaultMatrix::recordsOfTheRunsRoundTrip()
{
    // Its own runs, so that it does not depend on the test functions before it.
    QList<CallRecord> records;
    const QJsonObject note { { QStringLiteral("note"), QStringLiteral("round trip") } };
    // The ledger peer over Streamable HTTP behind the fault proxy: a plain write, an uncertain write, a read
    // healed onto a new session, a read that two expiries end, an unknown tool, a read past its deadline.
    {
        Rig rig;
        QVERIFY(rig.start(QStringLiteral("http")));
        records.append(rig.call(QStringLiteral("write"), note));
        rig.arm(FaultProxy::FaultKind::ExpireAfter);
        records.append(rig.call(QStringLiteral("write"), note));
        rig.arm(FaultProxy::FaultKind::ExpireAfter);
        records.append(rig.call(QStringLiteral("read")));
        rig.arm(FaultProxy::FaultKind::ExpireAfter, 2);
        records.append(rig.call(QStringLiteral("read")));
        records.append(rig.call(QStringLiteral("no-such-tool")));
        records.append(rig.call(QStringLiteral("sleep"), { { QStringLiteral("ms"), 3000 } }, 500));
    }
    // The ledger peer over stdio: a write the child is killed under, then a read on the respawned child.
    {
        Rig rig;
        QVERIFY(rig.start(QStringLiteral("stdio")));
        rig.connection->armStdioFault(StdioFault::KillAfterWrite);
        records.append(rig.call(QStringLiteral("write"), note));
        records.append(rig.call(QStringLiteral("read")));
    }
    // server-everything over stdio: a success, a validation error, a large result, an unknown tool.
    {
        ServerConfig config;
        config.name = QStringLiteral("everything-stdio");
        config.transport = TransportKind::Stdio;
        config.command = nodeBinary();
        config.args = { everythingScript(), QStringLiteral("stdio") };
        config.requestTimeoutMs = 20000;
        ServerConnection connection(config);
        QSignalSpy ready(&connection, &ServerConnection::ready);
        connection.connectToServer();
        QVERIFY(ready.wait(WaitMs));
        const QList<QPair<QString, QJsonObject>> calls {
            { QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("round trip \u00e9\u4e2d") } } },
            { QStringLiteral("get-sum"), { { QStringLiteral("a"), 2 }, { QStringLiteral("b"), 40 } } },
            { QStringLiteral("get-sum"), { { QStringLiteral("a"), QStringLiteral("not a number") } } },
            { QStringLiteral("get-tiny-image"), {} },
            { QStringLiteral("no-such-tool"), {} },
        };
        for (const auto& [tool, args] : calls) {
            std::optional<CallRecord> result;
            connection.callTool(tool, args, {}, [&result](const CallRecord& record) { result = record; });
            QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), WaitMs);
            QVERIFY2(result->isFinished(), qPrintable(tool));
            records.append(*result);
        }
    }

    for (const CallRecord& record : std::as_const(records))
        QVERIFY2(record.isFinished(), qPrintable(record.tool));
    QSet<QString> servers;
    QSet<QString> outcomes;
    for (const CallRecord& record : records) {
        servers.insert(record.server);
        outcomes.insert(outcomeName(record.outcome));
    }
    qInfo("%lld records from %lld servers, outcomes %s", static_cast<long long>(records.size()),
        static_cast<long long>(servers.size()), qPrintable(QStringList(outcomes.cbegin(), outcomes.cend()).join(u',')));
    QCOMPARE(records.size(), 13);
    QVERIFY(servers.contains(QStringLiteral("ledger-http")));
    QVERIFY(servers.contains(QStringLiteral("ledger-stdio")));
    QVERIFY(servers.contains(QStringLiteral("everything-stdio")));
    QCOMPARE(outcomes,
        QSet<QString>({ QStringLiteral("success"), QStringLiteral("outcome_uncertain"),
            QStringLiteral("transport_error"), QStringLiteral("timeout"), QStringLiteral("tool_error") }));

    const Redactor redactor;
    QHash<QString, QJsonObject> expected;
    for (const CallRecord& record : records)
        expected.insert(record.callId, redactor.redactRecord(record));
    QCOMPARE(expected.size(), records.size());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString jsonlPath = dir.filePath(QStringLiteral("matrix.jsonl"));
    QString error;
    QVERIFY2(CallLogWriter::writeJsonl(jsonlPath, records, CallLogFilter(), &error, redactor), qPrintable(error));
    const CallLogReadResult read = CallLogReader::read(jsonlPath);
    QVERIFY2(read.ok, qPrintable(read.error));
    QVERIFY2(read.problems.isEmpty(), qPrintable(read.problems.join(u'\n')));
    QCOMPARE(read.records.size(), records.size());
    for (qsizetype i = 0; i < records.size(); ++i) {
        QCOMPARE(read.records.at(i).callId, records.at(i).callId);
        QCOMPARE(read.records.at(i).toJson(), expected.value(records.at(i).callId));
    }

    // Through the store: each record appended as the engine would, read back by the streaming reader.
    const QString storePath = dir.filePath(QStringLiteral("matrix.mcplog"));
    {
        LogStore store;
        QVERIFY2(store.open(storePath, &error), qPrintable(error));
        for (const CallRecord& record : records)
            store.append(record);
    }
    LogStoreReader reader;
    QVERIFY2(reader.open(storePath, &error), qPrintable(error));
    QCOMPARE(reader.count(), qint64(records.size()));
    QHash<QString, QJsonObject> stored;
    bool inStartOrder = true;
    qint64 lastStart = 0;
    QVERIFY2(reader.forEachRecordJson(
                 [&](const QString& callId, const QByteArray& json) {
                     const QJsonObject object = QJsonDocument::fromJson(json).object();
                     stored.insert(callId, object);
                     const qint64 startedAt = object.value(QLatin1String("startedAt")).toInteger();
                     inStartOrder = inStartOrder && startedAt >= lastStart;
                     lastStart = startedAt;
                     return true;
                 },
                 &error),
        qPrintable(error));
    QVERIFY(inStartOrder);
    QCOMPARE(stored.size(), records.size());
    for (const CallRecord& record : records)
        QCOMPARE(stored.value(record.callId), expected.value(record.callId));
    // And each through LogStore::record(), as the detail view reads it.
    LogStore store;
    QVERIFY2(store.open(storePath, &error), qPrintable(error));
    for (const CallRecord& record : records)
        QCOMPARE(readRecord(store, record.callId)->toJson(), expected.value(record.callId));
}

QTEST_GUILESS_MAIN(TestFaultMatrix)
#include "tst_faultmatrix.moc"
