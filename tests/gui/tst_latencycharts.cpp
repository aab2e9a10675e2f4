// The Charts tab (LatencyChartsPage) and the Load… dialog against the real server-everything on stdio:
// the timeline holds one point per call the engine finished, a retried call under a fault is ringed and
// boxed, the histogram marks p50, p90 and p99, and Load… runs the engine's LoadRunner.

#include "charts/latencychartspage.h"
#include "charts/latencyhistogramview.h"
#include "charts/loaddialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "models/callmetrics.h"
#include "peerprocess.h"

#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope;

[[maybe_unused]] static const bool s_environment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return true;
}();

namespace {

constexpr int WaitMs = 30000;

} // namespace

class TestLatencyCharts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void timelineHoldsOnePointPerCall();
    void loadDialogRunsTheEngine();
    void loadDialogRunsUnderAFault();

private:
    void echo(int count);

    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<CallMetrics> m_metrics;
    ServerConnection* m_connection = nullptr;
};

void TestLatencyCharts::init()
{
    m_engine = std::make_unique<Engine>();
    m_metrics = std::make_unique<CallMetrics>(m_engine.get());
    m_connection = m_engine->addServer(test::everythingStdioConfig());
    QSignalSpy ready(m_connection, &ServerConnection::ready);
    m_connection->connectToServer();
    QVERIFY(ready.wait(WaitMs));
}

void TestLatencyCharts::cleanup()
{
    m_metrics.reset();
    m_engine.reset();
}

void TestLatencyCharts::echo(int count)
{
    int done = 0;
    for (int i = 0; i < count; ++i)
        m_engine->call(u"everything"_s, u"tools/call"_s,
            { { u"name"_s, u"echo"_s }, { u"arguments"_s, QJsonObject { { u"message"_s, u"chart"_s } } } }, {},
            [&done](const CallRecord&) { ++done; });
    QTRY_COMPARE_WITH_TIMEOUT(done, count, WaitMs);
}

void TestLatencyCharts::timelineHoldsOnePointPerCall()
{
    LatencyChartsPage page(m_metrics.get());
    page.resize(800, 600);
    page.show();
    page.showServer(u"everything"_s);
    echo(40);
    // A failure of its own class: a tool the server does not have.
    bool failed = false;
    m_engine->call(u"everything"_s, u"tools/call"_s,
        { { u"name"_s, u"no-such-tool"_s }, { u"arguments"_s, QJsonObject {} } }, {},
        [&failed](const CallRecord&) { failed = true; });
    QTRY_VERIFY_WITH_TIMEOUT(failed, WaitMs);

    const QList<LatencyPoint>& points = m_metrics->points(u"everything"_s);
    QCOMPARE(m_metrics->toolStats(u"everything"_s, u"echo"_s)->count(), 40);
    QCOMPARE(m_metrics->toolStats(u"everything"_s, u"no-such-tool"_s)->count(), 1);
    // The page redraws on the coalesced change: every point of the server, one per call.
    QTRY_COMPARE_WITH_TIMEOUT(page.shownPoints(), int(points.size()), WaitMs);
    QCOMPARE(page.shownRetries(), 0);
    QCOMPARE(page.shownFaults(), 0);

    // The child dies right after the next request is written: echo is read-only, so R4 sends it once
    // more on a new child. Its point is ringed (retried) and boxed (a fault fired while it ran).
    m_connection->armStdioFault(StdioFault::KillAfterWrite);
    CallRecord healed;
    m_engine->call(u"everything"_s, u"tools/call"_s,
        { { u"name"_s, u"echo"_s }, { u"arguments"_s, QJsonObject { { u"message"_s, u"heal"_s } } } }, {},
        [&healed](const CallRecord& record) { healed = record; });
    QTRY_VERIFY_WITH_TIMEOUT(healed.isFinished(), WaitMs);
    QCOMPARE(healed.outcome, CallOutcome::Success);
    QCOMPARE(healed.attempts.size(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(page.shownRetries(), 1, WaitMs);
    QCOMPARE(page.shownFaults(), 1);
    QCOMPARE(page.shownPoints(), int(m_metrics->points(u"everything"_s).size()));

    const QStringList labels = page.histogramView()->percentileLabels();
    QCOMPARE(labels.size(), 3);
    QVERIFY2(
        labels.at(0).startsWith("p50 "_L1) && labels.at(1).startsWith("p90 "_L1) && labels.at(2).startsWith("p99 "_L1),
        qPrintable(labels.join(u", "_s)));
    QVERIFY(page.histogramView()->binCount() >= 1);

    // Another server's chart is empty; back again, the points are all there.
    page.showServer(u"other"_s);
    QCOMPARE(page.shownPoints(), 0);
    page.showServer(u"everything"_s);
    QCOMPARE(page.shownPoints(), int(m_metrics->points(u"everything"_s).size()));
}

void TestLatencyCharts::loadDialogRunsTheEngine()
{
    LoadDialog dialog(m_engine.get(), u"everything"_s, u"echo"_s, { { u"message"_s, u"load"_s } });
    dialog.setConcurrency(5);
    dialog.setLength(60, false);
    dialog.show();
    QSignalSpy finished(&dialog, &LoadDialog::finished);
    dialog.startOrStop();
    QVERIFY(dialog.isRunning());
    QVERIFY(finished.wait(WaitMs));
    QVERIFY(!dialog.isRunning());
    QCOMPARE(dialog.runner()->stats().count(), 60);
    QCOMPARE(dialog.runner()->stats().ok(), 60);
    QVERIFY2(dialog.summaryText().contains("ok 60   tool errors 0   errors 0   uncertain 0   breaker open 0"_L1),
        qPrintable(dialog.summaryText()));
    QVERIFY(dialog.histogram()->binCount() >= 1);
    // The same calls went through Engine::call: on the server's chart too.
    QTRY_VERIFY_WITH_TIMEOUT(m_metrics->toolStats(u"everything"_s, u"echo"_s), WaitMs);
    QCOMPARE(m_metrics->toolStats(u"everything"_s, u"echo"_s)->count(), 60);
}

// The dialog's fault field takes the CLI's --fault spec: every 20th of 60 echo calls kills the child right
// after the request is written; echo is read-only, so each of those is sent once more on a new child.
void TestLatencyCharts::loadDialogRunsUnderAFault()
{
    LoadDialog dialog(m_engine.get(), u"everything"_s, u"echo"_s, { { u"message"_s, u"load"_s } });
    dialog.setConcurrency(1);
    dialog.setLength(60, false);
    dialog.show();

    // A spec the CLI would refuse starts nothing, and the dialog says why.
    dialog.setFault(u"kill-after-write:every=0"_s);
    dialog.startOrStop();
    QVERIFY(!dialog.isRunning());
    QVERIFY(!dialog.runner());
    QVERIFY2(dialog.summaryText().startsWith("Not started: "_L1) && dialog.summaryText().contains("every=0"_L1),
        qPrintable(dialog.summaryText()));
    dialog.setFault(u"no-such-fault"_s);
    dialog.startOrStop();
    QVERIFY(!dialog.runner());
    QVERIFY2(dialog.summaryText().contains("no-such-fault"_L1), qPrintable(dialog.summaryText()));

    int retried = 0;
    connect(m_engine.get(), &Engine::callUpdated, this, [&retried](const CallRecord& record) {
        if (record.isFinished() && record.attempts.size() > 1)
            ++retried;
    });
    dialog.setFault(u"kill-after-write:every=20"_s);
    QSignalSpy finished(&dialog, &LoadDialog::finished);
    dialog.startOrStop();
    QVERIFY(dialog.isRunning());
    QVERIFY(finished.wait(WaitMs));
    QCOMPARE(dialog.runner()->stats().count(), 60);
    QCOMPARE(dialog.runner()->stats().ok(), 60);
    QCOMPARE(retried, 3);
}

QTEST_MAIN(TestLatencyCharts)
#include "tst_latencycharts.moc"
