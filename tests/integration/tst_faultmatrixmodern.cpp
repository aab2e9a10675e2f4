// The fault matrix's 2026-07-28 rows (RECOVERY.md §9): the SDK v2 modern ledger peer over Streamable HTTP
// behind the fault proxy, the engine in era modern. For each row: arm a fault, call a tool, and assert the
// rule recorded, the outcome, and the EXACT number of times the server ran the tool (from the peer's own
// ledger). The pre-execution refusals (-32022, -32020) are the proxy's own answers: no real server refuses
// a well-formed request that way on demand, so the proxy produces them, and says so in a header.

#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "ledger.h"
#include "peerprocess.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {
constexpr int WaitMs = 40000;

struct ModernRig
{
    QTemporaryDir dir;
    Ledger ledger;
    PeerProcess peer;
    std::unique_ptr<FaultProxy> proxy;
    std::unique_ptr<ServerConnection> connection;
    int toolsLists = 0; ///< tools/list requests the proxy saw after start()

    bool start(ProtocolEra era = ProtocolEra::Modern)
    {
        ledger.path = dir.filePath(QStringLiteral("ledger.jsonl"));
        const quint16 port = freePort();
        if (!peer.start(peersDir() + QStringLiteral("/modern-ledger-peer.mjs"),
                { QStringLiteral("http"), QString::number(port), ledger.path }, QStringLiteral("listening")))
            return false;
        ServerConfig config;
        config.name = QStringLiteral("modern-ledger-http");
        config.transport = TransportKind::StreamableHttp;
        config.era = era;
        config.requestTimeoutMs = 20000;
        config.url = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
        proxy = std::make_unique<FaultProxy>(config.url);
        if (!proxy->listen())
            return false;
        connection = std::make_unique<ServerConnection>(config);
        connection->setEndpointOverride(proxy->url());
        QSignalSpy ready(connection.get(), &ServerConnection::ready);
        connection->connectToServer();
        if (!ready.wait(WaitMs))
            return false;
        QObject::connect(proxy.get(), &FaultProxy::requestSeen, proxy.get(), [this](const QString& method) {
            if (method == QLatin1String("tools/list"))
                ++toolsLists;
        });
        return true;
    }

    void arm(FaultProxy::FaultKind kind, int count, const QString& tool)
    {
        FaultProxy::Fault fault;
        fault.kind = kind;
        fault.count = count;
        fault.method = QStringLiteral("tools/call");
        fault.tool = tool;
        proxy->arm(fault);
    }

    CallRecord call(const QString& tool, const QJsonObject& args = {})
    {
        std::optional<CallRecord> result;
        connection->callTool(tool, args, {}, [&result](const CallRecord& record) { result = record; });
        (void)QTest::qWaitFor([&result] { return result.has_value(); }, WaitMs);
        return result.value_or(CallRecord());
    }
};

QStringList rulesOf(const CallRecord& record)
{
    QStringList rules;
    for (const auto& decision : record.decisions)
        rules.append(decision.rule);
    return rules;
}
} // namespace

class TestFaultMatrixModern : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void refusals_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<QStringList>("rules");
        QTest::addColumn<int>("attempts");
        QTest::addColumn<int>("runs");
        QTest::addColumn<int>("extraLists");
        // R10: -32022 naming 2026-07-28 among the supported versions; even a write is sent again, since
        // the refusal proves it never ran. The server ran it once, on the retry.
        const auto row = [](const char* name, const QString& kind, int count, const QString& tool,
                             const QString& outcome, const QStringList& rules, int attempts, int runs, int lists) {
            QTest::newRow(name) << kind << count << tool << outcome << rules << attempts << runs << lists;
        };
        row("-32022 once, write: R10, 1 run", u"unsupported-version"_s, 1, u"write"_s, u"success"_s, { u"R10"_s }, 2, 1,
            0);
        row("-32022 once, read: R10, 1 run", u"unsupported-version"_s, 1, u"read"_s, u"success"_s, { u"R10"_s }, 2, 1,
            0);
        // R11: -32020, the tools are listed again (one more tools/list), then the call once more.
        row("-32020 once, write: R11, 1 run, 1 re-list", u"header-mismatch"_s, 1, u"write"_s, u"success"_s,
            { u"R11"_s }, 2, 1, 1);
        // R7 over R10: the retry is refused as well; a call is sent at most twice, and nothing ran.
        row("-32022 twice, write: R10 then R7, 0 runs", u"unsupported-version"_s, 2, u"write"_s, u"protocol_error"_s,
            { u"R10"_s, u"R7"_s }, 2, 0, 0);
    }

    void refusals()
    {
        QFETCH(QString, kind);
        QFETCH(int, count);
        QFETCH(QString, tool);
        QFETCH(QString, outcome);
        QFETCH(QStringList, rules);
        QFETCH(int, attempts);
        QFETCH(int, runs);
        QFETCH(int, extraLists);
        ModernRig rig;
        QVERIFY2(rig.start(), rig.peer.output().constData());
        QCOMPARE(rig.connection->session()->details().era, ProtocolEra::Modern);
        const std::optional<FaultProxy::FaultKind> fault = FaultProxy::kindFromName(kind);
        QVERIFY(fault);
        rig.arm(*fault, count, tool);

        const CallRecord record
            = rig.call(tool, tool == QLatin1String("write") ? QJsonObject { { u"note"_s, u"x"_s } } : QJsonObject {});
        QCOMPARE(outcomeName(record.outcome), outcome);
        QCOMPARE(rulesOf(record), rules);
        QCOMPARE(record.attempts.size(), attempts);
        QCOMPARE(record.attempts.first().failureKind, std::optional(FailureKind::Rejected));
        QCOMPARE(record.attempts.first().verdict, std::optional(DispatchVerdict::NotDispatched));
        QCOMPARE(rig.ledger.runsOf(tool), runs);
        QCOMPARE(rig.toolsLists, extraLists);
        // Each refusal the revision defines is explained on the record and on the timeline (issue 16).
        const QString explanation = record.error.value(QLatin1String("explanation")).toString();
        if (outcome != QLatin1String("success")) {
            QVERIFY2(explanation.startsWith(QString::number(record.error.value(QLatin1String("code")).toInt())),
                qPrintable(explanation));
        }
        int explained = 0;
        for (const CallEvent& event : record.events)
            explained += event.kind == QLatin1String("explanation");
        // Every refused attempt is explained; a retry that succeeded is not.
        QCOMPARE(explained, attempts - (outcome == QLatin1String("success") ? 1 : 0));
    }

    // R13 (RECOVERY.md §9): the server answers like a legacy server (the proxy's era-flip: the SDK v1
    // session gate's 400 "Server not initialized"). In era auto the era is probed again (one more
    // server/discover reaches the server) and the call is sent once more: even a write ran exactly once. With
    // the era fixed to modern by hand, probing cannot help: R13 stops and nothing ran.
    void eraFlip_data()
    {
        QTest::addColumn<QString>("era");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<QStringList>("rules");
        QTest::addColumn<int>("runs");
        QTest::addColumn<int>("extraDiscovers");
        QTest::newRow("auto, write: R13 re-probe, 1 run")
            << u"auto"_s << u"write"_s << u"success"_s << QStringList { u"R13"_s } << 1 << 1;
        QTest::newRow("auto, read: R13 re-probe, 1 run")
            << u"auto"_s << u"read"_s << u"success"_s << QStringList { u"R13"_s } << 1 << 1;
        QTest::newRow("modern by hand, write: R13 stop, 0 runs")
            << u"modern"_s << u"write"_s << u"protocol_error"_s << QStringList { u"R13"_s } << 0 << 0;
    }

    void eraFlip()
    {
        QFETCH(QString, era);
        QFETCH(QString, tool);
        QFETCH(QString, outcome);
        QFETCH(QStringList, rules);
        QFETCH(int, runs);
        QFETCH(int, extraDiscovers);
        ModernRig rig;
        QVERIFY2(rig.start(protocolEraFromName(era).value()), rig.peer.output().constData());
        QCOMPARE(rig.connection->session()->details().era, ProtocolEra::Modern);
        const qsizetype discovers = rig.ledger.events(u"discover"_s).size();
        rig.arm(FaultProxy::FaultKind::EraFlip, 1, tool);
        const CallRecord record
            = rig.call(tool, tool == QLatin1String("write") ? QJsonObject { { u"note"_s, u"x"_s } } : QJsonObject {});
        QCOMPARE(outcomeName(record.outcome), outcome);
        QCOMPARE(rulesOf(record), rules);
        QCOMPARE(record.attempts.first().failureKind, std::optional(FailureKind::EraMismatch));
        QCOMPARE(record.attempts.first().verdict, std::optional(DispatchVerdict::NotDispatched));
        // The refused attempt, then (in era auto) the retry in the era the new probe found.
        QCOMPARE(record.attempts.size(), outcome == QLatin1String("success") ? 2 : 1);
        QCOMPARE(rig.ledger.runsOf(tool), runs);
        QCOMPARE(rig.ledger.events(u"discover"_s).size() - discovers, extraDiscovers);
        if (outcome == QLatin1String("success"))
            QCOMPARE(rig.connection->session()->details().era, ProtocolEra::Modern);
    }

    // A response broken after the server ran the call (the proxy relays half the answer, then closes):
    // TransportLost with an Unknown verdict, so R4 re-issues a read once as a new request and R5 leaves a
    // write alone, outcome uncertain. There is no session to heal in this era.
    void brokenResponse_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<int>("runs");
        QTest::addColumn<QString>("fault");
        QTest::newRow("cut-after, read: R4, 2 runs") << u"read"_s << u"success"_s << u"R4"_s << 2 << u"cut-after"_s;
        QTest::newRow("cut-after, write: R5, 1 run, uncertain")
            << u"write"_s << u"outcome_uncertain"_s << u"R5"_s << 1 << u"cut-after"_s;
        // The response stream ends cleanly after the server ran the call, without the answer.
        QTest::newRow("drop-response-stream, read: R4, 2 runs")
            << u"read"_s << u"success"_s << u"R4"_s << 2 << u"drop-response-stream"_s;
        QTest::newRow("drop-response-stream, write: R5, 1 run, uncertain")
            << u"write"_s << u"outcome_uncertain"_s << u"R5"_s << 1 << u"drop-response-stream"_s;
    }

    void brokenResponse()
    {
        QFETCH(QString, tool);
        QFETCH(QString, outcome);
        QFETCH(QString, rule);
        QFETCH(int, runs);
        QFETCH(QString, fault);
        ModernRig rig;
        QVERIFY2(rig.start(), rig.peer.output().constData());
        const std::optional<FaultProxy::FaultKind> kind = FaultProxy::kindFromName(fault);
        QVERIFY(kind);
        rig.arm(*kind, 1, tool);
        const CallRecord record = rig.call(tool);
        QCOMPARE(outcomeName(record.outcome), outcome);
        QCOMPARE(record.attempts.first().failureKind, std::optional(FailureKind::TransportLost));
        QCOMPARE(rulesOf(record).value(0), rule);
        QCOMPARE(rig.ledger.runsOf(tool), runs);
    }
};

QTEST_GUILESS_MAIN(TestFaultMatrixModern)
#include "tst_faultmatrixmodern.moc"
