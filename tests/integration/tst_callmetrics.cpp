// CallMetrics (core/models/callmetrics.h) against the real server-everything on stdio: one latency
// point per finished call, the server's latencies and each tool's CallStats, and the tools table's
// Calls, ErrorRate, p50 and p99 columns read from them; also what a LoadRunner's calls add.

#include "engine/engine.h"
#include "engine/loadrunner.h"
#include "models/callmetrics.h"
#include "models/toolsmodel.h"
#include "peerprocess.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope;
using namespace mcpscope::test;

namespace {

constexpr int WaitMs = 30000;

int pointsOf(const QList<LatencyPoint>& points, const QString& tool)
{
    int n = 0;
    for (const LatencyPoint& point : points)
        n += point.tool == tool;
    return n;
}

} // namespace

class TestCallMetrics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void onePointPerCall();
    void loadRunCallsAreCounted();
};

void TestCallMetrics::onePointPerCall()
{
    Engine engine;
    CallMetrics metrics(&engine);
    ToolsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMetrics(&metrics);
    ServerConnection* connection = engine.addServer(everythingStdioConfig());
    model.setConnection(connection);
    QSignalSpy ready(connection, &ServerConnection::ready);
    connection->connectToServer();
    QVERIFY(ready.wait(WaitMs));
    const int before = int(metrics.points(u"everything"_s).size());

    constexpr int Calls = 25;
    int done = 0;
    for (int i = 0; i < Calls; ++i) {
        engine.call(u"everything"_s, u"tools/call"_s,
            { { u"name"_s, u"echo"_s }, { u"arguments"_s, QJsonObject { { u"message"_s, u"hi %1"_s.arg(i) } } } }, {},
            [&done](const CallRecord&) { ++done; });
    }
    // An unknown tool: the server answers with an error, which the stats count as not ok.
    engine.call(u"everything"_s, u"tools/call"_s,
        { { u"name"_s, u"no-such-tool"_s }, { u"arguments"_s, QJsonObject {} } }, {},
        [&done](const CallRecord&) { ++done; });
    QTRY_COMPARE_WITH_TIMEOUT(done, Calls + 1, WaitMs);

    const QList<LatencyPoint>& points = metrics.points(u"everything"_s);
    QCOMPARE(int(points.size()) - before, Calls + 1);
    QCOMPARE(pointsOf(points, u"echo"_s), Calls);
    QCOMPARE(pointsOf(points, u"no-such-tool"_s), 1);
    for (const LatencyPoint& point : points) {
        QVERIFY(point.endedAt > 0);
        QCOMPARE(point.attempts, 1);
        QVERIFY(!point.fault);
    }
    QCOMPARE(metrics.latency(u"everything"_s).count(), int(points.size()));
    const CallStats* echo = metrics.toolStats(u"everything"_s, u"echo"_s);
    QVERIFY(echo);
    QCOMPARE(echo->count(), Calls);
    QCOMPARE(echo->ok(), Calls);
    QCOMPARE(echo->errorRate(), 0.0);
    const CallStats* missing = metrics.toolStats(u"everything"_s, u"no-such-tool"_s);
    QVERIFY(missing);
    QCOMPARE(missing->count(), 1);
    QCOMPARE(missing->ok(), 0);

    // The tools table reads the same figures, once the coalesced change has come.
    const int row = model.rowOf(u"echo"_s);
    QVERIFY(row >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(model.index(row, ToolsModelColumn::Calls).data().toInt(), Calls, WaitMs);
    QCOMPARE(model.index(row, ToolsModelColumn::ErrorRate).data().toDouble(), 0.0);
    QCOMPARE(model.index(row, ToolsModelColumn::P50).data().toDouble(), echo->latency().percentile(50));
    QCOMPARE(model.index(row, ToolsModelColumn::P99).data().toDouble(), echo->latency().percentile(99));
    // A tool never called has no figures.
    const int other = model.rowOf(u"get-sum"_s);
    QVERIFY(other >= 0);
    QVERIFY(!model.index(other, ToolsModelColumn::Calls).data().isValid());

    engine.removeServer(u"everything"_s);
    QCOMPARE(metrics.points(u"everything"_s).size(), 0);
}

void TestCallMetrics::loadRunCallsAreCounted()
{
    Engine engine;
    CallMetrics metrics(&engine);
    ServerConnection* connection = engine.addServer(everythingStdioConfig());
    QSignalSpy ready(connection, &ServerConnection::ready);
    connection->connectToServer();
    QVERIFY(ready.wait(WaitMs));

    LoadSpec spec;
    spec.tool = u"echo"_s;
    spec.arguments = { { u"message"_s, u"load"_s } };
    spec.concurrency = 6;
    spec.requests = 300;
    QVERIFY(LoadRunner::validate(spec).isEmpty());
    LoadRunner runner(&engine, u"everything"_s, spec);
    QSignalSpy finished(&runner, &LoadRunner::finished);
    QSignalSpy each(&runner, &LoadRunner::callFinished);
    runner.start();
    QVERIFY(finished.wait(WaitMs));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(each.size(), 300);
    QCOMPARE(runner.stats().ok(), 300);
    QCOMPARE(runner.report().value("requests"_L1).toInt(), 300);
    QCOMPARE(pointsOf(metrics.points(u"everything"_s), u"echo"_s), 300);
    QCOMPARE(metrics.toolStats(u"everything"_s, u"echo"_s)->count(), 300);
}

QTEST_GUILESS_MAIN(TestCallMetrics)
#include "tst_callmetrics.moc"
