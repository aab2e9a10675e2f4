#include "callrunner.h"

#include "calllog/redactor.h"
#include "fault/stdiofaultinjector.h"
#include "recovery/circuitbreaker.h"
#include "recovery/failureclassifier.h"
#include "recovery/outcomemapping.h"
#include "recovery/reconnector.h"
#include "recovery/retrypolicy.h"
#include "recovery/routingguard.h"
#include "serverconnection.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>

namespace mcpscope {

namespace {
/// The reverse-DNS _meta key of attempt identity (RECOVERY.md §7): a retry keeps the call id.
const QString AttemptMetaKey = QStringLiteral("io.github.mcpscope/attempt");
/// The same key as the start of the member written as bytes (attemptOptions), made once, not per call.
constexpr char AttemptMetaHead[] = R"("io.github.mcpscope/attempt":{"attempt":)";
constexpr qint64 ReconnectWaitMs = 15000; // R4/R5 (hermes)
constexpr qint64 AuthWaitMs = 10000; // R2 (bifrost MCPSharedAuthRetryReconnectBudget)

qint64 wallClock()
{
    return QDateTime::currentMSecsSinceEpoch();
}

/// RECOVERY.md §2: a tools/call is judged by its snapshot and by the newest listing of the session
/// the decision is about, never by the snapshot alone.
RequestTools requestTools(
    bool isToolCall, const ToolListing& snapshot, const QString& tool, const ClientSession* session)
{
    if (!isToolCall)
        return RequestTools::notATool();
    return RequestTools::toolCall(snapshot, session ? session->listing(tool) : ToolListing {});
}
} // namespace

CallRunner::CallRunner(ServerConnection* connection, const Redactor* redactor, StdioFaultInjector* faults,
    const QString& method, const QJsonObject& params, const CallOptions& options,
    std::function<void(const CallRecord&)> done)
    : QObject(connection)
    , m_connection(connection)
    , m_redactor(redactor)
    , m_faults(faults)
    , m_params(params)
    , m_originalParams(params)
    , m_onProgress(options.onProgress)
    , m_done(std::move(done))
    , m_requestId(std::make_shared<QJsonValue>(QJsonValue::Undefined))
    , m_publishes(options.partOfCall.isEmpty())
{
    const ServerConfig& config = connection->config();
    m_isToolCall = method == QLatin1String("tools/call");
    m_generation = connection->generation();
    m_timeoutMs = options.timeoutMs > 0 ? options.timeoutMs : config.requestTimeoutMs;
    m_clock.start();
    CallRecord& r = m_record;
    r.callId = CallRecord::newCallId();
    r.server = config.name;
    r.transport = transportKindName(connection->activeTransport());
    r.method = method;
    r.startedAt = wallClock();
    r.policy = connection->recordPolicy();
    if (m_isToolCall) {
        if (const auto meta = params.constFind(QLatin1String("_meta")); meta != params.constEnd())
            m_paramsCarryAttempt = meta->toObject().contains(AttemptMetaKey);
        r.tool = params.value(QLatin1String("name")).toString();
        r.arguments = params.value(QLatin1String("arguments")).toObject();
        ClientSession* session = connection->session();
        m_snapshot = session ? session->listing(r.tool) : ToolListing {};
        r.toolListed = m_snapshot.listed;
        if (m_snapshot.listed)
            r.annotations = m_snapshot.annotations;
    } else {
        r.arguments = params;
    }
}

void CallRunner::start()
{
    const Frame frame;
    publish();
    CircuitBreaker* breaker = m_connection->breaker();
    if (!breaker->allowRequest()) {
        const QString message = breaker->openMessage(m_connection->name());
        const Decision d = RetryPolicy::breakerOpen(message);
        m_record.decisions.append({ 0, d.rule, RetryPolicy::actionName(d.action), d.reason });
        m_record.rule = d.rule;
        m_record.error = { { QStringLiteral("message"), message },
            { QStringLiteral("dispatch"), QStringLiteral("not_dispatched") } };
        finish(CallOutcome::BreakerOpen);
        return;
    }
    if (m_connection->state() == ServerConnection::State::NeedsAuth && m_connection->auth()) {
        waitForAuthorization();
        return;
    }
    ClientSession* session = m_connection->session();
    if (!session || session->state() == ClientSession::State::Closed)
        m_connection->connectToServer();
    startAttempt();
}

void CallRunner::startAttempt()
{
    if (m_finished)
        return;
    CallRecord& r = m_record;
    CallAttempt attempt;
    attempt.number = int(r.attempts.size()) + 1;
    attempt.sessionId = m_connection->sessionId();
    attempt.sentAt = wallClock();
    r.attempts.append(attempt);
    publish();

    const RequestOptions ro = attemptOptions();

    if (m_connection->activeTransport() == TransportKind::Stdio) {
        if (const std::optional<int> delay = m_faults->takeDelay()) {
            QTimer::singleShot(*delay, this, [this, ro] { send(ro); });
            return;
        }
    }
    send(ro);
}

void CallRunner::send(const RequestOptions& ro)
{
    if (m_finished)
        return;
    const Frame frame; // also run by a delay fault's timer
    ClientSession* session = m_connection->session();
    if (!session) {
        Reply reply;
        reply.status = Reply::Status::Failed;
        reply.failure.event = TransportEvent::NotSent;
        reply.failure.message = m_connection->lastError();
        onAttemptReply(reply);
        return;
    }
    // The session the request really goes out on (a delay fault may have let a reconnect happen).
    if (!m_record.attempts.isEmpty())
        m_record.attempts.last().sessionId = session->sessionId();
    if (ServerAuth* auth = m_connection->auth())
        m_authGeneration = auth->tokenGeneration();
    const auto request = [this, session, &ro] {
        *m_requestId = QJsonValue(QJsonValue::Undefined);
        m_session = session;
        const QJsonValue id = session->request(
            m_record.method, m_params, ro,
            [this](const Reply& reply) {
                const Frame frame;
                onAttemptReply(reply);
            },
            this);
        *m_requestId = id;
        if (!m_record.attempts.isEmpty() && m_record.attempts.last().requestId.isEmpty())
            m_record.attempts.last().requestId = idKey(id).display();
    };
    if (m_connection->activeTransport() == TransportKind::Stdio)
        m_faults->sendWithNextFault(session->transport(), session->isReady(), m_requestId, request);
    else
        request();
}

RequestOptions CallRunner::attemptOptions() const
{
    RequestOptions ro;
    ro.timeoutMs = std::max<qint64>(1, m_timeoutMs - m_clock.elapsed());
    ro.onProgress = m_onProgress;
    if (!m_isToolCall)
        return ro;
    const int attempt = int(m_record.attempts.size());
    if (m_paramsCarryAttempt) {
        // The caller's own _meta names the key: ours replaces it (ClientSession merges meta over it).
        ro.meta.insert(AttemptMetaKey,
            QJsonObject { { QStringLiteral("callId"), m_record.callId }, { QStringLiteral("attempt"), attempt } });
        return ro;
    }
    // Written as bytes: the two QJsonObjects this took cost Qt 6.4 some 10,000 instructions a call.
    // The call id is a UUID (hex digits and dashes): nothing to escape.
    ro.rawMeta.reserve(96);
    ro.rawMeta.append(AttemptMetaHead, qsizetype(sizeof AttemptMetaHead - 1));
    ro.rawMeta.append(QByteArray::number(attempt)).append(R"(,"callId":")");
    ro.rawMeta.append(m_record.callId.toLatin1()).append(R"("})");
    return ro;
}

qint64 CallRunner::remainingMs() const
{
    return std::max<qint64>(0, m_timeoutMs - m_clock.elapsed());
}

qint64 CallRunner::healWaitMs() const
{
    return std::min(ReconnectWaitMs, std::max<qint64>(remainingMs(), 1000));
}

qint64 CallRunner::authWaitMs() const
{
    return std::min(AuthWaitMs, std::max<qint64>(remainingMs(), 1));
}

void CallRunner::onAttemptReply(const Reply& reply)
{
    if (m_finished)
        return;
    CallRecord& r = m_record;
    CallAttempt& attempt = r.attempts.last();
    attempt.endedAt = wallClock();
    if (!reply.exchange.isEmpty()) {
        attempt.exchange = reply.exchange;
        m_redactor->redactExchange(attempt.exchange);
    }
    attempt.written = reply.written;
    attempt.httpStatus = reply.failure.httpStatus;
    // A stdio child that died with the request in flight: the record names how it ended.
    if (reply.status == Reply::Status::Failed && reply.failure.crashed)
        attempt.signal = reply.failure.exitCode;
    else if (reply.status == Reply::Status::Failed && reply.failure.exitCode >= 0)
        attempt.exitCode = reply.failure.exitCode;
    attempt.takeExchangeTiming();
    if (attempt.firstByteAt == 0 && (reply.status == Reply::Status::Ok || reply.status == Reply::Status::RpcError))
        attempt.firstByteAt = attempt.endedAt;
    CircuitBreaker* breaker = m_connection->breaker();
    // The request a flow for this call's 401/403 ended with: the Auth view's last step.
    if (m_waitedForAuth) {
        m_waitedForAuth = false;
        if (ServerAuth* auth = m_connection->auth())
            auth->noteRetried(r.tool.isEmpty() ? r.method : tr("tools/call %1").arg(r.tool),
                reply.status == Reply::Status::Ok || reply.status == Reply::Status::RpcError, reply.describe());
    }
    if (reply.status == Reply::Status::Cancelled) {
        attempt.error = reply.describe();
        breaker->releaseProbe();
        finish(CallOutcome::Cancelled);
        return;
    }
    if (takeRound(reply))
        return;
    const ClientSession* attemptSession = m_session ? m_session.data() : m_connection->session();
    const std::optional<ClassifiedFailure> failure
        = FailureClassifier::classify(reply, m_isToolCall, attemptSession && attemptSession->isModern());
    if (!failure) {
        r.result = reply.result;
        breaker->recordSuccess();
        finish(CallOutcome::Success);
        return;
    }
    attempt.failureKind = failure->kind;
    attempt.verdict = failure->verdict;
    ClientSession* current = m_connection->session();
    // The server said it no longer knows this session: a DELETE for it on retire would only
    // compete with the reconnect for the server's time.
    if (failure->kind == FailureKind::SessionExpired && current && current->sessionId() == attempt.sessionId)
        current->transport()->forgetSession();
    attempt.error
        = reply.status == Reply::Status::Ok ? tr("the tool reported an error (isError: true)") : reply.describe();
    if (failure->kind == FailureKind::ToolError)
        r.result = reply.result;
    if (reply.status == Reply::Status::RpcError) {
        r.error = reply.error.toJson();
        if (attemptSession && attemptSession->isModern())
            explainModernError(reply);
    } else if (reply.status != Reply::Status::Ok)
        r.error = { { QStringLiteral("message"), reply.describe() },
            { QStringLiteral("failureKind"), failureKindName(failure->kind) } };

    const PolicySettings settings = m_connection->policy();
    // The newest listing of the session the attempt went out on (a list_changed re-list during the
    // call counts); the snapshot alone would let a tool that turned into a writer be replayed.
    const RequestTools tools = requestTools(m_isToolCall, m_snapshot, r.tool, m_session ? m_session.data() : current);
    const Decision d = RetryPolicy::decide(*failure, tools, attempt.number, settings);
    r.decisions.append({ attempt.number, d.rule, RetryPolicy::actionName(d.action), d.reason });
    r.rule = d.rule;
    publish();

    const bool strikeIsToolError = failure->kind == FailureKind::ToolError;
    auto retryIfStillRouted = [this](bool healed, CallOutcome otherwise) {
        if (m_finished)
            return;
        // Routing guard (RECOVERY.md §4): the configuration changed or the tool vanished → no retry.
        // A session still listing its tools has not lost the tool; only a finished list can say so.
        ClientSession* session = m_connection->session();
        RoutingFacts facts;
        facts.callGeneration = m_generation;
        facts.currentGeneration = m_connection->generation();
        facts.isToolCall = m_isToolCall;
        facts.hasSession = session;
        facts.toolsListed = session && session->toolsListed();
        facts.toolListed = session && session->tool(m_record.tool);
        const bool routed = stillRouted(facts);
        if (healed && routed) {
            startAttempt();
            return;
        }
        if (healed && !routed)
            m_record.decisions.append({ int(m_record.attempts.size()), m_record.rule, QStringLiteral("stop"),
                tr("The server's configuration or tool list changed during the reconnect, so the call was not "
                   "retried.") });
        m_connection->breaker()->recordFailure(false);
        finish(otherwise);
    };

    switch (d.action) {
    case RecoveryAction::RetryOnce:
        if (current && current->isReady() && !m_connection->reconnector()->isRunning()) {
            startAttempt();
        } else {
            healThen(healWaitMs(),
                [retryIfStillRouted](bool healed) { retryIfStillRouted(healed, CallOutcome::NotDispatched); });
        }
        return;
    case RecoveryAction::RelistThenRetry:
        // R11: the refusal is about header annotations, so the newest tools/list decides what is sent; the
        // routing guard still stops the retry when the tool is gone from it.
        if (current && current->isReady()) {
            current->listTools(
                [this, retryIfStillRouted](const Reply&) {
                    const Frame frame;
                    retryIfStillRouted(true, CallOutcome::ProtocolError);
                },
                this);
        } else {
            retryIfStillRouted(false, CallOutcome::ProtocolError);
        }
        return;
    case RecoveryAction::ReprobeThenRetry:
        // R13: a fresh connection probes the era again (server/discover first); the retry goes out in the era
        // it finds, and the routing guard still stops it when the tool is gone from the new listing.
        m_connection->forgetEra();
        healThen(healWaitMs(),
            [retryIfStillRouted](bool healed) { retryIfStillRouted(healed, CallOutcome::ProtocolError); });
        return;
    case RecoveryAction::ReconnectThenRetry:
        healThen(ReconnectWaitMs,
            [this, failure = *failure, number = attempt.number, settings, retryIfStillRouted](bool healed) {
                // RECOVERY.md §2: the reconnect's own tools/list is now the newest listing. If it no longer
                // says readOnlyHint true (or lists the name twice), the retry would be a second send of a
                // write that may have run: decide again before sending. A tool it no longer lists at all is
                // the routing guard's case.
                ClientSession* session = m_connection->session();
                if (healed && !m_finished && m_isToolCall && m_generation == m_connection->generation() && session
                    && session->listing(m_record.tool).listed) {
                    const Decision again = RetryPolicy::decide(
                        failure, requestTools(true, m_snapshot, m_record.tool, session), number, settings);
                    if (again.action == RecoveryAction::HealNoReplay) {
                        m_record.decisions.append({ number, again.rule, RetryPolicy::actionName(again.action),
                            tr("Decided again with the new session's tools/list before the retry: %1")
                                .arg(again.reason) });
                        m_record.rule = again.rule;
                        m_record.healed = true;
                        m_connection->breaker()->recordUncertainAfterHeal();
                        finish(CallOutcome::OutcomeUncertain);
                        return;
                    }
                }
                retryIfStillRouted(healed, CallOutcome::TransportError);
            });
        return;
    case RecoveryAction::AuthThenRetry:
    case RecoveryAction::StepUpThenRetry: {
        ServerAuth* auth = m_connection->auth();
        const qint64 waitMs = authWaitMs();
        if (!auth) {
            // No credentials to fetch (auth not enabled): a fresh session is all there is to offer.
            healThen(waitMs, [retryIfStillRouted](bool healed) { retryIfStillRouted(healed, CallOutcome::NeedsAuth); });
            return;
        }
        // R2/R3: one deduplicated flow per server; this call waits at most min(10 s, its deadline), and a
        // wait that runs out leaves the flow running (RECOVERY.md §4). Credentials are read per request,
        // so the retry needs no new session unless the old one is gone.
        const qint64 started = wallClock();
        auth->ensure(
            reply.failure, waitMs, this,
            [this, started, retryIfStillRouted](bool ok, const QString& error) {
                const Frame frame;
                if (m_finished)
                    return;
                if (!authorizationEnded(
                        ok, error, started, m_record.attempts.last().failureKind.value_or(FailureKind::AuthRequired)))
                    return;
                m_waitedForAuth = true;
                ClientSession* session = m_connection->session();
                if (session && session->isReady()) {
                    retryIfStillRouted(true, CallOutcome::NeedsAuth);
                    return;
                }
                healThen(healWaitMs(),
                    [retryIfStillRouted](bool healed) { retryIfStillRouted(healed, CallOutcome::NeedsAuth); });
            },
            m_authGeneration);
        return;
    }
    case RecoveryAction::HealNoReplay:
        healThen(ReconnectWaitMs, [this](bool healed) {
            m_record.healed = healed;
            // After a successful heal an uncertain outcome is not a strike (RECOVERY.md §6).
            if (healed)
                m_connection->breaker()->recordUncertainAfterHeal();
            else
                m_connection->breaker()->recordFailure(false);
            finish(CallOutcome::OutcomeUncertain);
        });
        return;
    case RecoveryAction::CancelNoRetry:
        breaker->recordFailure(false);
        finish(d.outcomeUncertain ? CallOutcome::OutcomeUncertain : CallOutcome::Timeout);
        return;
    case RecoveryAction::Stop:
    case RecoveryAction::FailFast: {
        breaker->recordFailure(strikeIsToolError);
        // R7 (d.outcomeUncertain): a retried write that then failed ambiguously may have run. An earlier
        // attempt may have run even when the last one never went out: never report it as not dispatched.
        const CallOutcome outcome = OutcomeMapping::stoppedOutcome(failure->kind, d.outcomeUncertain,
            OutcomeMapping::earlierAttemptMayHaveRun(r.attempts), RetryPolicy::isReplayable(tools, PolicySettings {}));
        if (d.reconnect) {
            // No resend, but the session is still healed for the calls that come next.
            healThen(ReconnectWaitMs, [this, outcome](bool healed) {
                m_record.healed = healed;
                finish(outcome);
            });
            return;
        }
        finish(outcome);
        return;
    }
    }
}

void CallRunner::healThen(qint64 waitMs, std::function<void(bool healed)> next)
{
    const QString oldSession
        = m_record.attempts.isEmpty() ? m_connection->sessionId() : m_record.attempts.last().sessionId;
    const qint64 started = wallClock();
    m_connection->reconnector()->join(
        oldSession, waitMs, this, [this, oldSession, started, next](const Reconnector::Result& result) {
            const Frame frame;
            if (m_finished)
                return;
            CallReconnect reconnect;
            reconnect.oldSessionId = oldSession;
            reconnect.newSessionId = result.newSessionId;
            reconnect.startedAt = started;
            reconnect.durationMs = wallClock() - started;
            reconnect.ok = result.ok;
            reconnect.error = result.error;
            m_record.reconnects.append(reconnect);
            publish();
            next(result.ok);
        });
}

void CallRunner::finish(CallOutcome outcome)
{
    if (m_finished)
        return;
    m_finished = true;
    CallRecord& r = m_record;
    r.outcome = outcome;
    r.endedAt = wallClock();
    if (outcome == CallOutcome::OutcomeUncertain) {
        // RECOVERY.md §5: a structured result, not a generic error.
        const QString what = r.tool.isEmpty() ? r.method : tr("tool '%1'").arg(r.tool);
        r.result = uncertainResult(
            tr("The call to %1 on server '%2' may or may not have taken effect. It was not sent again, to avoid "
               "a duplicate. Check the server's state with a read before calling it again.")
                .arg(what, r.server));
    }
    m_connection->forgetCall(r.callId);
    publish();
    m_connection->retireRunner(this);
    // Copies: done may delete the connection, and this runner with it.
    const auto done = std::move(m_done);
    const CallRecord record = r;
    if (done)
        done(record);
}

QJsonObject CallRunner::uncertainResult(const QString& message) const
{
    const CallRecord& r = m_record;
    return QJsonObject {
        { QStringLiteral("outcome"), QStringLiteral("uncertain") },
        { QStringLiteral("server"), r.server },
        { QStringLiteral("tool"), r.tool },
        { QStringLiteral("rule"), r.rule },
        { QStringLiteral("healed"), r.healed },
        { QStringLiteral("message"), message },
    };
}

void CallRunner::interrupt(bool tellCaller)
{
    const Frame frame;
    if (m_finished)
        return;
    if (!tellCaller)
        m_done = nullptr;
    CallRecord& r = m_record;
    const QString what = r.tool.isEmpty() ? r.method : tr("tool '%1'").arg(r.tool);
    if (!r.attempts.isEmpty() && r.attempts.last().endedAt == 0) {
        // Still on the wire. A request that never reached the session (a delay fault held it) cannot have run.
        CallAttempt& attempt = r.attempts.last();
        attempt.endedAt = wallClock();
        attempt.verdict = m_requestId->isUndefined() ? DispatchVerdict::NotDispatched : DispatchVerdict::Unknown;
        attempt.error = tr("McpScope stopped before server '%1' answered.").arg(r.server);
    }
    const bool mayHaveRun = std::any_of(r.attempts.cbegin(), r.attempts.cend(),
        [](const CallAttempt& attempt) { return OutcomeMapping::mayHaveRun(attempt.verdict); });
    r.error = { { QStringLiteral("message"),
                    tr("McpScope stopped while the call to %1 on server '%2' was in flight.").arg(what, r.server) },
        { QStringLiteral("dispatch"),
            dispatchVerdictName(mayHaveRun ? DispatchVerdict::Unknown : DispatchVerdict::NotDispatched) } };
    // The captured annotations decide, as they would have for a retry: a write is not replayable.
    const RequestTools tools
        = requestTools(m_isToolCall, m_snapshot, r.tool, m_session ? m_session.data() : m_connection->session());
    if (mayHaveRun && !RetryPolicy::isReplayable(tools, PolicySettings {}))
        r.result = uncertainResult(
            tr("McpScope stopped while the call to %1 on server '%2' was in flight. It may or may not have taken "
               "effect, and it was not sent again. Check the server's state with a read before calling it again.")
                .arg(what, r.server));
    m_connection->breaker()->releaseProbe();
    finish(CallOutcome::Interrupted);
}

void CallRunner::publish()
{
    if (m_publishes)
        Q_EMIT m_connection->callUpdated(m_record);
}

void CallRunner::noteEvent(qint64 at, const QString& kind, const QString& text)
{
    const Frame frame;
    m_record.events.append({ at, kind, text });
    publish();
}

void CallRunner::cancel()
{
    const Frame frame;
    ClientSession* session = m_connection->session();
    if (session && !m_requestId->isUndefined() && session->cancel(*m_requestId, tr("cancelled by the user")))
        return;
    // Between attempts (waiting for a reconnect): nothing is on the wire to cancel.
    if (!m_record.attempts.isEmpty())
        m_record.attempts.last().error = tr("cancelled by the user");
    m_connection->breaker()->releaseProbe();
    finish(CallOutcome::Cancelled);
}

} // namespace mcpscope
