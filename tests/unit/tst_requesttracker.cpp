#include "jsonrpc/jsonrpccodec.h"
#include "jsonrpc/jsonrpcmessage.h"
#include "jsonrpc/requesttracker.h"

#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

using mcpscope::RequestTracker;
using Entry = mcpscope::RequestTracker::Entry;

namespace {

QList<QJsonValue> idsOf(const QList<Entry>& entries)
{
    QList<QJsonValue> ids;
    for (const Entry& entry : entries)
        ids.append(entry.id);
    return ids;
}

QList<QJsonValue> idsOf(const QSignalSpy& spy)
{
    QList<QJsonValue> ids;
    for (const QList<QVariant>& arguments : spy)
        ids.append(arguments.at(0).value<Entry>().id);
    return ids;
}

// expire() orders entries by start time only; entries started together may come in any order.
QList<QJsonValue> sortedById(QList<QJsonValue> ids)
{
    std::sort(ids.begin(), ids.end(), [](const QJsonValue& a, const QJsonValue& b) {
        return mcpscope::idKey(a).toString() < mcpscope::idKey(b).toString();
    });
    return ids;
}

enum class GiveUp { Timeout, Abandon, AbandonAll };

} // namespace

class TestRequestTracker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idsAreUniqueAndIncreasing();
    void progressTokensAreUnique();
    void trackRecordsTheRequest();
    void expireReturnsExactlyTheOverdue_data();
    void expireReturnsExactlyTheOverdue();
    void completeReturnsTheEntryOnce();
    void completeOfUnknownIdIsNothing_data();
    void completeOfUnknownIdIsNothing();
    void lateResponseAfterGivingUp_data();
    void lateResponseAfterGivingUp();
    void progressMovesTheDeadline_data();
    void progressMovesTheDeadline();
    void progressGoingBackwardsIsNotHonoured();
    void progressWithUnknownTokenIsNothing_data();
    void progressWithUnknownTokenIsNothing();
    void progressRoutesToItsRequest();
    void abandonAllReturnsEverythingInStartOrder();
    void abandonAllKeepsStartOrderWithinOneMillisecond();
};

void TestRequestTracker::idsAreUniqueAndIncreasing()
{
    RequestTracker tracker;
    QSet<mcpscope::IdKey> seen;
    qint64 previous = std::numeric_limits<qint64>::min();
    for (int i = 0; i < 10000; ++i) {
        const QJsonValue id = tracker.nextId();
        QVERIFY2(id.isDouble() && mcpscope::JsonRpcCodec::isValidId(id), "ids are integers");
        const qint64 value = id.toInteger();
        QVERIFY2(value > previous, qPrintable(u"id %1 after %2"_s.arg(value).arg(previous)));
        previous = value;
        seen.insert(mcpscope::idKey(id));
    }
    QCOMPARE(seen.size(), 10000);
}

void TestRequestTracker::progressTokensAreUnique()
{
    RequestTracker tracker;
    QSet<mcpscope::IdKey> seen;
    for (int i = 0; i < 1000; ++i) {
        const QJsonValue token = tracker.nextProgressToken();
        QVERIFY(token.isString() || token.isDouble());
        seen.insert(mcpscope::idKey(token));
    }
    QCOMPARE(seen.size(), 1000);
}

void TestRequestTracker::trackRecordsTheRequest()
{
    qint64 now = 5000;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    QCOMPARE(tracker.now(), 5000);

    const QJsonValue id = tracker.nextId();
    const QJsonValue token = tracker.nextProgressToken();
    tracker.track(id, u"tools/call"_s, 1000, 4000, token);
    QVERIFY(tracker.isPending(id));
    QCOMPARE(tracker.pendingCount(), 1);
    const Entry* entry = tracker.find(id);
    QVERIFY(entry);
    QCOMPARE(entry->id, id);
    QCOMPARE(entry->method, u"tools/call"_s);
    QCOMPARE(entry->progressToken, token);
    QCOMPARE(entry->startedAt, 5000);
    QCOMPARE(entry->timeoutMs, 1000);
    QCOMPARE(entry->deadline, 6000);
    QCOMPARE(entry->hardDeadline, 9000);
    QVERIFY(!tracker.find(QJsonValue(u"no such id"_s)));
}

void TestRequestTracker::expireReturnsExactlyTheOverdue_data()
{
    QTest::addColumn<QList<qint64>>("timeouts"); ///< one request each, all started at the same time
    QTest::addColumn<qint64>("elapsed");
    QTest::addColumn<QList<int>>("overdue"); ///< indexes into timeouts

    QTest::newRow("nothing overdue yet") << QList<qint64> { 100, 200, 300 } << qint64(50) << QList<int> {};
    QTest::newRow("one millisecond before the deadline") << QList<qint64> { 100 } << qint64(99) << QList<int> {};
    QTest::newRow("deadline reached exactly") << QList<qint64> { 100 } << qint64(100) << QList<int> { 0 };
    QTest::newRow("one of three overdue") << QList<qint64> { 100, 500, 300 } << qint64(150) << QList<int> { 0 };
    QTest::newRow("two of three overdue") << QList<qint64> { 100, 500, 300 } << qint64(350) << QList<int> { 0, 2 };
    QTest::newRow("all overdue") << QList<qint64> { 100, 500, 300 } << qint64(10000) << QList<int> { 0, 1, 2 };
    QTest::newRow("no requests at all") << QList<qint64> {} << qint64(10000) << QList<int> {};
}

void TestRequestTracker::expireReturnsExactlyTheOverdue()
{
    QFETCH(QList<qint64>, timeouts);
    QFETCH(qint64, elapsed);
    QFETCH(QList<int>, overdue);

    qint64 now = 1000;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    QSignalSpy timedOut(&tracker, &RequestTracker::timedOut);
    QVERIFY(timedOut.isValid());

    QList<QJsonValue> ids;
    for (const qint64 timeout : std::as_const(timeouts)) {
        ids.append(tracker.nextId());
        tracker.track(ids.constLast(), u"tools/call"_s, timeout);
    }
    QList<QJsonValue> expected;
    for (const int index : std::as_const(overdue))
        expected.append(ids.at(index));

    now += elapsed;
    const QList<Entry> expired = tracker.expire();
    QCOMPARE(sortedById(idsOf(expired)), sortedById(expected));
    QCOMPARE(timedOut.count(), overdue.size());
    QCOMPARE(sortedById(idsOf(timedOut)), sortedById(expected));
    QCOMPARE(tracker.pendingCount(), timeouts.size() - overdue.size());
    for (int i = 0; i < ids.size(); ++i) {
        const bool isOverdue = overdue.contains(i);
        QCOMPARE(tracker.isPending(ids.at(i)), !isOverdue);
        QCOMPARE(tracker.wasAbandoned(ids.at(i)), isOverdue);
    }

    // Nothing fires twice.
    QVERIFY(tracker.expire().isEmpty());
    QCOMPARE(timedOut.count(), overdue.size());
}

void TestRequestTracker::completeReturnsTheEntryOnce()
{
    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    const QJsonValue id = tracker.nextId();
    tracker.track(id, u"tools/list"_s, 1000);

    now = 400;
    const std::optional<Entry> entry = tracker.complete(id);
    QVERIFY(entry);
    QCOMPARE(entry->id, id);
    QCOMPARE(entry->method, u"tools/list"_s);
    QCOMPARE(entry->startedAt, 0);
    QVERIFY(!tracker.isPending(id));
    QCOMPARE(tracker.pendingCount(), 0);
    QVERIFY(!tracker.wasAbandoned(id));

    // A duplicate response is nothing, and a completed request never times out.
    QVERIFY(!tracker.complete(id));
    QSignalSpy timedOut(&tracker, &RequestTracker::timedOut);
    now = 5000;
    QVERIFY(tracker.expire().isEmpty());
    QCOMPARE(timedOut.count(), 0);
}

void TestRequestTracker::completeOfUnknownIdIsNothing_data()
{
    QTest::addColumn<QJsonValue>("unknown");

    QTest::newRow("integer id never sent") << QJsonValue(999);
    QTest::newRow("string id never sent") << QJsonValue(u"abc"_s);
    QTest::newRow("string id with the digits of a pending integer id") << QJsonValue(u"1"_s);
    QTest::newRow("null id") << QJsonValue();
}

void TestRequestTracker::completeOfUnknownIdIsNothing()
{
    QFETCH(QJsonValue, unknown);

    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    const QJsonValue pending = tracker.nextId();
    QCOMPARE(pending, QJsonValue(1));
    tracker.track(pending, u"ping"_s, 1000);

    QVERIFY(!tracker.complete(unknown));
    QVERIFY(!tracker.wasAbandoned(unknown));
    QVERIFY(tracker.isPending(pending));
    QCOMPARE(tracker.pendingCount(), 1);
}

void TestRequestTracker::lateResponseAfterGivingUp_data()
{
    QTest::addColumn<GiveUp>("how");

    QTest::newRow("after a timeout") << GiveUp::Timeout;
    QTest::newRow("after the user cancelled it") << GiveUp::Abandon;
    QTest::newRow("after the transport went away") << GiveUp::AbandonAll;
}

void TestRequestTracker::lateResponseAfterGivingUp()
{
    QFETCH(GiveUp, how);

    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    const QJsonValue id = tracker.nextId();
    const QJsonValue other = tracker.nextId();
    tracker.track(id, u"tools/call"_s, 1000);
    tracker.track(other, u"tools/call"_s, 60000);

    switch (how) {
    case GiveUp::Timeout:
        now = 1000;
        QCOMPARE(idsOf(tracker.expire()), QList<QJsonValue> { id });
        break;
    case GiveUp::Abandon: {
        const std::optional<Entry> entry = tracker.abandon(id);
        QVERIFY(entry);
        QCOMPARE(entry->id, id);
        QVERIFY(!tracker.abandon(id));
        break;
    }
    case GiveUp::AbandonAll:
        QCOMPARE(tracker.abandonAll().size(), 2);
        break;
    }

    QVERIFY(!tracker.isPending(id));
    QVERIFY(!tracker.complete(id));
    QVERIFY(tracker.wasAbandoned(id));
    // The same digits as a string are a different id, and were never given up on.
    QVERIFY(!tracker.wasAbandoned(QJsonValue(QString::number(id.toInteger()))));
    QCOMPARE(tracker.wasAbandoned(other), how == GiveUp::AbandonAll);
}

void TestRequestTracker::progressMovesTheDeadline_data()
{
    QTest::addColumn<qint64>("timeoutMs");
    QTest::addColumn<qint64>("maxTotalMs");
    QTest::addColumn<QList<qint64>>("progressAt"); ///< clock times of progress notifications
    QTest::addColumn<qint64>("deadline");

    QTest::newRow("progress restarts the timeout from the progress time")
        << qint64(1000) << qint64(10000) << QList<qint64> { 800 } << qint64(1800);
    QTest::newRow("each progress pushes it further")
        << qint64(1000) << qint64(10000) << QList<qint64> { 800, 1600, 2400 } << qint64(3400);
    QTest::newRow("never past the hard maximum")
        << qint64(1000) << qint64(2500) << QList<qint64> { 900, 1800 } << qint64(2500);
    QTest::newRow("progress after reaching the hard maximum changes nothing")
        << qint64(1000) << qint64(2500) << QList<qint64> { 900, 1800, 2400 } << qint64(2500);
    QTest::newRow("no maximum means progress never extends")
        << qint64(1000) << qint64(0) << QList<qint64> { 900 } << qint64(1000);
    QTest::newRow("a maximum below the timeout is no extension")
        << qint64(1000) << qint64(500) << QList<qint64> { 900 } << qint64(1000);
}

void TestRequestTracker::progressMovesTheDeadline()
{
    QFETCH(qint64, timeoutMs);
    QFETCH(qint64, maxTotalMs);
    QFETCH(QList<qint64>, progressAt);
    QFETCH(qint64, deadline);

    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    const QJsonValue id = tracker.nextId();
    const QJsonValue token = tracker.nextProgressToken();
    tracker.track(id, u"tools/call"_s, timeoutMs, maxTotalMs, token);

    double value = 0;
    for (const qint64 at : std::as_const(progressAt)) {
        now = at;
        QVERIFY2(tracker.expire().isEmpty(), "expired before its progress arrived");
        const std::optional<Entry> entry = tracker.progress(token, ++value);
        QVERIFY(entry);
        QCOMPARE(entry->id, id);
        QCOMPARE(entry->lastProgress, value);
    }
    QCOMPARE(tracker.find(id)->deadline, deadline);

    now = deadline - 1;
    QVERIFY(tracker.expire().isEmpty());
    now = deadline;
    QCOMPARE(idsOf(tracker.expire()), QList<QJsonValue> { id });
}

void TestRequestTracker::progressGoingBackwardsIsNotHonoured()
{
    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    const QJsonValue id = tracker.nextId();
    const QJsonValue token = tracker.nextProgressToken();
    tracker.track(id, u"tools/call"_s, 1000, 60000, token);

    now = 500;
    QVERIFY(tracker.progress(token, 5));
    QCOMPARE(tracker.find(id)->deadline, 1500);

    now = 900;
    QVERIFY(!tracker.progress(token, 3));
    QCOMPARE(tracker.find(id)->deadline, 1500);
    QCOMPARE(tracker.find(id)->lastProgress, 5.0);

    now = 1500;
    QCOMPARE(idsOf(tracker.expire()), QList<QJsonValue> { id });
}

void TestRequestTracker::progressWithUnknownTokenIsNothing_data()
{
    QTest::addColumn<int>("which");

    QTest::newRow("a token never issued") << 0;
    QTest::newRow("the token of a completed request") << 1;
    QTest::newRow("the token of a timed-out request") << 2;
    QTest::newRow("the request id instead of its token") << 3;
}

void TestRequestTracker::progressWithUnknownTokenIsNothing()
{
    QFETCH(int, which);

    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    const QJsonValue live = tracker.nextId();
    const QJsonValue liveToken = tracker.nextProgressToken();
    tracker.track(live, u"tools/call"_s, 60000, 120000, liveToken);
    const QJsonValue done = tracker.nextId();
    const QJsonValue doneToken = tracker.nextProgressToken();
    tracker.track(done, u"tools/call"_s, 60000, 120000, doneToken);
    const QJsonValue late = tracker.nextId();
    const QJsonValue lateToken = tracker.nextProgressToken();
    tracker.track(late, u"tools/call"_s, 100, 120000, lateToken);

    QVERIFY(tracker.complete(done));
    now = 100;
    QCOMPARE(idsOf(tracker.expire()), QList<QJsonValue> { late });

    const QJsonValue token = QList<QJsonValue> { QJsonValue(u"never-issued"_s), doneToken, lateToken, live }.at(which);
    now = 200;
    QVERIFY(!tracker.progress(token, 1));
    QCOMPARE(tracker.find(live)->deadline, 60000);
    QCOMPARE(tracker.pendingCount(), 1);
}

void TestRequestTracker::progressRoutesToItsRequest()
{
    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    QList<QJsonValue> ids;
    QList<QJsonValue> tokens;
    for (int i = 0; i < 3; ++i) {
        ids.append(tracker.nextId());
        tokens.append(tracker.nextProgressToken());
        tracker.track(ids.constLast(), u"tools/call"_s, 1000, 60000, tokens.constLast());
    }
    // A request without a token is never the target of progress.
    const QJsonValue silent = tracker.nextId();
    tracker.track(silent, u"tools/list"_s, 1000, 60000);

    now = 700;
    const std::optional<Entry> entry = tracker.progress(tokens.at(1), 0.25);
    QVERIFY(entry);
    QCOMPARE(entry->id, ids.at(1));
    QCOMPARE(entry->progressToken, tokens.at(1));
    QCOMPARE(entry->deadline, 1700);
    QCOMPARE(tracker.find(ids.at(0))->deadline, 1000);
    QCOMPARE(tracker.find(ids.at(1))->deadline, 1700);
    QCOMPARE(tracker.find(ids.at(2))->deadline, 1000);
    QCOMPARE(tracker.find(silent)->deadline, 1000);

    now = 1000;
    QCOMPARE(sortedById(idsOf(tracker.expire())), sortedById({ ids.at(0), ids.at(2), silent }));
    QVERIFY(tracker.isPending(ids.at(1)));
}

void TestRequestTracker::abandonAllReturnsEverythingInStartOrder()
{
    qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    QList<QJsonValue> ids;
    QList<QJsonValue> tokens;
    // Mixed id types, and allocation order different from start order.
    const QList<QJsonValue> allocated { tracker.nextId(), tracker.nextId(), tracker.nextId() };
    for (const QJsonValue& id :
        { allocated.at(2), QJsonValue(u"b"_s), allocated.at(0), QJsonValue(u"a"_s), allocated.at(1) }) {
        now += 10;
        ids.append(id);
        tokens.append(tracker.nextProgressToken());
        tracker.track(id, u"tools/call"_s, 1000, 60000, tokens.constLast());
    }

    const QList<Entry> abandoned = tracker.abandonAll();
    QCOMPARE(idsOf(abandoned), ids);
    QCOMPARE(tracker.pendingCount(), 0);
    QVERIFY(tracker.abandonAll().isEmpty());
    for (int i = 0; i < ids.size(); ++i) {
        QVERIFY(tracker.wasAbandoned(ids.at(i)));
        QVERIFY(!tracker.complete(ids.at(i)));
        QVERIFY(!tracker.progress(tokens.at(i), 1));
    }
    QSignalSpy timedOut(&tracker, &RequestTracker::timedOut);
    now = 1000000;
    QVERIFY(tracker.expire().isEmpty());
    QCOMPARE(timedOut.count(), 0);
}

void TestRequestTracker::abandonAllKeepsStartOrderWithinOneMillisecond()
{
    // A burst of calls shares one millisecond on the real clock; start order is still the order of track().
    const qint64 now = 0;
    RequestTracker tracker;
    tracker.setClock([&now] { return now; });
    QList<QJsonValue> ids;
    for (int i = 0; i < 20; ++i) {
        ids.append(tracker.nextId());
        tracker.track(ids.constLast(), u"tools/call"_s, 1000);
    }

    const QList<Entry> abandoned = tracker.abandonAll();
    QCOMPARE(abandoned.size(), ids.size());
    QCOMPARE(idsOf(abandoned), ids);
}

QTEST_GUILESS_MAIN(TestRequestTracker)

#include "tst_requesttracker.moc"
