#include "recovery/outcomemapping.h"
#include "recovery/routingguard.h"

#include <QTest>

using namespace mcpscope;

Q_DECLARE_METATYPE(mcpscope::FailureKind)
Q_DECLARE_METATYPE(mcpscope::CallOutcome)

/// The two pure functions ServerConnection applies when a call stops or a healed call is about to
/// be sent again: the outcome mapping of RECOVERY.md §3 and the routing guard of RECOVERY.md §4.
class TstRecoveryMapping : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void stoppedOutcome_data()
    {
        QTest::addColumn<FailureKind>("kind");
        QTest::addColumn<bool>("uncertain");
        QTest::addColumn<bool>("earlierMayHaveRun");
        QTest::addColumn<bool>("replayable");
        QTest::addColumn<CallOutcome>("expected");

        QTest::newRow("tool error") << FailureKind::ToolError << false << false << false << CallOutcome::ToolError;
        QTest::newRow("protocol error") << FailureKind::ProtocolError << false << false << false
                                        << CallOutcome::ProtocolError;
        QTest::newRow("not sent") << FailureKind::NotSent << false << false << false << CallOutcome::NotDispatched;
        QTest::newRow("auth required") << FailureKind::AuthRequired << false << false << false
                                       << CallOutcome::NeedsAuth;
        QTest::newRow("insufficient scope")
            << FailureKind::InsufficientScope << false << false << false << CallOutcome::NeedsAuth;
        QTest::newRow("timeout") << FailureKind::Timeout << false << false << false << CallOutcome::Timeout;
        QTest::newRow("transport lost: transport error")
            << FailureKind::TransportLost << false << false << false << CallOutcome::TransportError;
        QTest::newRow("R7 retried write failed ambiguously")
            << FailureKind::TransportLost << true << false << false << CallOutcome::OutcomeUncertain;
        QTest::newRow("uncertain decision wins over tool error")
            << FailureKind::ToolError << true << false << false << CallOutcome::OutcomeUncertain;
        QTest::newRow("not sent after an attempt that may have run: write")
            << FailureKind::NotSent << false << true << false << CallOutcome::OutcomeUncertain;
        QTest::newRow("not sent after an attempt that may have run: read")
            << FailureKind::NotSent << false << true << true << CallOutcome::TransportError;
        QTest::newRow("auth after an attempt that may have run: write")
            << FailureKind::AuthRequired << false << true << false << CallOutcome::OutcomeUncertain;
        QTest::newRow("auth after an attempt that may have run: read")
            << FailureKind::AuthRequired << false << true << true << CallOutcome::TransportError;
        QTest::newRow("timeout after an attempt that may have run stays a timeout")
            << FailureKind::Timeout << false << true << false << CallOutcome::Timeout;
    }

    void stoppedOutcome()
    {
        QFETCH(FailureKind, kind);
        QFETCH(bool, uncertain);
        QFETCH(bool, earlierMayHaveRun);
        QFETCH(bool, replayable);
        QFETCH(CallOutcome, expected);
        QCOMPARE(outcomeName(OutcomeMapping::stoppedOutcome(kind, uncertain, earlierMayHaveRun, replayable)),
            outcomeName(expected));
    }

    void earlierAttemptMayHaveRun_data()
    {
        QTest::addColumn<QList<int>>("verdicts"); // -1: no verdict, otherwise a DispatchVerdict
        QTest::addColumn<bool>("expected");

        const int unknown = int(DispatchVerdict::Unknown);
        const int executed = int(DispatchVerdict::Executed);
        const int notSent = int(DispatchVerdict::NotDispatched);
        QTest::newRow("one attempt that may have run: only the last") << QList<int> { unknown } << false;
        QTest::newRow("earlier unknown") << QList<int> { unknown, notSent } << true;
        QTest::newRow("earlier executed") << QList<int> { executed, notSent } << true;
        QTest::newRow("earlier not dispatched") << QList<int> { notSent, unknown } << false;
        QTest::newRow("earlier declined") << QList<int> { int(DispatchVerdict::Declined), notSent } << false;
        QTest::newRow("earlier without a verdict") << QList<int> { -1, notSent } << false;
        QTest::newRow("no attempts") << QList<int> {} << false;
    }

    void earlierAttemptMayHaveRun()
    {
        QFETCH(QList<int>, verdicts);
        QFETCH(bool, expected);
        QList<CallAttempt> attempts;
        for (const int v : std::as_const(verdicts)) {
            CallAttempt a;
            a.number = int(attempts.size()) + 1;
            if (v >= 0)
                a.verdict = DispatchVerdict(v);
            attempts.append(a);
        }
        QCOMPARE(OutcomeMapping::earlierAttemptMayHaveRun(attempts), expected);
    }

    void stillRouted_data()
    {
        QTest::addColumn<quint64>("callGeneration");
        QTest::addColumn<quint64>("currentGeneration");
        QTest::addColumn<bool>("isToolCall");
        QTest::addColumn<bool>("hasSession");
        QTest::addColumn<bool>("toolsListed");
        QTest::addColumn<bool>("toolListed");
        QTest::addColumn<bool>("expected");

        QTest::newRow("tool still listed") << quint64(1) << quint64(1) << true << true << true << true << true;
        QTest::newRow("configuration changed") << quint64(1) << quint64(2) << true << true << true << true << false;
        QTest::newRow("configuration changed, not a tool call")
            << quint64(1) << quint64(2) << false << false << false << false << false;
        QTest::newRow("tool vanished from a finished listing")
            << quint64(1) << quint64(1) << true << true << true << false << false;
        QTest::newRow("listing still in progress")
            << quint64(1) << quint64(1) << true << true << false << false << true;
        QTest::newRow("no session for a tool call")
            << quint64(1) << quint64(1) << true << false << false << false << false;
        QTest::newRow("not a tool call, no session")
            << quint64(1) << quint64(1) << false << false << false << false << true;
    }

    void stillRouted()
    {
        RoutingFacts facts;
        QFETCH(quint64, callGeneration);
        QFETCH(quint64, currentGeneration);
        QFETCH(bool, isToolCall);
        QFETCH(bool, hasSession);
        QFETCH(bool, toolsListed);
        QFETCH(bool, toolListed);
        QFETCH(bool, expected);
        facts.callGeneration = callGeneration;
        facts.currentGeneration = currentGeneration;
        facts.isToolCall = isToolCall;
        facts.hasSession = hasSession;
        facts.toolsListed = toolsListed;
        facts.toolListed = toolListed;
        QCOMPARE(mcpscope::stillRouted(facts), expected);
    }
};

QTEST_GUILESS_MAIN(TstRecoveryMapping)
#include "tst_recoverymapping.moc"
