// CallsFilterProxy against a plain model of what it must show: random streams of new calls, finished
// calls, filter changes and sort changes, each step compared with a brute-force filter and stable sort
// of the source written here from the model's roles, while QAbstractItemModelTester checks every
// signal and persistent indexes must stay on their call. Plus the cheap paths the proxy exists for:
// no row maps without a filter or a sort, and calls that join at the end arrive as one insert.

#include "models/callsfilterproxy.h"
#include "models/callsmodel.h"

#include <QAbstractItemModelTester>
#include <QPersistentModelIndex>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <QUuid>

#include <algorithm>
#include <memory>

using namespace mcpscope;

namespace {

using Tester = QAbstractItemModelTester;

const QStringList Servers { QStringLiteral("alpha"), QStringLiteral("beta"), QStringLiteral("gamma") };
const QStringList Tools { QStringLiteral("echo"), QStringLiteral("write"), QStringLiteral("resources/read") };
const QList<CallOutcome> Finished { CallOutcome::Success, CallOutcome::ToolError, CallOutcome::OutcomeUncertain,
    CallOutcome::Timeout };

CallSummary newCall(QRandomGenerator& random, int n)
{
    CallSummary call;
    // Mostly UUIDs, as the engine makes them; some foreign ids, as a stored log of another tool has.
    call.callId = random.bounded(4) == 0 ? QStringLiteral("call-%1").arg(n)
                                         : QUuid::createUuid().toString(QUuid::WithoutBraces);
    call.server = Servers.at(random.bounded(Servers.size()));
    const QString tool = Tools.at(random.bounded(Tools.size()));
    call.method = tool.contains(QLatin1Char('/')) ? tool : QStringLiteral("tools/call");
    call.tool = tool.contains(QLatin1Char('/')) ? QString() : tool;
    call.startedAt = 1000 + random.bounded(50); // many ties, so that the tie order is tested too
    return call;
}

void finish(QRandomGenerator& random, CallSummary& call)
{
    call.outcome = Finished.at(random.bounded(Finished.size()));
    call.endedAt = call.startedAt + 1 + random.bounded(40);
    call.attempts = 1 + random.bounded(2);
    call.rule = call.outcome == CallOutcome::OutcomeUncertain ? QStringLiteral("R5")
        : call.outcome == CallOutcome::Timeout                ? QStringLiteral("R6")
                                                              : QString();
}

/// What the proxy must show, from the model's roles and none of the proxy's code: the call ids in order.
QStringList expectedIds(const CallsModel& model, const CallsFilterProxy& proxy)
{
    const auto role = [&model](int row, int role) { return model.index(row, 0).data(role); };
    const QString text = proxy.searchText();
    const QList<CallOutcome> outcomes = proxy.outcomes();
    const auto contains = [&text](const QString& candidate) { return candidate.contains(text, Qt::CaseInsensitive); };
    std::vector<int> rows;
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto outcome = CallOutcome(role(row, CallsModelRole::OutcomeRole).toInt());
        const QString server = role(row, CallsModelRole::ServerRole).toString();
        const QString tool = role(row, CallsModelRole::ToolRole).toString();
        if ((!outcomes.isEmpty() && !outcomes.contains(outcome))
            || (!proxy.servers().isEmpty() && !proxy.servers().contains(server))
            || (!proxy.tools().isEmpty() && !proxy.tools().contains(tool)))
            continue;
        if (!text.isEmpty() && !contains(server) && !contains(tool) && !contains(outcomeName(outcome))
            && !contains(role(row, CallsModelRole::RuleRole).toString())
            && !contains(role(row, CallsModelRole::CallIdRole).toString()))
            continue;
        rows.push_back(row);
    }
    const int column = proxy.sortColumn();
    if (column >= 0) {
        const auto key = [&](int row) {
            const QVariant value = model.index(row, column).data();
            // A pending call has no duration and sorts first.
            return column == CallsModelColumn::Duration && !value.isValid() ? QVariant(qint64(-1)) : value;
        };
        std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) {
            const QPartialOrdering order = QVariant::compare(key(a), key(b));
            return proxy.sortOrder() == Qt::AscendingOrder ? order == QPartialOrdering::Less
                                                           : order == QPartialOrdering::Greater;
        });
    }
    QStringList ids;
    for (int row : rows)
        ids.append(role(row, CallsModelRole::CallIdRole).toString());
    return ids;
}

/// A CallsModel behind a CallsFilterProxy, with the proxy's signals checked throughout.
struct Chain
{
    CallsModel model;
    CallsFilterProxy proxy;
    std::unique_ptr<Tester> tester;

    Chain()
    {
        proxy.setSourceModel(&model);
        tester = std::make_unique<Tester>(&proxy, Tester::FailureReportingMode::QtTest);
    }
};

QStringList shownIds(const QAbstractItemModel& proxy)
{
    QStringList ids;
    for (int row = 0; row < proxy.rowCount(); ++row)
        ids.append(proxy.index(row, 0).data(CallsModelRole::CallIdRole).toString());
    return ids;
}

} // namespace

class TestCallsFilterProxy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keepsNoMapsWithoutAFilterOrASort();
    void matchingCallsJoinAtTheEndAsOneInsert();
    void sortedRowMovesWhenItsKeyChanges();
    void matchesAPlainFilterAndSort_data();
    void matchesAPlainFilterAndSort();
};

void TestCallsFilterProxy::keepsNoMapsWithoutAFilterOrASort()
{
    Chain chain;
    CallsModel& model = chain.model;
    CallsFilterProxy& proxy = chain.proxy;
    QRandomGenerator random(7);
    for (int n = 0; n < 20; ++n)
        model.ingestColumns(newCall(random, n));
    model.flush();
    QVERIFY(!proxy.isMapped());
    QCOMPARE(proxy.rowCount(), 20);
    QCOMPARE(proxy.mapToSource(proxy.index(13, 2)), model.index(13, 2));

    proxy.setServers({ QStringLiteral("beta") });
    QVERIFY(proxy.isMapped());
    proxy.clearFilters();
    QVERIFY(!proxy.isMapped());
    proxy.sort(CallsModelColumn::Time);
    QVERIFY(proxy.isMapped());
    proxy.sort(-1);
    QVERIFY(!proxy.isMapped());
    QCOMPARE(shownIds(proxy), expectedIds(model, proxy));
}

void TestCallsFilterProxy::matchingCallsJoinAtTheEndAsOneInsert()
{
    Chain chain;
    CallsModel& model = chain.model;
    CallsFilterProxy& proxy = chain.proxy;
    proxy.setServers({ QStringLiteral("alpha") });
    proxy.sort(CallsModelColumn::Time, Qt::AscendingOrder);
    QSignalSpy inserted(&proxy, &QAbstractItemModel::rowsInserted);
    QSignalSpy relaid(&proxy, &QAbstractItemModel::layoutChanged);
    QRandomGenerator random(11);
    int alpha = 0;
    qint64 startedAt = 5000;
    for (int batch = 0; batch < 4; ++batch) {
        for (int n = 0; n < 50; ++n) {
            CallSummary call = newCall(random, batch * 50 + n);
            call.startedAt = startedAt++; // calls arrive in time order, as live calls do
            alpha += call.server == Servers.at(0) ? 1 : 0;
            model.ingestColumns(call);
        }
        model.flush();
    }
    QCOMPARE(proxy.rowCount(), alpha);
    QCOMPARE(inserted.size(), 4);
    QCOMPARE(relaid.size(), 0);
    QCOMPARE(shownIds(proxy), expectedIds(model, proxy));

    // A reset of the source (the calls panel's Clear) empties the proxy and keeps its filter.
    QSignalSpy reset(&proxy, &QAbstractItemModel::modelReset);
    model.clear();
    QCOMPARE(reset.size(), 1);
    QCOMPARE(proxy.rowCount(), 0);
    for (int n = 0; n < 30; ++n)
        model.ingestColumns(newCall(random, n));
    model.flush();
    QCOMPARE(shownIds(proxy), expectedIds(model, proxy));
    QVERIFY(proxy.rowCount() > 0);
}

void TestCallsFilterProxy::sortedRowMovesWhenItsKeyChanges()
{
    Chain chain;
    CallsModel& model = chain.model;
    CallsFilterProxy& proxy = chain.proxy;
    QRandomGenerator random(5);
    QList<CallSummary> calls;
    for (int n = 0; n < 6; ++n) {
        calls.append(newCall(random, n));
        calls.last().startedAt = 100;
        calls.last().endedAt = 100 + 10 * (n + 1);
        calls.last().outcome = CallOutcome::Success;
        model.ingestColumns(calls.last());
    }
    model.flush();
    proxy.sort(CallsModelColumn::Duration, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data(CallsModelRole::CallIdRole).toString(), calls.at(5).callId);
    const QPersistentModelIndex selected = proxy.index(3, CallsModelColumn::Tool); // calls[2], 30 ms
    QSignalSpy changed(&proxy, &QAbstractItemModel::dataChanged);

    calls[2].endedAt = 100 + 1000; // the slowest now: first
    model.ingestColumns(calls.at(2));
    model.flush();
    QCOMPARE(shownIds(proxy), expectedIds(model, proxy));
    QCOMPARE(proxy.index(0, 0).data(CallsModelRole::CallIdRole).toString(), calls.at(2).callId);
    QCOMPARE(selected.row(), 0);
    QCOMPARE(selected.column(), int(CallsModelColumn::Tool));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 0);
}

void TestCallsFilterProxy::matchesAPlainFilterAndSort_data()
{
    QTest::addColumn<quint32>("seed");
    for (quint32 seed : { 1U, 2U, 3U, 4U, 5U, 6U })
        QTest::addRow("seed %u", seed) << seed;
}

void TestCallsFilterProxy::matchesAPlainFilterAndSort()
{
    QFETCH(quint32, seed);
    QRandomGenerator random(seed);
    Chain chain;
    CallsModel& model = chain.model;
    CallsFilterProxy& proxy = chain.proxy;
    QList<CallSummary> calls;
    const QStringList texts { QString(), QStringLiteral("ALP"), QStringLiteral("r5"), QStringLiteral("echo"),
        QStringLiteral("uncertain"), QStringLiteral("call-1"), QStringLiteral("a"), QStringLiteral("zzz") };
    int joined = 0;
    int finished = 0;
    int relaid = 0;
    for (int step = 0; step < 150; ++step) {
        // A few persistent indexes, as a view's selection and current cell are, must stay on their call.
        QList<QPersistentModelIndex> held;
        QStringList heldIds;
        for (int i = 0; i < 3 && proxy.rowCount() > 0; ++i) {
            held.append(proxy.index(random.bounded(proxy.rowCount()), random.bounded(proxy.columnCount())));
            heldIds.append(held.last().data(CallsModelRole::CallIdRole).toString());
        }
        const int action = random.bounded(10);
        if (action < 4) {
            for (int n = random.bounded(1, 25); n > 0; --n) {
                calls.append(newCall(random, int(calls.size())));
                if (random.bounded(2) == 0)
                    finish(random, calls.last());
                model.ingestColumns(calls.last());
                ++joined;
            }
        } else if (action < 8) {
            for (int n = random.bounded(1, 10); n > 0 && !calls.isEmpty(); --n) {
                CallSummary& call = calls[random.bounded(int(calls.size()))];
                finish(random, call);
                model.ingestColumns(call);
                ++finished;
            }
        } else if (action == 8) {
            ++relaid;
            switch (random.bounded(5)) {
            case 0:
                proxy.setServers(
                    random.bounded(2) ? QSet<QString> {} : QSet<QString> { Servers.at(random.bounded(3)) });
                break;
            case 1:
                proxy.setTools(random.bounded(2) ? QSet<QString> {} : QSet<QString> { Tools.at(random.bounded(3)) });
                break;
            case 2:
                proxy.setOutcomes(random.bounded(2)
                        ? QList<CallOutcome> {}
                        : QList<CallOutcome> { Finished.at(random.bounded(4)), CallOutcome::Pending });
                break;
            case 3:
                proxy.setSearchText(texts.at(random.bounded(int(texts.size()))));
                break;
            default:
                proxy.clearFilters();
            }
        } else {
            ++relaid;
            proxy.sort(random.bounded(-1, int(CallsModelColumn::Count)),
                random.bounded(2) ? Qt::AscendingOrder : Qt::DescendingOrder);
        }
        model.flush();
        const QStringList expected = expectedIds(model, proxy);
        if (shownIds(proxy) != expected)
            qWarning() << "step" << step << "action" << action << "sort" << proxy.sortColumn() << proxy.sortOrder()
                       << "filters" << proxy.servers() << proxy.tools() << proxy.outcomes().size()
                       << proxy.searchText();
        QCOMPARE(shownIds(proxy), expected);
        for (qsizetype i = 0; i < held.size(); ++i) {
            if (held.at(i).isValid())
                QCOMPARE(held.at(i).data(CallsModelRole::CallIdRole).toString(), heldIds.at(i));
            else
                QVERIFY2(!expected.contains(heldIds.at(i)), qPrintable(heldIds.at(i)));
        }
        QCOMPARE(proxy.isMapped(),
            proxy.sortColumn() >= 0 || !proxy.outcomes().isEmpty() || !proxy.servers().isEmpty()
                || !proxy.tools().isEmpty() || !proxy.searchText().isEmpty());
    }
    // The stream did all three kinds of step.
    QVERIFY(joined > 0 && finished > 0 && relaid > 0);
}

QTEST_MAIN(TestCallsFilterProxy)
#include "tst_callsfilterproxy.moc"
