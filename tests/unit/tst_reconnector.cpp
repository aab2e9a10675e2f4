#include "recovery/reconnector.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using mcpscope::Reconnector;
using Result = mcpscope::Reconnector::Result;

namespace {

/// A connect function the test finishes by hand, counting how often the reconnector ran it.
struct FakeConnect
{
    int calls = 0;
    QList<Reconnector::DoneFunction> pending;

    Reconnector::ConnectFunction function()
    {
        return [this](Reconnector::DoneFunction done) {
            ++calls;
            pending.append(std::move(done));
        };
    }

    void finish(bool ok, const QString& sessionId, const QString& error = QString())
    {
        QVERIFY(!pending.isEmpty());
        pending.takeFirst()(ok, sessionId, error);
    }
};

/// Collects what callbacks received.
struct Results
{
    QList<Result> received;
    Reconnector::Callback callback()
    {
        return [this](const Result& result) { received.append(result); };
    }
};

Reconnector::BackoffSettings fastBackoff()
{
    Reconnector::BackoffSettings settings;
    settings.initialDelayMs = 10;
    settings.maxDelayMs = 300;
    settings.parkedProbeIntervalMs = 3600000; // never within a test unless it sets its own
    return settings;
}

} // namespace

class TestReconnector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tenJoinersShareOneReconnect();
    void lateJoinWithinTheWindowGetsTheFinishedResult();
    void lateJoinAfterTheWindowStartsANewReconnect();
    void lateJoinHoldingTheNewSessionStartsANewReconnect();
    void distinctSessionRequired_data();
    void distinctSessionRequired();
    void waitTimeoutDoesNotCancelTheReconnect();
    void doneTwiceIsIgnored();
    void synchronousConnectStillReachesTheJoiner();
    void destroyedContextIsNotCalledBack();
    void backoffDoublesThenParks();
    void backoffIsCappedAndJittered_data();
    void backoffIsCappedAndJittered();
    void parkedServerIsProbed();
    void reconnectNowUnparks();
    void successfulCallReconnectEndsTheBackground();
    void lateJoinAfterAFailureGetsThatFailure();
};

void TestReconnector::tenJoinersShareOneReconnect()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    QSignalSpy started(&reconnector, &Reconnector::started);
    QSignalSpy finished(&reconnector, &Reconnector::finished);
    Results results;

    for (int i = 0; i < 10; ++i)
        reconnector.join(QStringLiteral("old"), 15000, nullptr, results.callback());
    QCOMPARE(fake.calls, 1);
    QVERIFY(reconnector.isRunning());
    QCOMPARE(started.count(), 1);
    QVERIFY(results.received.isEmpty());

    fake.finish(true, QStringLiteral("new"));
    QVERIFY(!reconnector.isRunning());
    QCOMPARE(reconnector.reconnectCount(), 1);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(results.received.size(), 10);
    for (const Result& result : std::as_const(results.received)) {
        QVERIFY(result.ok);
        QCOMPARE(result.oldSessionId, QStringLiteral("old"));
        QCOMPARE(result.newSessionId, QStringLiteral("new"));
        QCOMPARE(result.attempt, results.received.first().attempt);
    }
}

void TestReconnector::lateJoinWithinTheWindowGetsTheFinishedResult()
{
    Reconnector reconnector;
    auto now = std::make_shared<qint64>(5000);
    reconnector.setClock([now] { return *now; });
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    Results first;
    reconnector.join(QStringLiteral("old"), 0, nullptr, first.callback());
    *now += 300;
    fake.finish(true, QStringLiteral("new"));
    QCOMPARE(first.received.first().durationMs, qint64(300));

    *now += 1999;
    Results late;
    reconnector.join(QStringLiteral("old"), 0, nullptr, late.callback());
    QCOMPARE(fake.calls, 1);
    QCOMPARE(late.received.size(), 1);
    QVERIFY(late.received.first().ok);
    QCOMPARE(late.received.first().newSessionId, QStringLiteral("new"));
    QCOMPARE(late.received.first().attempt, first.received.first().attempt);
    QCOMPARE(reconnector.reconnectCount(), 1);
}

void TestReconnector::lateJoinAfterTheWindowStartsANewReconnect()
{
    Reconnector reconnector;
    auto now = std::make_shared<qint64>(5000);
    reconnector.setClock([now] { return *now; });
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    Results results;
    reconnector.join(QStringLiteral("old"), 0, nullptr, results.callback());
    fake.finish(true, QStringLiteral("new"));

    *now += reconnector.lateJoinWindowMs();
    reconnector.join(QStringLiteral("old"), 0, nullptr, results.callback());
    QCOMPARE(fake.calls, 2);
    QVERIFY(reconnector.isRunning());
    fake.finish(true, QStringLiteral("newer"));
    QCOMPARE(results.received.size(), 2);
    QCOMPARE(results.received.last().newSessionId, QStringLiteral("newer"));
    QVERIFY(results.received.last().attempt != results.received.first().attempt);
}

void TestReconnector::lateJoinHoldingTheNewSessionStartsANewReconnect()
{
    // A caller whose request failed on the session the last reconnect produced needs another one.
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    Results results;
    reconnector.join(QStringLiteral("old"), 0, nullptr, results.callback());
    fake.finish(true, QStringLiteral("new"));
    reconnector.join(QStringLiteral("new"), 0, nullptr, results.callback());
    QCOMPARE(fake.calls, 2);
    fake.finish(true, QStringLiteral("newer"));
    QCOMPARE(results.received.last().oldSessionId, QStringLiteral("new"));
    QVERIFY(results.received.last().ok);
}

void TestReconnector::distinctSessionRequired_data()
{
    QTest::addColumn<bool>("connectOk");
    QTest::addColumn<QString>("newSessionId");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("error");

    QTest::newRow("a new session id is success") << true << QStringLiteral("s2") << true << QString();
    QTest::newRow("the same session id is not success")
        << true << QStringLiteral("s1") << false << QStringLiteral("the server came back with the same session");
    QTest::newRow("no session id is not success")
        << true << QString() << false << QStringLiteral("the server came back without a session id");
    QTest::newRow("a failed connect keeps its error")
        << false << QString() << false << QStringLiteral("connection refused");
}

void TestReconnector::distinctSessionRequired()
{
    QFETCH(bool, connectOk);
    QFETCH(QString, newSessionId);
    QFETCH(bool, ok);
    QFETCH(QString, error);

    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    Results results;
    reconnector.join(QStringLiteral("s1"), 0, nullptr, results.callback());
    fake.finish(connectOk, newSessionId, connectOk ? QString() : QStringLiteral("connection refused"));
    QCOMPARE(results.received.size(), 1);
    QCOMPARE(results.received.first().ok, ok);
    QCOMPARE(results.received.first().error, error);
    QCOMPARE(results.received.first().oldSessionId, QStringLiteral("s1"));
}

void TestReconnector::waitTimeoutDoesNotCancelTheReconnect()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    QSignalSpy finished(&reconnector, &Reconnector::finished);
    Results impatient;
    Results patient;
    reconnector.join(QStringLiteral("old"), 20, nullptr, impatient.callback());
    reconnector.join(QStringLiteral("old"), 0, nullptr, patient.callback());

    QTRY_COMPARE(impatient.received.size(), 1);
    QVERIFY(!impatient.received.first().ok);
    QVERIFY2(impatient.received.first().error.startsWith(QStringLiteral("timed out after 20 ms")),
        qPrintable(impatient.received.first().error));
    QVERIFY(reconnector.isRunning());
    QCOMPARE(finished.count(), 0);

    fake.finish(true, QStringLiteral("new"));
    QCOMPARE(finished.count(), 1);
    QVERIFY(finished.first().at(0).value<Result>().ok);
    QCOMPARE(reconnector.reconnectCount(), 1);
    QCOMPARE(impatient.received.size(), 1);
    QCOMPARE(patient.received.size(), 1);
    QVERIFY(patient.received.first().ok);

    // The result the impatient caller missed is still there for it to pick up.
    reconnector.join(QStringLiteral("old"), 20, nullptr, impatient.callback());
    QCOMPARE(impatient.received.size(), 2);
    QVERIFY(impatient.received.last().ok);
    QCOMPARE(fake.calls, 1);
}

void TestReconnector::doneTwiceIsIgnored()
{
    Reconnector reconnector;
    Reconnector::DoneFunction done;
    reconnector.setConnectFunction([&done](Reconnector::DoneFunction d) { done = std::move(d); });
    QSignalSpy finished(&reconnector, &Reconnector::finished);
    reconnector.join(QStringLiteral("old"), 0, nullptr, nullptr);
    done(true, QStringLiteral("new"), QString());
    done(false, QString(), QStringLiteral("late"));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(reconnector.reconnectCount(), 1);
    QVERIFY(reconnector.lastResult()->ok);
}

void TestReconnector::synchronousConnectStillReachesTheJoiner()
{
    Reconnector reconnector;
    reconnector.setConnectFunction(
        [](Reconnector::DoneFunction done) { done(true, QStringLiteral("new"), QString()); });
    Results results;
    reconnector.join(QStringLiteral("old"), 1000, nullptr, results.callback());
    QCOMPARE(results.received.size(), 1);
    QVERIFY(results.received.first().ok);
    QVERIFY(!reconnector.isRunning());
}

void TestReconnector::destroyedContextIsNotCalledBack()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    auto context = std::make_unique<QObject>();
    bool called = false;
    reconnector.join(QStringLiteral("old"), 0, context.get(), [&called](const Result&) { called = true; });
    context.reset();
    fake.finish(true, QStringLiteral("new"));
    QVERIFY(!called);
}

void TestReconnector::backoffDoublesThenParks()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    reconnector.setJitterFunction([] { return 0.0; });
    reconnector.setBackoffSettings(fastBackoff());
    QSignalSpy scheduled(&reconnector, &Reconnector::backoffScheduled);
    QSignalSpy parked(&reconnector, &Reconnector::parked);

    reconnector.startBackground(QStringLiteral("old"));
    QVERIFY(reconnector.isBackgroundActive());
    for (int failure = 0; failure < 5; ++failure) {
        QTRY_COMPARE(fake.calls, failure + 1);
        QVERIFY(!reconnector.isParked());
        fake.finish(false, QString(), QStringLiteral("connection refused"));
    }
    QCOMPARE(parked.count(), 1);
    QVERIFY(reconnector.isParked());
    QCOMPARE(reconnector.backgroundFailures(), 5);

    QList<qint64> delays;
    QList<int> failures;
    for (const QList<QVariant>& arguments : std::as_const(scheduled)) {
        delays.append(arguments.at(0).toLongLong());
        failures.append(arguments.at(1).toInt());
    }
    QCOMPARE(delays, (QList<qint64> { 10, 20, 40, 80, 160 }));
    QCOMPARE(failures, (QList<int> { 0, 1, 2, 3, 4 }));

    // Parked: no more backoff, and startBackground does not restart it behind the user's back.
    reconnector.startBackground(QStringLiteral("old"));
    QCOMPARE(scheduled.count(), 5);
    QCOMPARE(fake.calls, 5);
}

void TestReconnector::backoffIsCappedAndJittered_data()
{
    QTest::addColumn<double>("jitter");
    QTest::addColumn<QList<qint64>>("delays");

    QTest::newRow("no jitter doubles to the cap") << 0.0 << QList<qint64> { 10, 20, 40, 80, 100, 100, 100 };
    QTest::newRow("full positive jitter adds 20 %") << 1.0 << QList<qint64> { 12, 24, 48, 96, 120, 120, 120 };
    QTest::newRow("full negative jitter takes 20 % off") << -1.0 << QList<qint64> { 8, 16, 32, 64, 80, 80, 80 };
}

void TestReconnector::backoffIsCappedAndJittered()
{
    QFETCH(double, jitter);
    QFETCH(QList<qint64>, delays);

    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    reconnector.setJitterFunction([jitter] { return jitter; });
    Reconnector::BackoffSettings settings;
    settings.initialDelayMs = 10;
    settings.maxDelayMs = 100;
    settings.parkAfterFailures = 7;
    reconnector.setBackoffSettings(settings);
    QSignalSpy scheduled(&reconnector, &Reconnector::backoffScheduled);

    reconnector.startBackground(QStringLiteral("old"));
    for (int failure = 0; failure < delays.size() - 1; ++failure) {
        QTRY_COMPARE(fake.calls, failure + 1);
        fake.finish(false, QString(), QStringLiteral("refused"));
    }
    QList<qint64> seen;
    for (const QList<QVariant>& arguments : std::as_const(scheduled))
        seen.append(arguments.at(0).toLongLong());
    QCOMPARE(seen, delays);
    reconnector.stopBackground();
}

void TestReconnector::parkedServerIsProbed()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    reconnector.setJitterFunction([] { return 0.0; });
    Reconnector::BackoffSettings settings = fastBackoff();
    settings.initialDelayMs = 1;
    settings.parkAfterFailures = 2;
    settings.parkedProbeIntervalMs = 30;
    reconnector.setBackoffSettings(settings);
    QSignalSpy parked(&reconnector, &Reconnector::parked);
    QSignalSpy scheduled(&reconnector, &Reconnector::backoffScheduled);

    reconnector.startBackground(QStringLiteral("old"));
    QTRY_COMPARE(fake.calls, 1);
    fake.finish(false, QString(), QStringLiteral("refused"));
    QTRY_COMPARE(fake.calls, 2);
    fake.finish(false, QString(), QStringLiteral("refused"));
    QCOMPARE(parked.count(), 1);

    QTRY_COMPARE(fake.calls, 3);
    fake.finish(false, QString(), QStringLiteral("refused"));
    QVERIFY(reconnector.isParked());
    QCOMPARE(parked.count(), 1);
    QCOMPARE(scheduled.count(), 2); // probes are not backoff steps

    QTRY_COMPARE(fake.calls, 4);
    fake.finish(true, QStringLiteral("new"));
    QVERIFY(!reconnector.isParked());
    QVERIFY(!reconnector.isBackgroundActive());
}

void TestReconnector::reconnectNowUnparks()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    reconnector.setJitterFunction([] { return 0.0; });
    Reconnector::BackoffSettings settings = fastBackoff();
    settings.initialDelayMs = 1;
    reconnector.setBackoffSettings(settings);
    QSignalSpy scheduled(&reconnector, &Reconnector::backoffScheduled);

    reconnector.startBackground(QStringLiteral("old"));
    for (int failure = 0; failure < 5; ++failure) {
        QTRY_COMPARE(fake.calls, failure + 1);
        fake.finish(false, QString(), QStringLiteral("refused"));
    }
    QVERIFY(reconnector.isParked());

    reconnector.reconnectNow();
    QVERIFY(!reconnector.isParked());
    QCOMPARE(reconnector.backgroundFailures(), 0);
    QCOMPARE(fake.calls, 6); // at once, not after a delay
    QVERIFY(reconnector.isRunning());

    // A failed manual reconnect falls back into backoff from the start.
    scheduled.clear();
    fake.finish(false, QString(), QStringLiteral("refused"));
    QCOMPARE(scheduled.count(), 1);
    QCOMPARE(scheduled.first().at(1).toInt(), 1);
    QTRY_COMPARE(fake.calls, 7);
    fake.finish(true, QStringLiteral("new"));
    QVERIFY(!reconnector.isBackgroundActive());
    QCOMPARE(reconnector.lastResult()->oldSessionId, QStringLiteral("old"));

    // The next manual reconnect starts from the session this one produced.
    reconnector.reconnectNow();
    fake.finish(true, QStringLiteral("newer"));
    QCOMPARE(reconnector.lastResult()->oldSessionId, QStringLiteral("new"));
    QVERIFY(reconnector.lastResult()->ok);
}

void TestReconnector::successfulCallReconnectEndsTheBackground()
{
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    reconnector.setBackoffSettings(fastBackoff());
    reconnector.startBackground(QStringLiteral("old"));
    QTRY_COMPARE(fake.calls, 1);
    fake.finish(false, QString(), QStringLiteral("refused"));

    // A call's own reconnect heals the server while the background waits for its next step. The
    // window is closed so the call does not pick up the background's failure (see below).
    reconnector.setLateJoinWindowMs(0);
    Results results;
    reconnector.join(QStringLiteral("old"), 0, nullptr, results.callback());
    QCOMPARE(fake.calls, 2);
    fake.finish(true, QStringLiteral("new"));
    QVERIFY(results.received.first().ok);
    QVERIFY(!reconnector.isBackgroundActive());
    QVERIFY(!reconnector.isParked());
}

void TestReconnector::lateJoinAfterAFailureGetsThatFailure()
{
    // A caller that arrives just after a failed reconnect shares its answer instead of hammering a
    // server that refused a moment ago; the background backoff owns the next try.
    Reconnector reconnector;
    FakeConnect fake;
    reconnector.setConnectFunction(fake.function());
    Results results;
    reconnector.join(QStringLiteral("old"), 0, nullptr, results.callback());
    fake.finish(false, QString(), QStringLiteral("connection refused"));
    reconnector.join(QStringLiteral("old"), 0, nullptr, results.callback());
    QCOMPARE(fake.calls, 1);
    QCOMPARE(results.received.size(), 2);
    QVERIFY(!results.received.last().ok);
    QCOMPARE(results.received.last().error, QStringLiteral("connection refused"));
}

QTEST_GUILESS_MAIN(TestReconnector)
#include "tst_reconnector.moc"
