// LatencyStats and CallStats (core/calllog/callstats.h): the percentile and counting code that the
// load report, the tools table and the latency charts share.

#include "calllog/callstats.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope;

class TestCallStats : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void percentilesAreNearestRank_data();
    void percentilesAreNearestRank();
    void emptyIsAllZero();
    void histogramHoldsEverySample();
    void outcomesAreClassed();
    void topErrorsByFrequency();
};

void TestCallStats::percentilesAreNearestRank_data()
{
    QTest::addColumn<QList<double>>("samples");
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("expected");
    QList<double> hundred;
    for (int i = 100; i >= 1; --i)
        hundred.append(i);
    QTest::newRow("p50 of 1..100") << hundred << 50.0 << 50.0;
    QTest::newRow("p90 of 1..100") << hundred << 90.0 << 90.0;
    QTest::newRow("p99 of 1..100") << hundred << 99.0 << 99.0;
    QTest::newRow("p100 is the max") << hundred << 100.0 << 100.0;
    QTest::newRow("p0 is the min") << hundred << 0.0 << 1.0;
    QTest::newRow("p99 of ten is the largest") << QList<double> { 5, 1, 2, 3, 4, 6, 7, 8, 9, 10 } << 99.0 << 10.0;
    QTest::newRow("p50 of one") << QList<double> { 7.5 } << 50.0 << 7.5;
    QTest::newRow("p50 of two is the lower") << QList<double> { 4, 2 } << 50.0 << 2.0;
}

void TestCallStats::percentilesAreNearestRank()
{
    QFETCH(QList<double>, samples);
    QFETCH(double, p);
    QFETCH(double, expected);
    LatencyStats stats;
    for (const double sample : samples)
        stats.add(sample);
    QCOMPARE(stats.count(), samples.size());
    QCOMPARE(stats.percentile(p), expected);
}

void TestCallStats::emptyIsAllZero()
{
    LatencyStats stats;
    QCOMPARE(stats.count(), 0);
    QCOMPARE(stats.percentile(99), 0.0);
    QCOMPARE(stats.mean(), 0.0);
    QVERIFY(stats.histogram(10).isEmpty());
    const QJsonObject json = stats.toJson();
    QCOMPARE(json.keys(), (QStringList { u"max"_s, u"mean"_s, u"min"_s, u"p50"_s, u"p90"_s, u"p99"_s }));
}

void TestCallStats::histogramHoldsEverySample()
{
    LatencyStats stats;
    for (int i = 0; i <= 100; ++i)
        stats.add(i);
    const QList<LatencyStats::Bin> bins = stats.histogram(10);
    QCOMPARE(bins.size(), 10);
    int total = 0;
    for (const LatencyStats::Bin& bin : bins)
        total += bin.count;
    QCOMPARE(total, 101);
    QCOMPARE(bins.first().lowMs, 0.0);
    QCOMPARE(bins.last().highMs, 100.0);
    // The max falls in the last bin, not past it.
    QCOMPARE(bins.last().count, 11);

    LatencyStats same;
    same.add(3);
    same.add(3);
    QCOMPARE(same.histogram(10).size(), 1);
    QCOMPARE(same.histogram(10).first().count, 2);
}

void TestCallStats::outcomesAreClassed()
{
    CallStats stats;
    const auto add = [&](CallOutcome outcome, qint64 ms) {
        CallRecord record;
        record.startedAt = 1000;
        record.endedAt = 1000 + ms;
        record.outcome = outcome;
        stats.add(record);
    };
    add(CallOutcome::Success, 1);
    add(CallOutcome::Success, 2);
    add(CallOutcome::ToolError, 3);
    add(CallOutcome::OutcomeUncertain, 4);
    add(CallOutcome::BreakerOpen, 0);
    add(CallOutcome::Timeout, 9);
    add(CallOutcome::TransportError, 5);
    add(CallOutcome::Pending, 100); // not finished: not counted
    QCOMPARE(stats.count(), 7);
    QCOMPARE(stats.ok(), 2);
    QCOMPARE(stats.toolErrors(), 1);
    QCOMPARE(stats.uncertain(), 1);
    QCOMPARE(stats.breakerOpen(), 1);
    QCOMPARE(stats.errors(), 2);
    QCOMPARE(stats.errorRate(), 5.0 / 7.0);
    QCOMPARE(stats.latency().max(), 9.0);
}

void TestCallStats::topErrorsByFrequency()
{
    CallStats stats;
    const auto fail = [&](const QString& message) {
        CallRecord record;
        record.outcome = CallOutcome::ProtocolError;
        record.error = QJsonObject { { u"code"_s, -32603 }, { u"message"_s, message } };
        stats.add(record);
    };
    fail(u"b"_s);
    fail(u"a"_s);
    fail(u"c"_s);
    fail(u"c"_s);
    const QList<CallStats::Message> top = stats.topErrors(2);
    QCOMPARE(top.size(), 2);
    QCOMPARE(top.at(0).text, u"c"_s);
    QCOMPARE(top.at(0).count, 2);
    QCOMPARE(top.at(1).text, u"a"_s);
    const QJsonArray json = stats.topErrorsJson();
    QCOMPARE(json.size(), 3);
    QCOMPARE(json.at(0).toObject().value("message"_L1).toString(), u"c"_s);
}

QTEST_GUILESS_MAIN(TestCallStats)
#include "tst_callstats.moc"
