#include "recovery/circuitbreaker.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using mcpscope::CircuitBreaker;
using State = mcpscope::CircuitBreaker::State;

namespace {

/// A breaker on a hand-driven clock, so cooldowns pass without waiting.
struct Fixture
{
    explicit Fixture(bool countToolErrors = true)
    {
        CircuitBreaker::Settings settings;
        settings.threshold = 3;
        settings.cooldownMs = 60000;
        settings.countToolErrors = countToolErrors;
        breaker.setSettings(settings);
        breaker.setClock([now = this->now] { return *now; });
    }

    void advance(qint64 ms) { *now += ms; }

    void strike(int count, bool toolError = false)
    {
        for (int i = 0; i < count; ++i)
            breaker.recordFailure(toolError);
    }

    std::shared_ptr<qint64> now = std::make_shared<qint64>(1000000);
    CircuitBreaker breaker;
};

QList<State> statesOf(const QSignalSpy& spy)
{
    QList<State> states;
    for (const QList<QVariant>& arguments : spy)
        states.append(arguments.at(0).value<State>());
    return states;
}

} // namespace

class TestCircuitBreaker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsClosedAndAllowsCalls();
    void opensAtTheThreshold_data();
    void opensAtTheThreshold();
    void successResetsTheCount();
    void failsFastWhileOpen();
    void exactlyOneProbeAfterTheCooldown();
    void probeSuccessCloses();
    void probeFailureReopensWithAFreshCooldown();
    void releasedProbeLetsTheNextCallProbe();
    void toolErrorsCountByDefault();
    void toolErrorsNotCountedCloseLikeAnAnswer();
    void openMessages_data();
    void openMessages();
    void reconnectSuccessCloses();
    void uncertainAfterHealIsNotAStrike();
    void forceOpenAndReset();
    void remainingCooldownCountsDown();
    void lateFailureWhileOpenDoesNotExtendTheCooldown();
    void stateNames();
};

void TestCircuitBreaker::startsClosedAndAllowsCalls()
{
    Fixture f;
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), 0);
    QCOMPARE(f.breaker.remainingCooldownMs(), 0);
    for (int i = 0; i < 10; ++i)
        QVERIFY(f.breaker.allowRequest());
}

void TestCircuitBreaker::opensAtTheThreshold_data()
{
    QTest::addColumn<int>("threshold");
    QTest::newRow("default threshold of 3 (hermes)") << 3;
    QTest::newRow("threshold of 1 opens on the first strike") << 1;
    QTest::newRow("threshold of 5") << 5;
}

void TestCircuitBreaker::opensAtTheThreshold()
{
    QFETCH(int, threshold);
    Fixture f;
    CircuitBreaker::Settings settings = f.breaker.settings();
    settings.threshold = threshold;
    f.breaker.setSettings(settings);
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);

    f.strike(threshold - 1);
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), threshold - 1);
    QVERIFY(states.isEmpty());

    f.strike(1);
    QCOMPARE(f.breaker.state(), State::Open);
    QCOMPARE(f.breaker.consecutiveFailures(), threshold);
    QCOMPARE(statesOf(states), QList<State> { State::Open });
}

void TestCircuitBreaker::successResetsTheCount()
{
    Fixture f;
    f.strike(2);
    f.breaker.recordSuccess();
    QCOMPARE(f.breaker.consecutiveFailures(), 0);
    f.strike(2);
    QCOMPARE(f.breaker.state(), State::Closed);
}

void TestCircuitBreaker::failsFastWhileOpen()
{
    Fixture f;
    f.strike(3);
    QVERIFY(!f.breaker.allowRequest());
    f.advance(59999);
    QVERIFY(!f.breaker.allowRequest());
    QCOMPARE(f.breaker.state(), State::Open);
}

void TestCircuitBreaker::exactlyOneProbeAfterTheCooldown()
{
    Fixture f;
    f.strike(3);
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    f.advance(60000);
    QVERIFY(f.breaker.allowRequest());
    QCOMPARE(f.breaker.state(), State::HalfOpen);
    QVERIFY(f.breaker.probeInFlight());
    QVERIFY(!f.breaker.allowRequest());
    f.advance(120000);
    QVERIFY2(!f.breaker.allowRequest(), "still only one probe while it is out, however long it takes");
    QCOMPARE(statesOf(states), QList<State> { State::HalfOpen });
}

void TestCircuitBreaker::probeSuccessCloses()
{
    Fixture f;
    f.strike(3);
    f.advance(60000);
    QVERIFY(f.breaker.allowRequest());
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    f.breaker.recordSuccess();
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), 0);
    QVERIFY(f.breaker.allowRequest());
    QVERIFY(f.breaker.allowRequest());
    QCOMPARE(statesOf(states), QList<State> { State::Closed });
}

void TestCircuitBreaker::probeFailureReopensWithAFreshCooldown()
{
    Fixture f;
    f.strike(3);
    f.advance(90000); // well past the first cooldown
    QVERIFY(f.breaker.allowRequest());
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    f.breaker.recordFailure(false);
    QCOMPARE(f.breaker.state(), State::Open);
    QCOMPARE(f.breaker.consecutiveFailures(), 4);
    QCOMPARE(f.breaker.remainingCooldownMs(), 60000);
    QVERIFY(!f.breaker.allowRequest());
    f.advance(59999);
    QVERIFY(!f.breaker.allowRequest());
    f.advance(1);
    QVERIFY(f.breaker.allowRequest());
    QCOMPARE(statesOf(states), (QList<State> { State::Open, State::HalfOpen }));
}

void TestCircuitBreaker::releasedProbeLetsTheNextCallProbe()
{
    Fixture f;
    f.strike(3);
    f.advance(60000);
    QVERIFY(f.breaker.allowRequest());
    QVERIFY(!f.breaker.allowRequest());
    f.breaker.releaseProbe();
    QCOMPARE(f.breaker.state(), State::HalfOpen);
    QVERIFY(f.breaker.allowRequest());
    QVERIFY(!f.breaker.allowRequest());
}

void TestCircuitBreaker::toolErrorsCountByDefault()
{
    Fixture f;
    f.strike(2, true);
    f.strike(1, false);
    QCOMPARE(f.breaker.state(), State::Open);
    QCOMPARE(f.breaker.consecutiveFailures(), 3);
}

void TestCircuitBreaker::toolErrorsNotCountedCloseLikeAnAnswer()
{
    Fixture f(false);
    f.strike(5, true);
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), 0);

    // An answer, even a tool error, breaks a run of transport failures.
    f.strike(2);
    f.strike(1, true);
    f.strike(2);
    QCOMPARE(f.breaker.state(), State::Closed);
    f.strike(1);
    QCOMPARE(f.breaker.state(), State::Open);

    f.advance(60000);
    QVERIFY(f.breaker.allowRequest());
    f.breaker.recordFailure(true);
    QCOMPARE(f.breaker.state(), State::Closed);
}

void TestCircuitBreaker::openMessages_data()
{
    QTest::addColumn<QList<bool>>("strikes"); // true: a tool error
    QTest::addColumn<QString>("message");

    QTest::newRow("transport failures say the server is failing") << QList<bool> { false, false,
        false } << QStringLiteral("Server 'files' is failing: 3 consecutive failures; calls fail fast for 60 s.");
    QTest::newRow("a mix says the server is failing") << QList<bool> { true, false,
        true } << QStringLiteral("Server 'files' is failing: 3 consecutive failures; calls fail fast for 60 s.");
    QTest::newRow("only tool errors say reachable but rejecting calls")
        << QList<bool> { true, true, true }
        << QStringLiteral(
               "Server 'files' is reachable but rejecting calls: 3 consecutive tool errors; calls fail fast for 60 s.");
}

void TestCircuitBreaker::openMessages()
{
    QFETCH(QList<bool>, strikes);
    QFETCH(QString, message);
    Fixture f;
    for (bool toolError : strikes)
        f.breaker.recordFailure(toolError);
    QCOMPARE(f.breaker.state(), State::Open);
    QCOMPARE(f.breaker.openMessage(QStringLiteral("files")), message);
}

void TestCircuitBreaker::reconnectSuccessCloses()
{
    Fixture f;
    f.strike(3);
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    f.breaker.recordReconnectSuccess();
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), 0);
    QVERIFY(f.breaker.allowRequest());
    QCOMPARE(statesOf(states), QList<State> { State::Closed });
}

void TestCircuitBreaker::uncertainAfterHealIsNotAStrike()
{
    Fixture f;
    f.strike(2);
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    QSignalSpy failures(&f.breaker, &CircuitBreaker::failuresChanged);
    for (int i = 0; i < 5; ++i)
        f.breaker.recordUncertainAfterHeal();
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), 2);
    QVERIFY(states.isEmpty());
    QVERIFY(failures.isEmpty());
}

void TestCircuitBreaker::forceOpenAndReset()
{
    Fixture f;
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    f.breaker.forceOpen();
    QCOMPARE(f.breaker.state(), State::Open);
    QVERIFY(!f.breaker.allowRequest());
    QCOMPARE(f.breaker.remainingCooldownMs(), 60000);
    QCOMPARE(f.breaker.openMessage(QStringLiteral("files")),
        QStringLiteral("Server 'files' has its circuit breaker opened by hand; calls fail fast for 60 s."));
    f.breaker.reset();
    QCOMPARE(f.breaker.state(), State::Closed);
    QCOMPARE(f.breaker.consecutiveFailures(), 0);
    QVERIFY(f.breaker.allowRequest());

    f.strike(3);
    f.breaker.reset();
    QCOMPARE(f.breaker.consecutiveFailures(), 0);
    QCOMPARE(statesOf(states), (QList<State> { State::Open, State::Closed, State::Open, State::Closed }));
}

void TestCircuitBreaker::remainingCooldownCountsDown()
{
    Fixture f;
    f.strike(3);
    QCOMPARE(f.breaker.remainingCooldownMs(), 60000);
    f.advance(15000);
    QCOMPARE(f.breaker.remainingCooldownMs(), 45000);
    QCOMPARE(f.breaker.openMessage(QStringLiteral("files")),
        QStringLiteral("Server 'files' is failing: 3 consecutive failures; calls fail fast for 45 s."));
    f.advance(44500);
    QCOMPARE(f.breaker.remainingCooldownMs(), 500);
    QVERIFY2(f.breaker.openMessage(QStringLiteral("files")).endsWith(QStringLiteral("for 1 s.")),
        "seconds round up while calls still fail fast");
    f.advance(1000);
    QCOMPARE(f.breaker.remainingCooldownMs(), 0);
    QVERIFY(f.breaker.allowRequest());
    QCOMPARE(f.breaker.remainingCooldownMs(), 0); // half-open has no cooldown left
}

void TestCircuitBreaker::lateFailureWhileOpenDoesNotExtendTheCooldown()
{
    Fixture f;
    f.strike(3);
    f.advance(30000);
    QSignalSpy states(&f.breaker, &CircuitBreaker::stateChanged);
    f.breaker.recordFailure(false);
    QCOMPARE(f.breaker.consecutiveFailures(), 4);
    QCOMPARE(f.breaker.remainingCooldownMs(), 30000);
    QVERIFY(states.isEmpty());
}

void TestCircuitBreaker::stateNames()
{
    QCOMPARE(CircuitBreaker::stateName(State::Closed), QStringLiteral("closed"));
    QCOMPARE(CircuitBreaker::stateName(State::Open), QStringLiteral("open"));
    QCOMPARE(CircuitBreaker::stateName(State::HalfOpen), QStringLiteral("half-open"));
}

QTEST_GUILESS_MAIN(TestCircuitBreaker)
#include "tst_circuitbreaker.moc"
