#include "recovery/retrypolicy.h"

#include <QJsonObject>
#include <QTest>

#include <optional>

using mcpscope::ClassifiedFailure;
using mcpscope::Decision;
using mcpscope::DispatchVerdict;
using mcpscope::FailureKind;
using mcpscope::PolicySettings;
using mcpscope::RecoveryAction;
namespace RetryPolicy = mcpscope::RetryPolicy;

namespace {

/// The annotation shapes of RECOVERY.md §2, as a tool could send them in tools/list.
enum class Shape {
    ReadOnlyTrue,
    ReadOnlyFalse,
    ReadOnlyAbsent,
    ReadOnlyStringTrue,
    ReadOnlyOne,
    NotListed,
    IdempotentPolicyOn,
    IdempotentPolicyOff,
    DestructiveFalseAlone,
    NotATool,
};

struct ShapeInfo
{
    Shape shape;
    const char* tag;
    bool replayable;
    bool readOnly; ///< a lost answer does not matter: nothing was written
};

const ShapeInfo kShapes[] = {
    { Shape::ReadOnlyTrue, "readOnlyHint true", true, true },
    { Shape::ReadOnlyFalse, "readOnlyHint false", false, false },
    { Shape::ReadOnlyAbsent, "readOnlyHint absent", false, false },
    { Shape::ReadOnlyStringTrue, "readOnlyHint \"true\" (string)", false, false },
    { Shape::ReadOnlyOne, "readOnlyHint 1", false, false },
    { Shape::NotListed, "tool not listed", false, false },
    { Shape::IdempotentPolicyOn, "idempotentHint true, idempotent-replay on", true, false },
    { Shape::IdempotentPolicyOff, "idempotentHint true, idempotent-replay off", false, false },
    { Shape::DestructiveFalseAlone, "destructiveHint false alone", false, false },
    { Shape::NotATool, "resources/read (not a tool)", true, true },
};

std::optional<QJsonObject> annotationsFor(Shape shape)
{
    switch (shape) {
    case Shape::ReadOnlyTrue:
        return QJsonObject { { QStringLiteral("readOnlyHint"), true } };
    case Shape::ReadOnlyFalse:
        return QJsonObject { { QStringLiteral("readOnlyHint"), false } };
    case Shape::ReadOnlyAbsent:
        return QJsonObject { { QStringLiteral("title"), QStringLiteral("Create issue") } };
    case Shape::ReadOnlyStringTrue:
        return QJsonObject { { QStringLiteral("readOnlyHint"), QStringLiteral("true") } };
    case Shape::ReadOnlyOne:
        return QJsonObject { { QStringLiteral("readOnlyHint"), 1 } };
    case Shape::IdempotentPolicyOn:
    case Shape::IdempotentPolicyOff:
        return QJsonObject { { QStringLiteral("readOnlyHint"), false }, { QStringLiteral("idempotentHint"), true } };
    case Shape::DestructiveFalseAlone:
        return QJsonObject { { QStringLiteral("destructiveHint"), false } };
    case Shape::NotListed:
    case Shape::NotATool:
        break;
    }
    return std::nullopt;
}

bool isToolCallFor(Shape shape)
{
    return shape != Shape::NotATool;
}

PolicySettings settingsFor(Shape shape)
{
    PolicySettings settings;
    settings.idempotentReplay = shape == Shape::IdempotentPolicyOn;
    return settings;
}

ClassifiedFailure failureOf(FailureKind kind, DispatchVerdict verdict, int httpStatus = 0)
{
    ClassifiedFailure failure;
    failure.kind = kind;
    failure.verdict = verdict;
    failure.httpStatus = httpStatus;
    failure.message = QStringLiteral("evidence");
    return failure;
}

QByteArray tagOf(const char* failure, const ShapeInfo& shape, const char* suffix = "")
{
    return QByteArray(failure) + ", " + shape.tag + suffix;
}

} // namespace

class TestRetryPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decide_data();
    void decide();
    void isReplayable_data();
    void isReplayable();
    void breakerOpenFailsFast();
    void reasonsArePlainSentences_data();
    void reasonsArePlainSentences();
    void actionNamesAreStable();
};

void TestRetryPolicy::decide_data()
{
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<DispatchVerdict>("verdict");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<int>("attempt");
    QTest::addColumn<RecoveryAction>("action");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<bool>("outcomeUncertain");
    QTest::addColumn<bool>("reconnect");

    for (const ShapeInfo& s : kShapes) {
        // R1–R3: nothing reached the server, so any call may go again, once.
        QTest::newRow(tagOf("R1 not sent", s).constData())
            << s.shape << FailureKind::NotSent << DispatchVerdict::NotDispatched << 0 << 1 << RecoveryAction::RetryOnce
            << QStringLiteral("R1") << false << true;
        QTest::newRow(tagOf("R2 HTTP 401", s).constData())
            << s.shape << FailureKind::AuthRequired << DispatchVerdict::NotDispatched << 401 << 1
            << RecoveryAction::AuthThenRetry << QStringLiteral("R2") << false << true;
        QTest::newRow(tagOf("R3 insufficient scope", s).constData())
            << s.shape << FailureKind::InsufficientScope << DispatchVerdict::NotDispatched << 403 << 1
            << RecoveryAction::StepUpThenRetry << QStringLiteral("R3") << false << false;

        // R4/R5: the session went away after the call may have reached the server.
        for (const FailureKind lost : { FailureKind::SessionExpired, FailureKind::TransportLost }) {
            const bool expired = lost == FailureKind::SessionExpired;
            if (s.replayable) {
                QTest::newRow(tagOf(expired ? "R4 session expired" : "R4 transport lost", s).constData())
                    << s.shape << lost << DispatchVerdict::Unknown << (expired ? 404 : 0) << 1
                    << RecoveryAction::ReconnectThenRetry << QStringLiteral("R4") << false << true;
            } else {
                QTest::newRow(
                    tagOf(expired ? "R5 session expired" : "R5 transport lost", s, " -> heal, no replay, uncertain")
                        .constData())
                    << s.shape << lost << DispatchVerdict::Unknown << (expired ? 404 : 0) << 1
                    << RecoveryAction::HealNoReplay << QStringLiteral("R5") << true << true;
            }
        }

        // R6: a write that timed out may have run; a read that timed out is just a timeout.
        QTest::newRow(tagOf("R6 timeout", s, s.readOnly ? " -> timeout" : " -> outcome uncertain").constData())
            << s.shape << FailureKind::Timeout << DispatchVerdict::Unknown << 0 << 1 << RecoveryAction::CancelNoRetry
            << QStringLiteral("R6") << !s.readOnly << false;

        // R8: the server answered; its answer is the result.
        QTest::newRow(tagOf("R8 tool error", s).constData())
            << s.shape << FailureKind::ToolError << DispatchVerdict::Executed << 0 << 1 << RecoveryAction::Stop
            << QStringLiteral("R8") << false << false;
        QTest::newRow(tagOf("R8 JSON-RPC error", s).constData())
            << s.shape << FailureKind::ProtocolError
            << (isToolCallFor(s.shape) ? DispatchVerdict::Unknown : DispatchVerdict::Declined) << 0 << 1
            << RecoveryAction::Stop << QStringLiteral("R8") << false << false;
        QTest::newRow(tagOf("R8 HTTP 500", s).constData())
            << s.shape << FailureKind::HttpError << DispatchVerdict::Unknown << 500 << 1 << RecoveryAction::Stop
            << QStringLiteral("R8") << false << false;
        QTest::newRow(tagOf("R8 HTTP 422", s).constData())
            << s.shape << FailureKind::HttpError << DispatchVerdict::Declined << 422 << 1 << RecoveryAction::Stop
            << QStringLiteral("R8") << false << false;

        // R7: a failed retry always stops. Only a write-capable retry that may have run is uncertain.
        QTest::newRow(tagOf("R7 retry not sent either", s).constData())
            << s.shape << FailureKind::NotSent << DispatchVerdict::NotDispatched << 0 << 2 << RecoveryAction::Stop
            << QStringLiteral("R7") << false << false;
        QTest::newRow(tagOf("R7 retry got 401 again", s).constData())
            << s.shape << FailureKind::AuthRequired << DispatchVerdict::NotDispatched << 401 << 2
            << RecoveryAction::Stop << QStringLiteral("R7") << false << false;
        QTest::newRow(tagOf("R7 retry hit an expired session", s).constData())
            << s.shape << FailureKind::SessionExpired << DispatchVerdict::Unknown << 404 << 2 << RecoveryAction::Stop
            << QStringLiteral("R7") << !s.readOnly << true;
        QTest::newRow(tagOf("R7 retry lost its transport", s).constData())
            << s.shape << FailureKind::TransportLost << DispatchVerdict::Unknown << 0 << 2 << RecoveryAction::Stop
            << QStringLiteral("R7") << !s.readOnly << true;
        QTest::newRow(tagOf("R7 retry timed out", s).constData())
            << s.shape << FailureKind::Timeout << DispatchVerdict::Unknown << 0 << 2 << RecoveryAction::Stop
            << QStringLiteral("R7") << !s.readOnly << false;
        QTest::newRow(tagOf("R7 retry got a tool error", s).constData())
            << s.shape << FailureKind::ToolError << DispatchVerdict::Executed << 0 << 2 << RecoveryAction::Stop
            << QStringLiteral("R7") << false << false;
        QTest::newRow(tagOf("R7 retry got HTTP 400", s).constData())
            << s.shape << FailureKind::HttpError << DispatchVerdict::Declined << 400 << 2 << RecoveryAction::Stop
            << QStringLiteral("R7") << false << false;
    }
    QTest::newRow("R7 third attempt, transport lost, readOnlyHint true")
        << Shape::ReadOnlyTrue << FailureKind::TransportLost << DispatchVerdict::Unknown << 0 << 3
        << RecoveryAction::Stop << QStringLiteral("R7") << false << true;
}

void TestRetryPolicy::decide()
{
    QFETCH(Shape, shape);
    QFETCH(FailureKind, kind);
    QFETCH(DispatchVerdict, verdict);
    QFETCH(int, httpStatus);
    QFETCH(int, attempt);
    QFETCH(RecoveryAction, action);
    QFETCH(QString, rule);
    QFETCH(bool, outcomeUncertain);
    QFETCH(bool, reconnect);

    const std::optional<QJsonObject> annotations = annotationsFor(shape);
    const Decision decision = RetryPolicy::decide(failureOf(kind, verdict, httpStatus),
        annotations ? &*annotations : nullptr, isToolCallFor(shape), attempt, settingsFor(shape));
    QCOMPARE(RetryPolicy::actionName(decision.action), RetryPolicy::actionName(action));
    QCOMPARE(decision.rule, rule);
    QCOMPARE(decision.outcomeUncertain, outcomeUncertain);
    QCOMPARE(decision.reconnect, reconnect);
    QVERIFY(!decision.reason.isEmpty());
}

void TestRetryPolicy::isReplayable_data()
{
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<bool>("replayable");
    for (const ShapeInfo& s : kShapes)
        QTest::newRow(s.tag) << s.shape << s.replayable;
}

void TestRetryPolicy::isReplayable()
{
    QFETCH(Shape, shape);
    QFETCH(bool, replayable);
    const std::optional<QJsonObject> annotations = annotationsFor(shape);
    QCOMPARE(RetryPolicy::isReplayable(annotations ? &*annotations : nullptr, isToolCallFor(shape), settingsFor(shape)),
        replayable);
}

void TestRetryPolicy::breakerOpenFailsFast()
{
    const QString message = QStringLiteral("Server 'x' is failing: 3 consecutive failures; calls fail fast for 60 s.");
    const Decision decision = RetryPolicy::breakerOpen(message);
    QCOMPARE(RetryPolicy::actionName(decision.action), QStringLiteral("fail_fast"));
    QCOMPARE(decision.rule, QStringLiteral("R9"));
    QCOMPARE(decision.reason, message);
    QVERIFY(!decision.outcomeUncertain);
    QVERIFY(!decision.reconnect);
}

void TestRetryPolicy::reasonsArePlainSentences_data()
{
    QTest::addColumn<FailureKind>("kind");
    QTest::addColumn<int>("attempt");
    QTest::addColumn<QString>("contains");

    QTest::newRow("R5 says the call was not sent again to avoid a duplicate write")
        << FailureKind::SessionExpired << 1
        << QStringLiteral("The session expired after the call may have reached the server; it was not sent again to "
                          "avoid a duplicate write.");
    QTest::newRow("R6 on a write says it may or may not have taken effect")
        << FailureKind::Timeout << 1 << QStringLiteral("may or may not have taken effect");
    QTest::newRow("R7 says a call is sent at most twice")
        << FailureKind::TransportLost << 2 << QStringLiteral("sent at most twice");
    QTest::newRow("R8 says the answer is reported as it came")
        << FailureKind::ToolError << 1 << QStringLiteral("reported as it came");
}

void TestRetryPolicy::reasonsArePlainSentences()
{
    QFETCH(FailureKind, kind);
    QFETCH(int, attempt);
    QFETCH(QString, contains);
    const QJsonObject writer { { QStringLiteral("readOnlyHint"), false } };
    const Decision decision
        = RetryPolicy::decide(failureOf(kind, DispatchVerdict::Unknown), &writer, true, attempt, PolicySettings {});
    QVERIFY2(decision.reason.contains(contains), qPrintable(decision.reason));
    QVERIFY(decision.reason.endsWith(QLatin1Char('.')));
}

void TestRetryPolicy::actionNamesAreStable()
{
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::RetryOnce), QStringLiteral("retry_once"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::ReconnectThenRetry), QStringLiteral("reconnect_then_retry"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::AuthThenRetry), QStringLiteral("auth_then_retry"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::StepUpThenRetry), QStringLiteral("step_up_then_retry"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::HealNoReplay), QStringLiteral("heal_no_replay"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::CancelNoRetry), QStringLiteral("cancel_no_retry"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::Stop), QStringLiteral("stop"));
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::FailFast), QStringLiteral("fail_fast"));
}

QTEST_GUILESS_MAIN(TestRetryPolicy)
#include "tst_retrypolicy.moc"
