// The calls table sorts by a click on a column header: by the typed value, ascending (durations as
// numbers, the pending call first), reversed by a second click, back to arrival order by a third, which leaves the
// filter proxy without row maps. The column and order are kept across runs.

#include "calls/callspanel.h"
#include "guienvironment.h"
#include "models/callsfilterproxy.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"

#include <QHeaderView>
#include <QTableView>
#include <QTest>

using namespace mcpscope;

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

namespace {

/// Calls 0..4 finished in these milliseconds; call 5 is still pending.
const QList<int> Durations { 30, 1000, 5, 300, 20 };

void addCalls(CallsModel* model)
{
    for (int n = 0; n <= int(Durations.size()); ++n) {
        CallSummary call;
        call.callId = QStringLiteral("call-%1").arg(n);
        call.server = QStringLiteral("alpha");
        call.method = QStringLiteral("tools/call");
        call.tool = QStringLiteral("echo");
        call.startedAt = 1000 + n;
        if (n < Durations.size()) {
            call.endedAt = call.startedAt + Durations.at(n);
            call.outcome = CallOutcome::Success;
            call.attempts = 1;
        }
        model->ingestColumns(call);
    }
    model->flush();
}

/// The call ids down the table, as "0 1 2".
QString shownOrder(const CallsPanel& panel)
{
    QStringList order;
    const QAbstractItemModel* shown = panel.view()->model();
    for (int row = 0; row < shown->rowCount(); ++row)
        order.append(shown->index(row, 0).data(CallsModelRole::CallIdRole).toString().mid(5));
    return order.join(u' ');
}

void clickHeader(const CallsPanel& panel, int column)
{
    QHeaderView* header = panel.view()->horizontalHeader();
    const QPoint middle(
        header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, middle);
}

} // namespace

class TestCallsPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::useScratchSettings(QStringLiteral("tst_callspanel")); }
    void headerClicksSortAndAreKept();
};

void TestCallsPanel::headerClicksSortAndAreKept()
{
    {
        CallsPanel panel;
        panel.resize(900, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        addCalls(panel.model());
        QCOMPARE(shownOrder(panel), QStringLiteral("0 1 2 3 4 5"));
        QVERIFY(!panel.filter()->isMapped());

        clickHeader(panel, CallsModelColumn::Duration); // the pending call, then the fastest
        QCOMPARE(shownOrder(panel), QStringLiteral("5 2 4 0 3 1"));
        clickHeader(panel, CallsModelColumn::Duration); // the slowest first
        QCOMPARE(shownOrder(panel), QStringLiteral("1 3 0 4 2 5"));
        QCOMPARE(panel.view()->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
    }
    {
        // A new window sorts the same way, calls that arrive included.
        CallsPanel panel;
        panel.resize(900, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        addCalls(panel.model());
        QCOMPARE(panel.view()->horizontalHeader()->sortIndicatorSection(), int(CallsModelColumn::Duration));
        QCOMPARE(shownOrder(panel), QStringLiteral("1 3 0 4 2 5"));

        clickHeader(panel, CallsModelColumn::Duration); // a third click: arrival order, with no row maps
        QCOMPARE(shownOrder(panel), QStringLiteral("0 1 2 3 4 5"));
        QVERIFY(!panel.filter()->isMapped());
    }
    CallsPanel panel;
    QCOMPARE(panel.view()->horizontalHeader()->sortIndicatorSection(), -1);
}

QTEST_MAIN(TestCallsPanel)
#include "tst_callspanel.moc"
