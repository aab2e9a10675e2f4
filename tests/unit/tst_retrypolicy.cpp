#include "recovery/retrypolicy.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <optional>

using mcpscope::ClassifiedFailure;
using mcpscope::Decision;
using mcpscope::DispatchVerdict;
using mcpscope::FailureKind;
using mcpscope::PolicySettings;
using mcpscope::RecoveryAction;
using mcpscope::RequestTools;
using mcpscope::ToolInfo;
using mcpscope::ToolListing;
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

/// The request as RetryPolicy sees it when nothing changed during the call: the snapshot and the
/// newest listing are the same.
RequestTools toolsFor(Shape shape)
{
    if (!isToolCallFor(shape))
        return RequestTools::notATool();
    ToolListing listing;
    if (const std::optional<QJsonObject> annotations = annotationsFor(shape)) {
        listing.listed = true;
        listing.annotations = *annotations;
    }
    return RequestTools::toolCall(listing, listing);
}

/// One listing of the tool, for the fresh-annotation rows: what tools/list said at one moment.
enum class Listing {
    ReadOnlyTrue,
    ReadOnlyFalse,
    ReadOnlyAbsent,
    IdempotentTrue,
    TwiceTrueThenFalse, ///< the name twice: first entry readOnlyHint true, second false
    TwiceBothTrue, ///< the name twice, both entries readOnlyHint true: still no entry is the truth
    NotListed,
};

ToolInfo entry(const QString& name, const QJsonObject& annotations)
{
    return ToolInfo::fromJson(
        QJsonObject { { QStringLiteral("name"), name }, { QStringLiteral("annotations"), annotations } });
}

ToolListing listingFor(Listing listing)
{
    const QString name = QStringLiteral("t");
    const QJsonObject readOnly { { QStringLiteral("readOnlyHint"), true } };
    const QJsonObject writer { { QStringLiteral("readOnlyHint"), false } };
    // Another tool is always there: "not listed" is a listing without this name, not an empty one.
    QList<ToolInfo> tools { entry(QStringLiteral("other"), readOnly) };
    switch (listing) {
    case Listing::ReadOnlyTrue:
        tools.append(entry(name, readOnly));
        break;
    case Listing::ReadOnlyFalse:
        tools.append(entry(name, writer));
        break;
    case Listing::ReadOnlyAbsent:
        tools.append(entry(name, {}));
        break;
    case Listing::IdempotentTrue:
        tools.append(
            entry(name, { { QStringLiteral("readOnlyHint"), false }, { QStringLiteral("idempotentHint"), true } }));
        break;
    case Listing::TwiceTrueThenFalse:
        tools.append(entry(name, readOnly));
        tools.append(entry(name, writer));
        break;
    case Listing::TwiceBothTrue:
        tools.append(entry(name, readOnly));
        tools.append(entry(name, readOnly));
        break;
    case Listing::NotListed:
        break;
    }
    // Built from a list the way the engine builds it, so the duplicate count is the real one.
    return ToolListing::of(tools, name);
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
    void freshListings_data();
    void freshListings();
    void breakerOpenFailsFast();
    void unreadableAnswerIsNotCalledAnError();
    void reasonsArePlainSentences_data();
    void reasonsArePlainSentences();
    void actionNamesAreStable();
    void modernRejections_data();
    void modernRejections();
    void eraMismatchReprobesOnlyInAuto_data();
    void eraMismatchReprobesOnlyInAuto();
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

    const Decision decision
        = RetryPolicy::decide(failureOf(kind, verdict, httpStatus), toolsFor(shape), attempt, settingsFor(shape));
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
    QCOMPARE(RetryPolicy::isReplayable(toolsFor(shape), settingsFor(shape)), replayable);
    QCOMPARE(RetryPolicy::whyNotReplayable(toolsFor(shape), settingsFor(shape)).isEmpty(), replayable);
}

// RECOVERY.md §2 as amended: the snapshot taken when the call started and the newest tools/list at
// decision time must both say readOnlyHint true, with the name listed once. The reason names the
// listing that made the call a write, so a user sees why there was no replay.
void TestRetryPolicy::freshListings_data()
{
    QTest::addColumn<Listing>("snapshot");
    QTest::addColumn<Listing>("current");
    QTest::addColumn<bool>("idempotentReplay");
    QTest::addColumn<bool>("replayable");
    QTest::addColumn<bool>("readOnly");
    QTest::addColumn<QString>("why"); ///< in the R5 reason; empty for a replay

    QTest::newRow("snapshot readOnlyHint true, newest listing false: no replay")
        << Listing::ReadOnlyTrue << Listing::ReadOnlyFalse << false << false << false
        << QStringLiteral("the tool's newest listing says readOnlyHint false");
    QTest::newRow("snapshot readOnlyHint true, newest listing drops the hint: no replay")
        << Listing::ReadOnlyTrue << Listing::ReadOnlyAbsent << false << false << false
        << QStringLiteral("the tool's newest listing has no readOnlyHint");
    QTest::newRow("snapshot readOnlyHint false, newest listing true: no replay")
        << Listing::ReadOnlyFalse << Listing::ReadOnlyTrue << false << false << false
        << QStringLiteral("the tool's listing when the call started says readOnlyHint false");
    QTest::newRow("newest listing has the name twice (true, then false): no replay")
        << Listing::ReadOnlyTrue << Listing::TwiceTrueThenFalse << false << false << false
        << QStringLiteral("the tool is listed more than once in the newest tools/list");
    QTest::newRow("newest listing has the name twice, both true: still no replay")
        << Listing::ReadOnlyTrue << Listing::TwiceBothTrue << false << false << false
        << QStringLiteral("the tool is listed more than once in the newest tools/list");
    QTest::newRow("name twice in the snapshot and in the newest listing: no replay")
        << Listing::TwiceTrueThenFalse << Listing::TwiceTrueThenFalse << false << false << false
        << QStringLiteral("the tool was listed more than once when the call started");
    QTest::newRow("snapshot readOnlyHint true, not listed now: no replay")
        << Listing::ReadOnlyTrue << Listing::NotListed << false << false << false
        << QStringLiteral("the tool is not in the newest tools/list");
    QTest::newRow("not listed when the call started, readOnlyHint true now: no replay")
        << Listing::NotListed << Listing::ReadOnlyTrue << false << false << false
        << QStringLiteral("the tool was not listed when the call started");
    QTest::newRow("readOnlyHint true in both listings: replay")
        << Listing::ReadOnlyTrue << Listing::ReadOnlyTrue << false << true << true << QString();
    QTest::newRow("idempotent-replay on, idempotentHint true in both: replay")
        << Listing::IdempotentTrue << Listing::IdempotentTrue << true << true << false << QString();
    QTest::newRow("idempotent-replay on, idempotentHint true, newest listing false: no replay")
        << Listing::IdempotentTrue << Listing::ReadOnlyFalse << true << false << false
        << QStringLiteral("and idempotentHint is not true in both listings");
    QTest::newRow("idempotent-replay on, idempotentHint true, newest listing twice: no replay")
        << Listing::IdempotentTrue << Listing::TwiceTrueThenFalse << true << false << false
        << QStringLiteral("the tool is listed more than once in the newest tools/list");
    QTest::newRow("idempotent-replay on, read-only then only idempotent: no hint in both, no replay")
        << Listing::ReadOnlyTrue << Listing::IdempotentTrue << true << false << false
        << QStringLiteral("the tool's newest listing says readOnlyHint false");
}

void TestRetryPolicy::freshListings()
{
    QFETCH(Listing, snapshot);
    QFETCH(Listing, current);
    QFETCH(bool, idempotentReplay);
    QFETCH(bool, replayable);
    QFETCH(bool, readOnly);
    QFETCH(QString, why);
    const RequestTools tools = RequestTools::toolCall(listingFor(snapshot), listingFor(current));
    PolicySettings settings;
    settings.idempotentReplay = idempotentReplay;
    QCOMPARE(RetryPolicy::isReplayable(tools, settings), replayable);
    QCOMPARE(RetryPolicy::whyNotReplayable(tools, settings).isEmpty(), replayable);

    for (const FailureKind lost : { FailureKind::SessionExpired, FailureKind::TransportLost }) {
        const Decision decision = RetryPolicy::decide(failureOf(lost, DispatchVerdict::Unknown), tools, 1, settings);
        QCOMPARE(decision.rule, replayable ? QStringLiteral("R4") : QStringLiteral("R5"));
        QCOMPARE(RetryPolicy::actionName(decision.action),
            RetryPolicy::actionName(replayable ? RecoveryAction::ReconnectThenRetry : RecoveryAction::HealNoReplay));
        QCOMPARE(decision.outcomeUncertain, !replayable);
        QVERIFY(decision.reconnect);
        if (!why.isEmpty())
            QVERIFY2(decision.reason.contains(why), qPrintable(decision.reason));
        QVERIFY2(decision.reason.endsWith(QLatin1Char('.')), qPrintable(decision.reason));
    }
    // A lost answer of a tool that is not read-only in both listings matters: R6 and R7 say uncertain.
    const Decision timeout
        = RetryPolicy::decide(failureOf(FailureKind::Timeout, DispatchVerdict::Unknown), tools, 1, settings);
    QCOMPARE(timeout.outcomeUncertain, !readOnly);
    const Decision retry
        = RetryPolicy::decide(failureOf(FailureKind::TransportLost, DispatchVerdict::Unknown), tools, 2, settings);
    QCOMPARE(retry.rule, QStringLiteral("R7"));
    QCOMPARE(retry.outcomeUncertain, !readOnly);
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
    const Decision decision = RetryPolicy::decide(
        failureOf(kind, DispatchVerdict::Unknown), toolsFor(Shape::ReadOnlyFalse), attempt, PolicySettings {});
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
    QCOMPARE(RetryPolicy::actionName(RecoveryAction::RelistThenRetry), QStringLiteral("relist_then_retry"));
}

void TestRetryPolicy::modernRejections_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QJsonValue>("data");
    QTest::addColumn<int>("attempt");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("rule");
    const QJsonObject ours { { QStringLiteral("supported"), QJsonArray { QStringLiteral("2026-07-28") } } };
    const QJsonObject others { { QStringLiteral("supported"), QJsonArray { QStringLiteral("2027-01-01") } } };
    QTest::newRow("-32022 naming 2026-07-28: R10 retry")
        << -32022 << QJsonValue(ours) << 1 << QStringLiteral("retry_once") << QStringLiteral("R10");
    QTest::newRow("-32022 naming only others: R10 stop")
        << -32022 << QJsonValue(others) << 1 << QStringLiteral("stop") << QStringLiteral("R10");
    QTest::newRow("-32022 without data: R10 stop")
        << -32022 << QJsonValue() << 1 << QStringLiteral("stop") << QStringLiteral("R10");
    QTest::newRow("-32020: R11 re-list") << -32020 << QJsonValue() << 1 << QStringLiteral("relist_then_retry")
                                         << QStringLiteral("R11");
    QTest::newRow("-32601: R12 stop") << -32601 << QJsonValue() << 1 << QStringLiteral("stop") << QStringLiteral("R12");
    QTest::newRow("-32022 on the retry: R7")
        << -32022 << QJsonValue(ours) << 2 << QStringLiteral("stop") << QStringLiteral("R7");
}

void TestRetryPolicy::modernRejections()
{
    QFETCH(int, code);
    QFETCH(QJsonValue, data);
    QFETCH(int, attempt);
    QFETCH(QString, action);
    QFETCH(QString, rule);
    ClassifiedFailure rejected = failureOf(FailureKind::Rejected, DispatchVerdict::NotDispatched, 400);
    rejected.rpcCode = code;
    rejected.rpcData = data;
    // A write: the refusal came before anything ran, so even a write may go again, and never uncertain.
    const ToolListing write { true, false, QJsonObject {} };
    const Decision d = RetryPolicy::decide(rejected, RequestTools::toolCall(write, write), attempt, PolicySettings {});
    QCOMPARE(RetryPolicy::actionName(d.action), action);
    QCOMPARE(d.rule, rule);
    QVERIFY(!d.outcomeUncertain);
    QVERIFY2(d.reason.endsWith(QLatin1Char('.')), qPrintable(d.reason));
}

void TestRetryPolicy::eraMismatchReprobesOnlyInAuto_data()
{
    QTest::addColumn<bool>("eraDetectable");
    QTest::addColumn<int>("attempt");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("rule");
    QTest::newRow("era auto: R13 re-probe, then once more")
        << true << 1 << QStringLiteral("reprobe_then_retry") << QStringLiteral("R13");
    QTest::newRow("era set by hand: R13 stop") << false << 1 << QStringLiteral("stop") << QStringLiteral("R13");
    QTest::newRow("on the retry: R7") << true << 2 << QStringLiteral("stop") << QStringLiteral("R7");
}

void TestRetryPolicy::eraMismatchReprobesOnlyInAuto()
{
    QFETCH(bool, eraDetectable);
    QFETCH(int, attempt);
    QFETCH(QString, action);
    QFETCH(QString, rule);
    ClassifiedFailure mismatch = failureOf(FailureKind::EraMismatch, DispatchVerdict::NotDispatched, 400);
    mismatch.message = QStringLiteral("HTTP 400: Bad Request: Server not initialized");
    // A write: the refusal came before anything ran, so even a write may go once more, never uncertain.
    const ToolListing write { true, false, QJsonObject {} };
    PolicySettings settings;
    settings.eraDetectable = eraDetectable;
    const Decision d = RetryPolicy::decide(mismatch, RequestTools::toolCall(write, write), attempt, settings);
    QCOMPARE(RetryPolicy::actionName(d.action), action);
    QCOMPARE(d.rule, rule);
    QVERIFY(!d.outcomeUncertain);
    if (rule == QLatin1String("R13"))
        QVERIFY2(d.reason.contains(mismatch.message), qPrintable(d.reason));
}

void TestRetryPolicy::unreadableAnswerIsNotCalledAnError()
{
    // R8 for an answer that could not be read says so, instead of "answered with an error".
    ClassifiedFailure unreadable;
    unreadable.kind = FailureKind::ProtocolError;
    unreadable.verdict = DispatchVerdict::Unknown;
    unreadable.unreadableAnswer = true;
    unreadable.message = QStringLiteral("the answer is not valid UTF-8");
    const Decision d = RetryPolicy::decide(unreadable, RequestTools::notATool(), 1, PolicySettings {});
    QCOMPARE(d.rule, QStringLiteral("R8"));
    QCOMPARE(d.action, RecoveryAction::Stop);
    QVERIFY2(
        d.reason.contains(QStringLiteral("could not be read (the answer is not valid UTF-8)")), qPrintable(d.reason));
    QVERIFY(!d.reason.contains(QStringLiteral("answered with an error")));

    ClassifiedFailure rpcError = unreadable;
    rpcError.unreadableAnswer = false;
    const Decision e = RetryPolicy::decide(rpcError, RequestTools::notATool(), 1, PolicySettings {});
    QVERIFY2(e.reason.contains(QStringLiteral("answered with an error")), qPrintable(e.reason));
}

QTEST_GUILESS_MAIN(TestRetryPolicy)
#include "tst_retrypolicy.moc"
