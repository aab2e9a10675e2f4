#include "serverconnection.h"

#include "fault/faultproxy.h"
#include "recovery/circuitbreaker.h"
#include "recovery/failureclassifier.h"
#include "recovery/outcomemapping.h"
#include "recovery/reconnector.h"
#include "recovery/retrypolicy.h"
#include "recovery/routingguard.h"
#include "transport/stdiotransport.h"
#include "transport/streamablehttptransport.h"
#include "transportfactory.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTcpSocket>

#include <csignal>
#include <QJsonArray>
#include <QMetaMethod>
#include <QTimer>
#include <QUuid>
#include <unistd.h>

namespace mcpscope {

namespace {
/// The reverse-DNS _meta key of attempt identity (RECOVERY.md §7): a retry keeps the call id.
const QString AttemptMetaKey = QStringLiteral("io.github.mcpscope/attempt");
constexpr qint64 ReconnectWaitMs = 15000; // R4/R5 (hermes)
constexpr qint64 AuthWaitMs = 10000; // R2 (bifrost MCPSharedAuthRetryReconnectBudget)
constexpr qsizetype MaxUnclaimedExchanges = 256;

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

struct ServerConnection::Call
{
    CallRecord record;
    QJsonObject params;
    CallOptions options;
    std::function<void(const CallRecord&)> done;
    bool isToolCall = false;
    ToolListing snapshot; ///< the tool as the session listed it when the call started
    quint64 generation = 0;
    qint64 timeoutMs = 0;
    QElapsedTimer clock;
    QJsonValue requestId;
    quint64 sessionSerial = 0; ///< the session the current attempt went out on
    QPointer<ClientSession> session; ///< the same session: its newest tools/list is read at the decision
    bool finished = false;
};

ServerConnection::ServerConnection(ServerConfig config, QObject* parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_breaker(new CircuitBreaker(this))
    , m_reconnector(new Reconnector(this))
{
    applyBreakerSettings();
    m_redactor.addServer(m_config);
    m_reconnector->setConnectFunction(
        [this](std::function<void(bool, const QString&, const QString&)> done) { reconnectSession(std::move(done)); });
    connect(m_reconnector, &Reconnector::finished, this, [this](const Reconnector::Result& result) {
        noteEvent(QStringLiteral("reconnect"),
            result.ok
                ? tr("reconnected: session %1 → %2 in %3 ms")
                      .arg(result.oldSessionId.isEmpty() ? tr("(none)") : result.oldSessionId, result.newSessionId)
                      .arg(result.durationMs)
                : tr("reconnect failed: %1").arg(result.error));
        if (result.ok) {
            // A healed session is independent evidence that the server is alive (RECOVERY.md §6).
            m_breaker->recordReconnectSuccess();
            setState(State::Ready);
        }
    });
    connect(m_reconnector, &Reconnector::parked, this, [this] { setState(State::Parked); });
}

void ServerConnection::applyBreakerSettings()
{
    CircuitBreaker::Settings settings;
    settings.threshold = m_config.breakerThreshold;
    settings.cooldownMs = qint64(m_config.breakerCooldownSec) * 1000;
    settings.countToolErrors = m_config.countToolErrors;
    m_breaker->setSettings(settings);
}

ServerConnection::~ServerConnection()
{
    delete m_session;
    stopLauncher();
}

bool ServerConnection::launcherRunning() const
{
    return m_launcher && m_launcher->state() != QProcess::NotRunning;
}

void ServerConnection::startLauncher()
{
    const QStringList words = QProcess::splitCommand(m_config.launchCommand);
    if (words.isEmpty()) {
        m_lastError = tr("Server '%1' has an empty launch command.").arg(m_config.name);
        setState(State::Failed);
        Q_EMIT failed(m_lastError);
        return;
    }
    auto* process = new QProcess(this);
    m_launcher = process;
    process->setProgram(words.first());
    process->setArguments(words.mid(1));
    process->setProcessChannelMode(QProcess::MergedChannels);
    // Its own process group, so stopping it reaches what it started.
    process->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(process, &QProcess::readyReadStandardOutput, this, [this, process] {
        const QList<QByteArray> lines = process->readAllStandardOutput().split('\n');
        for (const QByteArray& line : lines)
            if (!line.trimmed().isEmpty())
                Q_EMIT serverLog(QStringLiteral("[launch] ") + QString::fromUtf8(line));
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        m_lastError = tr("Server '%1': the launch command '%2' could not start (%3).")
                          .arg(m_config.name, m_config.launchCommand, process->errorString());
        setState(State::Failed);
        Q_EMIT failed(m_lastError);
    });
    connect(process, &QProcess::finished, this, [this](int code) {
        if (m_state == State::Connecting) {
            m_lastError = tr("Server '%1': the launch command exited with code %2 before the server listened.")
                              .arg(m_config.name)
                              .arg(code);
            setState(State::Failed);
            Q_EMIT failed(m_lastError);
        }
    });
    setState(State::Connecting);
    Q_EMIT serverLog(tr("[launch] starting %1").arg(m_config.launchCommand));
    process->start();
    waitForLauncherPort(200);
}

void ServerConnection::waitForLauncherPort(int attemptsLeft)
{
    if (!launcherRunning())
        return;
    if (attemptsLeft <= 0) {
        m_lastError = tr("Server '%1': the launch command did not start listening on %2:%3 within 30 s.")
                          .arg(m_config.name, m_config.url.host())
                          .arg(m_config.url.port(80));
        setState(State::Failed);
        Q_EMIT failed(m_lastError);
        return;
    }
    auto* probe = new QTcpSocket(this);
    connect(probe, &QTcpSocket::connected, this, [this, probe] {
        probe->deleteLater();
        connectToServer();
    });
    connect(probe, &QTcpSocket::errorOccurred, this, [this, probe, attemptsLeft] {
        probe->deleteLater();
        QTimer::singleShot(150, this, [this, attemptsLeft] { waitForLauncherPort(attemptsLeft - 1); });
    });
    probe->connectToHost(
        m_config.url.host(), quint16(m_config.url.port(m_config.url.scheme() == QLatin1String("https") ? 443 : 80)));
}

void ServerConnection::stopLauncher()
{
    if (!m_launcher || m_launcher->state() == QProcess::NotRunning)
        return;
    const qint64 pid = m_launcher->processId();
    m_launcher->disconnect(this);
    ::kill(-pid_t(pid), SIGTERM);
    if (!m_launcher->waitForFinished(1500))
        ::kill(-pid_t(pid), SIGKILL);
    m_launcher->waitForFinished(1000);
    ::kill(-pid_t(pid), SIGKILL);
}

void ServerConnection::connectNotify(const QMetaMethod& signal)
{
    static const QMetaMethod trafficSignal = QMetaMethod::fromSignal(&ServerConnection::traffic);
    if (signal == trafficSignal && !m_trafficWatched) {
        m_trafficWatched = true;
        if (m_session)
            connect(m_session, &ClientSession::traffic, this, &ServerConnection::traffic);
    }
    QObject::connectNotify(signal);
}

void ServerConnection::setConfig(const ServerConfig& config)
{
    m_config = config;
    ++m_generation;
    applyBreakerSettings();
    // The old credentials stay secret too: exchanges of requests still in flight may carry them.
    m_redactor.addServer(m_config);
}

void ServerConnection::setResponder(ClientResponder* responder)
{
    m_responder = responder;
    if (m_session)
        m_session->setResponder(responder);
}

QString ServerConnection::stateName(State state)
{
    switch (state) {
    case State::Disconnected:
        return QStringLiteral("disconnected");
    case State::Connecting:
        return QStringLiteral("connecting");
    case State::Initializing:
        return QStringLiteral("initializing");
    case State::Ready:
        return QStringLiteral("ready");
    case State::Suspect:
        return QStringLiteral("suspect");
    case State::Reconnecting:
        return QStringLiteral("reconnecting");
    case State::Parked:
        return QStringLiteral("parked");
    case State::NeedsAuth:
        return QStringLiteral("needs_auth");
    case State::Failed:
        return QStringLiteral("failed");
    case State::Closed:
        return QStringLiteral("closed");
    }
    return {};
}

void ServerConnection::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ServerConnection::connectToServer()
{
    if (m_session
        && (m_session->state() == ClientSession::State::Ready || m_session->state() == ClientSession::State::Connecting
            || m_session->state() == ClientSession::State::Initializing))
        return;
    if (m_config.isHttp() && !m_config.launchCommand.isEmpty() && !launcherRunning()) {
        startLauncher();
        return;
    }
    if (m_config.isHttp() && m_config.viaFaultProxy && !m_proxy) {
        m_proxy = new FaultProxy(m_config.url, this);
        QString error;
        if (!m_proxy->listen(0, &error)) {
            m_lastError = tr("Server '%1': the fault proxy could not listen: %2").arg(m_config.name, error);
            setState(State::Failed);
            Q_EMIT failed(m_lastError);
            return;
        }
        m_endpointOverride = m_proxy->url();
        connect(m_proxy, &FaultProxy::faultFired, this,
            [this](const FaultProxy::Fault& fault, const QString& method, const QJsonValue& id) {
                noteEvent(QStringLiteral("fault"),
                    tr("%1 fired on %2 (request %3)")
                        .arg(FaultProxy::kindName(fault.kind), method,
                            id.isString() ? id.toString() : QString::number(id.toInteger())));
            });
    }
    startSession(m_config.transport == TransportKind::AutoHttp ? TransportKind::StreamableHttp : m_config.transport);
}

bool ServerConnection::fallBackToLegacySse()
{
    // MCP-NOTES: an initialize POST answered 400, 404 or 405 means the server may speak 2024-11-05 HTTP+SSE.
    if (m_config.transport != TransportKind::AutoHttp || m_activeTransport != TransportKind::StreamableHttp
        || !m_session || !m_session->details().protocolVersion.isEmpty())
        return false;
    const int status = m_session->initializeFailure().httpStatus;
    if (status != 400 && status != 404 && status != 405)
        return false;
    Q_EMIT serverLog(tr("Server '%1' answered the Streamable HTTP initialize with %2; trying the legacy HTTP+SSE "
                        "transport.")
                         .arg(m_config.name)
                         .arg(status));
    startSession(TransportKind::LegacySse);
    return true;
}

void ServerConnection::startSession(TransportKind kind)
{
    if (m_session) {
        ClientSession* old = m_session;
        // Detached first: callers woken by abandonAll() below must not pick the old session again.
        m_session = nullptr;
        old->disconnect(this);
        retire(old);
    }
    m_activeTransport = kind;
    ServerConfig effective = m_config;
    effective.transport = kind;
    if (m_endpointOverride.isValid() && effective.isHttp())
        effective.url = m_endpointOverride;
    QString error;
    std::unique_ptr<Transport> transport = createTransport(effective, &error);
    if (!transport) {
        m_lastError = error;
        setState(State::Failed);
        Q_EMIT failed(error);
        return;
    }
    ClientSession::Options options;
    options.serverName = m_config.name;
    options.requestTimeoutMs = m_config.requestTimeoutMs;
    options.keepaliveIntervalSec = m_config.keepaliveIntervalSec;
    auto* session = new ClientSession(std::move(transport), options, this);
    session->setResponder(m_responder);
    m_session = session;
    const quint64 serial = ++m_sessionSerial;
    // Stays connected while a retired session finishes its requests: their attempts want it too.
    connect(session->transport(), &Transport::exchangeRecorded, this,
        [this, serial](const QJsonValue& id, const WireExchange& exchange) {
            if (m_wire.size() >= MaxUnclaimedExchanges)
                m_wire.clear();
            m_wire.insert({ serial, idKey(id) }, exchange);
        });
    connect(session, &ClientSession::stateChanged, this, &ServerConnection::onSessionState);
    connect(session, &ClientSession::ready, this, [this, session] {
        // The tool list is the annotation snapshot every call decision reads.
        session->listTools([this](const Reply&) { Q_EMIT ready(); }, this);
    });
    connect(session, &ClientSession::failed, this, [this](const QString& message) {
        if (fallBackToLegacySse())
            return;
        const bool wasUp = m_state == State::Ready || m_state == State::Suspect;
        const QString dropped = m_session ? m_session->sessionId() : QString();
        m_lastError = message;
        setState(State::Failed);
        Q_EMIT failed(message);
        // A drop of an established session heals in the background, with backoff (RECOVERY.md §4).
        if (wasUp && !m_reconnector->isRunning())
            m_reconnector->startBackground(dropped);
    });
    connect(session, &ClientSession::closed, this, &ServerConnection::closed);
    connect(session, &ClientSession::toolsChanged, this, &ServerConnection::toolsChanged);
    connect(session, &ClientSession::serverLog, this, &ServerConnection::serverLog);
    connect(session, &ClientSession::logMessage, this, &ServerConnection::logMessage);
    // Wire copies only when someone watches (connectNotify): the CLI's calls need none.
    if (m_trafficWatched)
        connect(session, &ClientSession::traffic, this, &ServerConnection::traffic);
    connect(session, &ClientSession::keepaliveFailed, this, [this] {
        setState(State::Suspect);
        if (!m_reconnector->isRunning())
            m_reconnector->join(sessionId(), ReconnectWaitMs, this, {});
    });
    Q_EMIT sessionCreated(session);
    session->start();
}

void ServerConnection::retire(ClientSession* old)
{
    connect(old, &ClientSession::closed, old, &QObject::deleteLater);
    if (old->state() == ClientSession::State::Closed) {
        old->deleteLater();
        return;
    }
    // Requests still in flight on the old session finish there, each with its own evidence (an
    // HTTP 404 of their own, or their answer): abandoning them would blur what the server ran.
    if (old->pendingRequests() == 0) {
        old->close();
        return;
    }
    connect(old, &ClientSession::idle, old, &ClientSession::close);
    // A stuck request must not keep the old session forever.
    QTimer::singleShot(m_config.requestTimeoutMs, old, [this, old] {
        TransportFailure failure;
        failure.event = TransportEvent::Replaced;
        failure.message = tr("The session with '%1' was replaced before the answer arrived.").arg(m_config.name);
        old->abandonAll(failure);
        old->close();
    });
}

void ServerConnection::disconnectFromServer()
{
    m_reconnector->stopBackground();
    if (m_session)
        m_session->close();
    else
        setState(State::Closed);
}

void ServerConnection::onSessionState(ClientSession::State state)
{
    switch (state) {
    case ClientSession::State::Disconnected:
        setState(State::Disconnected);
        break;
    case ClientSession::State::Connecting:
        if (m_state != State::Reconnecting)
            setState(State::Connecting);
        break;
    case ClientSession::State::Initializing:
        if (m_state != State::Reconnecting)
            setState(State::Initializing);
        break;
    case ClientSession::State::Ready:
        setState(State::Ready);
        break;
    case ClientSession::State::Closing:
    case ClientSession::State::Closed:
        setState(State::Closed);
        break;
    case ClientSession::State::Failed:
        // Decided in the failed() handler: fallback, a reconnect in progress, or failed.
        break;
    }
}

void ServerConnection::reconnectSession(std::function<void(bool, const QString&, const QString&)> done)
{
    setState(State::Reconnecting);
    startSession(m_activeTransport);
    ClientSession* session = m_session;
    if (!session) {
        done(false, QString(), m_lastError);
        return;
    }
    auto fired = std::make_shared<bool>(false);
    connect(session, &ClientSession::ready, this, [this, session, done, fired] {
        // "Ready" for recovery includes the new tool list, which the routing guard checks.
        session->listTools(
            [session, done, fired](const Reply& reply) {
                if (std::exchange(*fired, true))
                    return;
                // A session that died while listing is no heal.
                if (!session->isReady() || reply.status == Reply::Status::Failed
                    || reply.status == Reply::Status::Cancelled)
                    done(false, QString(), reply.describe());
                else
                    done(true, session->sessionId(), QString());
            },
            this);
    });
    connect(session, &ClientSession::failed, this, [done, fired](const QString& message) {
        if (!std::exchange(*fired, true))
            done(false, QString(), message);
    });
}

QString ServerConnection::callTool(const QString& tool, const QJsonObject& arguments, const CallOptions& options,
    std::function<void(const CallRecord&)> done)
{
    return call(QStringLiteral("tools/call"),
        { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), arguments } }, options, std::move(done));
}

QString ServerConnection::call(const QString& method, const QJsonObject& params, const CallOptions& options,
    std::function<void(const CallRecord&)> done)
{
    auto c = std::make_shared<Call>();
    c->params = params;
    c->options = options;
    c->done = std::move(done);
    c->isToolCall = method == QLatin1String("tools/call");
    c->generation = m_generation;
    c->timeoutMs = options.timeoutMs > 0 ? options.timeoutMs : m_config.requestTimeoutMs;
    c->clock.start();
    CallRecord& r = c->record;
    r.callId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    r.server = m_config.name;
    r.transport = transportKindName(m_activeTransport);
    r.method = method;
    r.startedAt = wallClock();
    r.policy = { { QStringLiteral("idempotentReplay"), m_config.idempotentReplay },
        { QStringLiteral("breakerThreshold"), m_config.breakerThreshold },
        { QStringLiteral("breakerCooldownSec"), m_config.breakerCooldownSec },
        { QStringLiteral("countToolErrors"), m_config.countToolErrors } };
    if (c->isToolCall) {
        r.tool = params.value(QLatin1String("name")).toString();
        r.arguments = params.value(QLatin1String("arguments")).toObject();
        c->snapshot = m_session ? m_session->listing(r.tool) : ToolListing {};
        r.toolListed = c->snapshot.listed;
        if (c->snapshot.listed)
            r.annotations = c->snapshot.annotations;
    } else {
        r.arguments = params;
    }
    m_calls.insert(r.callId, c);
    publish(c);

    if (!m_breaker->allowRequest()) {
        const QString message = m_breaker->openMessage(m_config.name);
        const Decision d = RetryPolicy::breakerOpen(message);
        r.decisions.append({ 0, d.rule, RetryPolicy::actionName(d.action), d.reason });
        r.rule = d.rule;
        r.error = { { QStringLiteral("message"), message },
            { QStringLiteral("dispatch"), QStringLiteral("not_dispatched") } };
        finishCall(c, CallOutcome::BreakerOpen);
        return r.callId;
    }
    if (!m_session || m_session->state() == ClientSession::State::Closed)
        connectToServer();
    startAttempt(c);
    return r.callId;
}

void ServerConnection::startAttempt(const std::shared_ptr<Call>& c)
{
    if (c->finished)
        return;
    CallRecord& r = c->record;
    CallAttempt attempt;
    attempt.number = int(r.attempts.size()) + 1;
    attempt.sessionId = sessionId();
    attempt.sentAt = wallClock();
    r.attempts.append(attempt);
    publish(c);

    RequestOptions ro;
    ro.timeoutMs = std::max<qint64>(1, c->timeoutMs - c->clock.elapsed());
    ro.onProgress = c->options.onProgress;
    if (c->isToolCall)
        ro.meta.insert(AttemptMetaKey,
            QJsonObject { { QStringLiteral("callId"), r.callId }, { QStringLiteral("attempt"), attempt.number } });

    auto send = [this, c, ro] {
        if (c->finished)
            return;
        if (!m_session) {
            Reply reply;
            reply.status = Reply::Status::Failed;
            reply.failure.event = TransportEvent::NotSent;
            reply.failure.message = m_lastError;
            onAttemptReply(c, reply);
            return;
        }
        ClientSession* session = m_session;
        // The session the request really goes out on (a delay fault may have let a reconnect happen).
        if (!c->record.attempts.isEmpty())
            c->record.attempts.last().sessionId = session->sessionId();
        std::optional<ArmedStdioFault> fault;
        if (!m_stdioFaults.isEmpty() && m_activeTransport == TransportKind::Stdio)
            fault = m_stdioFaults.takeFirst();
        auto* stdio = qobject_cast<StdioTransport*>(session->transport());
        if (fault && stdio && fault->fault == StdioFault::KillAfterWrite) {
            // Connected before the request goes out: a fast pipe reports the write inside request().
            auto connection = std::make_shared<QMetaObject::Connection>();
            *connection = connect(
                stdio, &Transport::requestWritten, this, [this, stdio, c, connection](const QJsonValue& written) {
                    if (!c->requestId.isUndefined() && idKey(written) != idKey(c->requestId))
                        return;
                    QObject::disconnect(*connection);
                    // The bytes are in the pipe: kill now, before the child can answer.
                    stdio->abort();
                    noteEvent(QStringLiteral("fault"),
                        tr("kill-after-write: killed the stdio server after request %1 was written")
                            .arg(idKey(written).mid(1)));
                });
        }
        // Stopped before the write, killed right after it: the request is in the pipe but the child
        // can never have answered, however fast it is (and however slow we are under a sanitizer).
        if (fault && stdio && fault->fault == StdioFault::KillAfterWrite && session->isReady())
            stdio->suspend();
        c->requestId = QJsonValue(QJsonValue::Undefined);
        c->sessionSerial = m_sessionSerial;
        c->session = session;
        const QJsonValue id = session->request(
            c->record.method, c->params, ro, [this, c](const Reply& reply) { onAttemptReply(c, reply); }, this);
        c->requestId = id;
        if (!c->record.attempts.isEmpty() && c->record.attempts.last().requestId.isEmpty())
            c->record.attempts.last().requestId = idKey(id).mid(1);
        if (fault && stdio && fault->fault == StdioFault::CloseStdin) {
            noteEvent(QStringLiteral("fault"), tr("close-stdin: closed the stdio server's stdin"));
            stdio->closeStdin();
        }
    };

    if (!m_stdioFaults.isEmpty() && m_activeTransport == TransportKind::Stdio
        && m_stdioFaults.first().fault == StdioFault::Delay) {
        const int delay = m_stdioFaults.takeFirst().delayMs;
        noteEvent(QStringLiteral("fault"), tr("delay: held the request for %1 ms").arg(delay));
        QTimer::singleShot(delay, this, send);
        return;
    }
    send();
}

qint64 ServerConnection::remainingMs(const Call& c) const
{
    return std::max<qint64>(0, c.timeoutMs - c.clock.elapsed());
}

void ServerConnection::onAttemptReply(const std::shared_ptr<Call>& c, const Reply& reply)
{
    if (c->finished)
        return;
    CallRecord& r = c->record;
    CallAttempt& attempt = r.attempts.last();
    attempt.endedAt = wallClock();
    if (!m_wire.isEmpty() && !c->requestId.isUndefined()) {
        const auto it = m_wire.find({ c->sessionSerial, idKey(c->requestId) });
        if (it != m_wire.end()) {
            attempt.exchange = std::move(it.value());
            m_wire.erase(it);
            m_redactor.redactExchange(attempt.exchange);
        }
    }
    attempt.written = reply.written;
    attempt.httpStatus = reply.failure.httpStatus;
    // A stdio child that died with the request in flight: the record names how it ended.
    if (reply.status == Reply::Status::Failed && reply.failure.crashed)
        attempt.signal = reply.failure.exitCode;
    else if (reply.status == Reply::Status::Failed && reply.failure.exitCode >= 0)
        attempt.exitCode = reply.failure.exitCode;
    // When the answer began to arrive: the wire exchange knows (HTTP response start, stdio answer line).
    for (const HttpExchange& http : std::as_const(attempt.exchange.http)) {
        if (http.firstByteAt > 0) {
            attempt.firstByteAt = http.firstByteAt;
            break;
        }
    }
    for (const StdioLine& line : std::as_const(attempt.exchange.stdio)) {
        if (!line.outgoing && attempt.firstByteAt == 0)
            attempt.firstByteAt = line.at;
    }
    if (attempt.firstByteAt == 0 && (reply.status == Reply::Status::Ok || reply.status == Reply::Status::RpcError))
        attempt.firstByteAt = attempt.endedAt;
    if (reply.status == Reply::Status::Cancelled) {
        attempt.error = reply.describe();
        m_breaker->releaseProbe();
        finishCall(c, CallOutcome::Cancelled);
        return;
    }
    const std::optional<ClassifiedFailure> failure = FailureClassifier::classify(reply, c->isToolCall);
    if (!failure) {
        r.result = reply.result;
        m_breaker->recordSuccess();
        finishCall(c, CallOutcome::Success);
        return;
    }
    attempt.failureKind = failure->kind;
    attempt.verdict = failure->verdict;
    // The server said it no longer knows this session: a DELETE for it on retire would only
    // compete with the reconnect for the server's time.
    if (failure->kind == FailureKind::SessionExpired && m_session && m_session->sessionId() == attempt.sessionId)
        m_session->transport()->forgetSession();
    attempt.error
        = reply.status == Reply::Status::Ok ? tr("the tool reported an error (isError: true)") : reply.describe();
    if (failure->kind == FailureKind::ToolError)
        r.result = reply.result;
    if (reply.status == Reply::Status::RpcError)
        r.error = reply.error.toJson();
    else if (reply.status != Reply::Status::Ok)
        r.error = { { QStringLiteral("message"), reply.describe() },
            { QStringLiteral("failureKind"), failureKindName(failure->kind) } };

    PolicySettings settings;
    settings.idempotentReplay = m_config.idempotentReplay;
    // The newest listing of the session the attempt went out on (a list_changed re-list during the
    // call counts); the snapshot alone would let a tool that turned into a writer be replayed.
    const RequestTools tools
        = requestTools(c->isToolCall, c->snapshot, r.tool, c->session ? c->session.data() : m_session.data());
    const Decision d = RetryPolicy::decide(*failure, tools, attempt.number, settings);
    r.decisions.append({ attempt.number, d.rule, RetryPolicy::actionName(d.action), d.reason });
    r.rule = d.rule;
    publish(c);

    const bool strikeIsToolError = failure->kind == FailureKind::ToolError;
    auto retryIfStillRouted = [this, c](bool healed, CallOutcome otherwise) {
        if (c->finished)
            return;
        // Routing guard (RECOVERY.md §4): the configuration changed or the tool vanished → no retry.
        // A session still listing its tools has not lost the tool; only a finished list can say so.
        RoutingFacts facts;
        facts.callGeneration = c->generation;
        facts.currentGeneration = m_generation;
        facts.isToolCall = c->isToolCall;
        facts.hasSession = m_session;
        facts.toolsListed = m_session && m_session->toolsListed();
        facts.toolListed = m_session && m_session->tool(c->record.tool);
        const bool routed = stillRouted(facts);
        if (healed && routed) {
            startAttempt(c);
            return;
        }
        if (healed && !routed)
            c->record.decisions.append({ int(c->record.attempts.size()), c->record.rule, QStringLiteral("stop"),
                tr("The server's configuration or tool list changed during the reconnect, so the call was not "
                   "retried.") });
        m_breaker->recordFailure(false);
        finishCall(c, otherwise);
    };

    switch (d.action) {
    case RecoveryAction::RetryOnce:
        if (m_session && m_session->isReady() && !m_reconnector->isRunning()) {
            startAttempt(c);
        } else {
            healThen(c, std::min(ReconnectWaitMs, std::max<qint64>(remainingMs(*c), 1000)),
                [retryIfStillRouted](bool healed) { retryIfStillRouted(healed, CallOutcome::NotDispatched); });
        }
        return;
    case RecoveryAction::ReconnectThenRetry:
        healThen(c, ReconnectWaitMs,
            [this, c, failure = *failure, number = attempt.number, settings, retryIfStillRouted](bool healed) {
                // RECOVERY.md §2: the reconnect's own tools/list is now the newest listing. If it no longer
                // says readOnlyHint true (or lists the name twice), the retry would be a second send of a
                // write that may have run: decide again before sending. A tool it no longer lists at all is
                // the routing guard's case.
                if (healed && !c->finished && c->isToolCall && c->generation == m_generation && m_session
                    && m_session->listing(c->record.tool).listed) {
                    const Decision again = RetryPolicy::decide(
                        failure, requestTools(true, c->snapshot, c->record.tool, m_session), number, settings);
                    if (again.action == RecoveryAction::HealNoReplay) {
                        c->record.decisions.append({ number, again.rule, RetryPolicy::actionName(again.action),
                            tr("Decided again with the new session's tools/list before the retry: %1")
                                .arg(again.reason) });
                        c->record.rule = again.rule;
                        c->record.healed = true;
                        m_breaker->recordUncertainAfterHeal();
                        finishCall(c, CallOutcome::OutcomeUncertain);
                        return;
                    }
                }
                retryIfStillRouted(healed, CallOutcome::TransportError);
            });
        return;
    case RecoveryAction::AuthThenRetry:
    case RecoveryAction::StepUpThenRetry:
        // Credentials are read per request; a fresh session is what this build can offer.
        healThen(c, std::min(AuthWaitMs, std::max<qint64>(remainingMs(*c), 1)),
            [retryIfStillRouted](bool healed) { retryIfStillRouted(healed, CallOutcome::NeedsAuth); });
        return;
    case RecoveryAction::HealNoReplay:
        healThen(c, ReconnectWaitMs, [this, c](bool healed) {
            c->record.healed = healed;
            // After a successful heal an uncertain outcome is not a strike (RECOVERY.md §6).
            if (healed)
                m_breaker->recordUncertainAfterHeal();
            else
                m_breaker->recordFailure(false);
            finishCall(c, CallOutcome::OutcomeUncertain);
        });
        return;
    case RecoveryAction::CancelNoRetry:
        m_breaker->recordFailure(false);
        finishCall(c, d.outcomeUncertain ? CallOutcome::OutcomeUncertain : CallOutcome::Timeout);
        return;
    case RecoveryAction::Stop:
    case RecoveryAction::FailFast: {
        m_breaker->recordFailure(strikeIsToolError);
        // R7 (d.outcomeUncertain): a retried write that then failed ambiguously may have run. An earlier
        // attempt may have run even when the last one never went out: never report it as not dispatched.
        const CallOutcome outcome = OutcomeMapping::stoppedOutcome(failure->kind, d.outcomeUncertain,
            OutcomeMapping::earlierAttemptMayHaveRun(r.attempts), RetryPolicy::isReplayable(tools, PolicySettings {}));
        if (d.reconnect) {
            // No resend, but the session is still healed for the calls that come next.
            healThen(c, ReconnectWaitMs, [this, c, outcome](bool healed) {
                c->record.healed = healed;
                finishCall(c, outcome);
            });
            return;
        }
        finishCall(c, outcome);
        return;
    }
    }
}

void ServerConnection::healThen(const std::shared_ptr<Call>& c, qint64 waitMs, std::function<void(bool healed)> next)
{
    const QString oldSession = c->record.attempts.isEmpty() ? sessionId() : c->record.attempts.last().sessionId;
    const qint64 started = wallClock();
    m_reconnector->join(
        oldSession, waitMs, this, [this, c, oldSession, started, next](const Reconnector::Result& result) {
            if (c->finished)
                return;
            CallReconnect reconnect;
            reconnect.oldSessionId = oldSession;
            reconnect.newSessionId = result.newSessionId;
            reconnect.startedAt = started;
            reconnect.durationMs = wallClock() - started;
            reconnect.ok = result.ok;
            reconnect.error = result.error;
            c->record.reconnects.append(reconnect);
            publish(c);
            next(result.ok);
        });
}

void ServerConnection::finishCall(const std::shared_ptr<Call>& c, CallOutcome outcome)
{
    if (c->finished)
        return;
    c->finished = true;
    CallRecord& r = c->record;
    r.outcome = outcome;
    r.endedAt = wallClock();
    if (outcome == CallOutcome::OutcomeUncertain) {
        // RECOVERY.md §5: a structured result, not a generic error.
        const QString what = r.tool.isEmpty() ? r.method : tr("tool '%1'").arg(r.tool);
        r.result = QJsonObject {
            { QStringLiteral("outcome"), QStringLiteral("uncertain") },
            { QStringLiteral("server"), r.server },
            { QStringLiteral("tool"), r.tool },
            { QStringLiteral("rule"), r.rule },
            { QStringLiteral("healed"), r.healed },
            { QStringLiteral("message"),
                tr("The call to %1 on server '%2' may or may not have taken effect. It was not sent again, to avoid "
                   "a duplicate. Check the server's state with a read before calling it again.")
                    .arg(what, r.server) },
        };
    }
    m_calls.remove(r.callId);
    publish(c);
    if (c->done)
        c->done(r);
}

void ServerConnection::publish(const std::shared_ptr<Call>& c)
{
    Q_EMIT callUpdated(c->record);
}

void ServerConnection::noteEvent(const QString& kind, const QString& text)
{
    const qint64 now = wallClock();
    for (const auto& c : std::as_const(m_calls)) {
        c->record.events.append({ now, kind, text });
        publish(c);
    }
    Q_EMIT actionLogged(kind, text);
}

bool ServerConnection::cancelCall(const QString& callId)
{
    const auto it = m_calls.constFind(callId);
    if (it == m_calls.constEnd())
        return false;
    const std::shared_ptr<Call> c = it.value();
    if (m_session && !c->requestId.isUndefined() && m_session->cancel(c->requestId, tr("cancelled by the user")))
        return true;
    // Between attempts (waiting for a reconnect): nothing is on the wire to cancel.
    if (!c->record.attempts.isEmpty())
        c->record.attempts.last().error = tr("cancelled by the user");
    m_breaker->releaseProbe();
    finishCall(c, CallOutcome::Cancelled);
    return true;
}

bool ServerConnection::expireSession(bool serverSide, QString* error)
{
    auto* http = m_session ? qobject_cast<StreamableHttpTransport*>(m_session->transport()) : nullptr;
    if (!http) {
        if (error)
            *error = tr("Server '%1' has no HTTP session to expire (use kill for a stdio server).").arg(m_config.name);
        return false;
    }
    const QString id = http->sessionId();
    if (serverSide) {
        http->terminateSession();
        noteEvent(QStringLiteral("action"), tr("expire (server): asked the server to end session %1").arg(id));
    } else {
        http->forgetSession();
        noteEvent(QStringLiteral("action"), tr("expire (client): forgot session id %1").arg(id));
    }
    return true;
}

void ServerConnection::reconnectNow()
{
    noteEvent(QStringLiteral("action"), tr("reconnect requested"));
    if (m_reconnector->isParked())
        m_reconnector->reconnectNow();
    else
        m_reconnector->join(sessionId(), ReconnectWaitMs, this, {});
}

void ServerConnection::killTransport()
{
    noteEvent(QStringLiteral("action"), tr("kill: dropped the transport of session %1").arg(sessionId()));
    if (m_session)
        m_session->abort();
}

void ServerConnection::armStdioFault(StdioFault fault, int delayMs)
{
    m_stdioFaults.append({ fault, delayMs });
    static const char* const names[] = { "kill-after-write", "close-stdin", "delay" };
    noteEvent(QStringLiteral("action"), tr("armed stdio fault %1").arg(QString::fromLatin1(names[int(fault)])));
}

void ServerConnection::openBreaker()
{
    m_breaker->forceOpen();
    noteEvent(QStringLiteral("action"), tr("breaker opened by hand"));
}

void ServerConnection::resetBreaker()
{
    m_breaker->reset();
    noteEvent(QStringLiteral("action"), tr("breaker reset by hand"));
}

} // namespace mcpscope
