#include "serverconnection.h"

#include "calllog/callsummary.h"
#include "callrunner.h"
#include "fault/faultproxy.h"
#include "fault/stdiofaultinjector.h"
#include "localserverlauncher.h"
#include "recovery/circuitbreaker.h"
#include "recovery/failureclassifier.h"
#include "recovery/reconnector.h"
#include "respondertap.h"
#include "transportfactory.h"

#include <QDateTime>
#include <QMetaMethod>
#include <QTimer>

namespace mcpscope {

namespace {
constexpr qint64 ReconnectWaitMs = 15000; // R4/R5 (hermes)
constexpr int MaxInitializeAuthorizations = 3; // MCP-NOTES "Authorization" §8
constexpr qint64 AutomaticAuthWaitMs = 60000; // a flow without a user: discovery, registration, token
constexpr qint64 BrowserAuthWaitMs = 10 * 60000; // a user in a browser
constexpr qsizetype OutputTailLines = 5; // of stderr, at the end of a failed start's message
constexpr qsizetype OutputTailLineChars = 400;

constexpr EnumName<ServerConnection::State> StateEntries[] = {
    { ServerConnection::State::Disconnected, u"disconnected" },
    { ServerConnection::State::Connecting, u"connecting" },
    { ServerConnection::State::Initializing, u"initializing" },
    { ServerConnection::State::Ready, u"ready" },
    { ServerConnection::State::Suspect, u"suspect" },
    { ServerConnection::State::Reconnecting, u"reconnecting" },
    { ServerConnection::State::Parked, u"parked" },
    { ServerConnection::State::NeedsAuth, u"needs_auth" },
    { ServerConnection::State::Failed, u"failed" },
    { ServerConnection::State::Closed, u"closed" },
};
constexpr EnumNames<ServerConnection::State> StateNames(StateEntries);

/// The transport a connection starts with: an "auto" server tries Streamable HTTP first.
TransportKind firstTransport(const ServerConfig& config)
{
    return config.transport == TransportKind::AutoHttp ? TransportKind::StreamableHttp : config.transport;
}
} // namespace

ServerConnection::ServerConnection(ServerConfig config, QObject* parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_activeTransport(firstTransport(m_config))
    , m_breaker(new CircuitBreaker(this))
    , m_reconnector(new Reconnector(this))
{
    m_launcher = new LocalServerLauncher(this);
    m_stdioFaults = new StdioFaultInjector(this);
    applyBreakerSettings();
    m_redactor->addServer(m_config);
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
    connect(m_launcher, &LocalServerLauncher::starting, this, [this] {
        m_outputTail.clear();
        setState(State::Connecting);
    });
    connect(m_launcher, &LocalServerLauncher::serverLog, this, &ServerConnection::takeOutput);
    connect(m_launcher, &LocalServerLauncher::notice, this, &ServerConnection::notice);
    connect(m_launcher, &LocalServerLauncher::listening, this, &ServerConnection::connectToServer);
    connect(m_launcher, &LocalServerLauncher::failed, this, &ServerConnection::fail);
    connect(m_launcher, &LocalServerLauncher::exited, this, [this](int code) {
        if (m_state == State::Connecting)
            fail(withOutputTail(tr("Server '%1': the launch command exited with code %2 before the server listened.")
                                    .arg(m_config.name)
                                    .arg(code)));
    });
    connect(m_stdioFaults, &StdioFaultInjector::fired, this,
        [this](const QString& text) { noteEvent(QStringLiteral("fault"), text); });
}

void ServerConnection::applyBreakerSettings()
{
    CircuitBreaker::Settings settings;
    settings.threshold = m_config.breakerThreshold;
    settings.cooldownMs = qint64(m_config.breakerCooldownSec) * 1000;
    settings.countToolErrors = m_config.countToolErrors;
    m_breaker->setSettings(settings);
    // Every call's record names the policy in force; built once per configuration, not once per call.
    m_recordPolicy = { { QStringLiteral("idempotentReplay"), m_config.idempotentReplay },
        { QStringLiteral("breakerThreshold"), m_config.breakerThreshold },
        { QStringLiteral("breakerCooldownSec"), m_config.breakerCooldownSec },
        { QStringLiteral("countToolErrors"), m_config.countToolErrors } };
}

ServerConnection::~ServerConnection()
{
    // A server removed with calls still in flight: they get their final record too, and their callers,
    // which may be gone with the engine's owner, hear nothing.
    interruptCalls(false);
    delete m_session;
    // Retired sessions too, before the ServerAuth their transports read credentials from goes.
    qDeleteAll(findChildren<ClientSession*>(Qt::FindDirectChildrenOnly));
}

void ServerConnection::interruptCalls(bool tellCallers)
{
    m_reconnector->stopBackground();
    // Copies: a call's done may start or end others.
    QList<QPointer<CallRunner>> calls;
    for (CallRunner* runner : std::as_const(m_calls))
        calls.append(runner);
    for (const QPointer<CallRunner>& runner : std::as_const(calls)) {
        if (runner)
            runner->interrupt(tellCallers);
    }
}

bool ServerConnection::launcherRunning() const
{
    return m_launcher->isRunning();
}

void ServerConnection::setRecordsWire(bool on)
{
    m_recordsWire = on;
    if (m_session)
        m_session->setRecordExchanges(on);
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

void ServerConnection::enableAuth(
    std::shared_ptr<TokenStore> store, ServerAuth::Browser browser, ServerAuth::OptionsAdjuster adjust)
{
    if (m_auth || !m_config.isHttp())
        return;
    m_auth = new ServerAuth(m_config, std::move(store), m_redactor, browser, std::move(adjust), this);
    connect(m_auth, &ServerAuth::secretLearned, this, &ServerConnection::secretLearned);
    connect(m_auth, &ServerAuth::stateChanged, this, [this](ServerAuth::State state) {
        if (state == ServerAuth::State::NeedsUser && (m_state != State::Ready && m_state != State::Suspect))
            setState(State::NeedsAuth);
    });
    connect(m_auth, &ServerAuth::authorized, this, [this] {
        // The user finished a flow the connection had given up waiting for: connect now.
        if (m_state == State::NeedsAuth) {
            m_initializeAuthorizations = 0;
            connectToServer();
        }
    });
}

void ServerConnection::setConfig(const ServerConfig& config)
{
    const bool rootsChanged = config.roots != m_config.roots;
    m_config = config;
    // A connected server hears of edited roots at once, and asks for them again with roots/list.
    if (rootsChanged && m_session && m_session->isReady())
        m_session->notify(QStringLiteral("notifications/roots/list_changed"));
    // Until a session starts, the transport shown (and reconnected with) is the configured one.
    if (!m_session)
        m_activeTransport = firstTransport(m_config);
    if (m_auth)
        m_auth->setConfig(config);
    ++m_generation;
    applyBreakerSettings();
    // The old credentials stay secret too: exchanges of requests still in flight may carry them.
    m_redactor->addServer(m_config);
}

void ServerConnection::shareRedactor(std::shared_ptr<Redactor> redactor)
{
    m_redactor = std::move(redactor);
    m_redactor->addServer(m_config);
}

QString ServerConnection::stateName(State state)
{
    return StateNames.name(state);
}

void ServerConnection::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ServerConnection::fail(const QString& message)
{
    m_lastError = message;
    setState(State::Failed);
    Q_EMIT failed(message);
}

void ServerConnection::takeOutput(const QString& line)
{
    m_outputTail.append(
        line.size() > OutputTailLineChars ? line.left(OutputTailLineChars) + QStringLiteral("…") : line);
    if (m_outputTail.size() > OutputTailLines)
        m_outputTail.removeFirst();
    Q_EMIT serverLog(line);
}

QString ServerConnection::withOutputTail(const QString& message) const
{
    if (m_outputTail.isEmpty())
        return message;
    QString text = message + QLatin1Char('\n') + tr("Last lines of stderr:");
    for (const QString& line : m_outputTail)
        text += QStringLiteral("\n  ") + m_redactor->redactText(line);
    return text;
}

void ServerConnection::connectToServer()
{
    if (m_session
        && (m_session->state() == ClientSession::State::Ready || m_session->state() == ClientSession::State::Connecting
            || m_session->state() == ClientSession::State::Initializing))
        return;
    if (m_config.isHttp() && !m_config.launchCommand.isEmpty() && !launcherRunning()) {
        m_launcher->start(m_config);
        return;
    }
    if (m_config.isHttp() && m_config.viaFaultProxy && !m_proxy) {
        m_proxy = new FaultProxy(m_config.url, this);
        QString error;
        if (!m_proxy->listen(0, &error)) {
            fail(tr("Server '%1': the fault proxy could not listen: %2").arg(m_config.name, error));
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
    m_fallbackStatus = 0;
    startSession(firstTransport(m_config));
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
    Q_EMIT notice(tr("Server '%1' answered the Streamable HTTP initialize with %2; trying the legacy HTTP+SSE "
                     "transport.")
                      .arg(m_config.name)
                      .arg(status));
    m_fallbackStatus = status;
    startSession(TransportKind::LegacySse);
    return true;
}

QString ServerConnection::describeFallbackFailure(const QString& message) const
{
    // Both transports were refused: say what was tried, not the legacy GET's error page.
    if (m_fallbackStatus == 0 || m_activeTransport != TransportKind::LegacySse || !m_session
        || !m_session->details().protocolVersion.isEmpty())
        return message;
    const TransportFailure legacy = m_session->initializeFailure();
    const QString post = tr("Server '%1': POST %2 got %3")
                             .arg(m_config.name,
                                 m_config.url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment))
                             .arg(m_fallbackStatus);
    if (legacy.event == TransportEvent::HttpStatus && legacy.httpStatus != 0)
        return tr("%1; the legacy SSE fallback's GET got %2. Check the URL's path (Streamable HTTP servers often "
                  "serve /mcp, legacy ones /sse).")
            .arg(post)
            .arg(legacy.httpStatus);
    return tr("%1; the legacy SSE fallback failed too: %2").arg(post, message);
}

bool ServerConnection::authorizeInitialize(const QString& message)
{
    if (!m_auth || !m_session || !m_session->details().protocolVersion.isEmpty())
        return false;
    const TransportFailure failure = m_session->initializeFailure();
    const FailureKind kind = FailureClassifier::kindOf(failure);
    if (kind != FailureKind::AuthRequired && kind != FailureKind::InsufficientScope)
        return false;
    if (m_initializeAuthorizations >= MaxInitializeAuthorizations) {
        m_lastError = tr("%1 (gave up after %2 authorizations)").arg(message).arg(m_initializeAuthorizations);
        setState(State::NeedsAuth);
        Q_EMIT failed(m_lastError);
        return true;
    }
    ++m_initializeAuthorizations;
    m_authChallenge = failure;
    Q_EMIT notice(
        tr("Server '%1' asks for authorization (HTTP %2); authorizing.").arg(m_config.name).arg(failure.httpStatus));
    setState(State::Connecting);
    const bool browser = m_auth->client()->options().browser == OAuthClient::Browser::External
        && m_config.oauthGrant != QLatin1String("client_credentials");
    m_auth->ensure(failure, browser ? BrowserAuthWaitMs : AutomaticAuthWaitMs, this,
        [this, message](bool ok, const QString& error) {
            if (ok) {
                connectToServer();
                return;
            }
            // ServerAuth's errors name the server already (as CallRunner shows them); only the bare
            // initialize failure is wrapped.
            m_lastError
                = !error.isEmpty() ? error : tr("Server '%1' needs authorization: %2").arg(m_config.name, message);
            setState(State::NeedsAuth);
            Q_EMIT failed(m_lastError);
        });
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
    // A new child: what an earlier one printed says nothing about why this one fails.
    if (kind == TransportKind::Stdio)
        m_outputTail.clear();
    ServerConfig effective = m_config;
    effective.transport = kind;
    if (m_endpointOverride.isValid() && effective.isHttp())
        effective.url = m_endpointOverride;
    QString error;
    std::unique_ptr<Transport> transport
        = createTransport(effective, &error, m_auth ? m_auth->credentials() : nullptr, m_config.url);
    if (!transport) {
        fail(error);
        return;
    }
    ClientSession::Options options;
    options.serverName = m_config.name;
    options.requestTimeoutMs = m_config.requestTimeoutMs;
    options.keepaliveIntervalSec = m_config.keepaliveIntervalSec;
    // HTTP+SSE is 2024-11-05 by definition: nothing to probe.
    options.era = kind == TransportKind::LegacySse ? ProtocolEra::Legacy : m_config.era;
    options.knownEra = m_config.knownEra;
    // Every attempt's record carries what went over the wire for it, unless nobody will read it.
    options.recordExchanges = m_recordsWire;
    auto* session = new ClientSession(std::move(transport), options, this);
    session->setResponder(&m_responder);
    m_session = session;
    connect(session, &ClientSession::stateChanged, this, &ServerConnection::onSessionState);
    connect(session, &ClientSession::ready, this, [this, session] {
        if (m_auth && m_initializeAuthorizations > 0)
            m_auth->noteRetried(tr("initialize"), true, QString());
        m_initializeAuthorizations = 0;
        noteEra(session);
        // The tool list is the annotation snapshot every call decision reads.
        session->listTools([this, session](const Reply& reply) { onToolsListed(session, reply); }, this);
    });
    connect(session, &ClientSession::failed, this, [this](const QString& message) {
        if (reprobeEra() || fallBackToLegacySse() || authorizeInitialize(message))
            return;
        const bool wasUp = m_state == State::Ready || m_state == State::Suspect;
        const QString dropped = m_session ? m_session->sessionId() : QString();
        fail(wasUp ? message : withOutputTail(describeFallbackFailure(message)));
        // A drop of an established session heals in the background, with backoff (RECOVERY.md §4).
        if (wasUp && !m_reconnector->isRunning())
            m_reconnector->startBackground(dropped);
    });
    connect(session, &ClientSession::closed, this, &ServerConnection::closed);
    connect(session, &ClientSession::toolsChanged, this, &ServerConnection::toolsChanged);
    connect(session, &ClientSession::serverLog, this, &ServerConnection::takeOutput);
    connect(session, &ClientSession::notice, this, &ServerConnection::notice);
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
    // "Ready" for recovery includes the new tool list, which the routing guard checks: the list every
    // ready session asks for (startSession). Asking for a second one cost each heal a round trip.
    m_reconnectWait = { session, [session, done, fired](const Reply& reply) {
                           if (std::exchange(*fired, true))
                               return;
                           // A session that died while listing is no heal.
                           if (!session->isReady() || reply.status == Reply::Status::Failed
                               || reply.status == Reply::Status::Cancelled)
                               done(false, QString(), reply.describe());
                           else
                               done(true, session->sessionId(), QString());
                       } };
    connect(session, &ClientSession::failed, this, [done, fired](const QString& message) {
        if (!std::exchange(*fired, true))
            done(false, QString(), message);
    });
}

void ServerConnection::onToolsListed(ClientSession* session, const Reply& reply)
{
    // Whoever hears ready may end a call whose done deletes this connection.
    const QPointer<ServerConnection> self(this);
    Q_EMIT ready();
    if (!self || m_reconnectWait.session != session)
        return;
    const auto listed = std::exchange(m_reconnectWait, {}).listed;
    if (listed)
        listed(reply);
}

QString ServerConnection::call(const QString& method, const QJsonObject& params, const CallOptions& options,
    std::function<void(const CallRecord&)> done)
{
    auto* runner = new CallRunner(this, m_redactor.get(), m_stdioFaults, method, params, options, std::move(done));
    const QString callId = runner->callId();
    m_calls.insert(callId, runner);
    if (!options.partOfCall.isEmpty())
        m_partOf.insert(callId, options.partOfCall);
    runner->start();
    return callId;
}

QString ServerConnection::shownSessionId() const
{
    if (!m_session || m_state == State::Failed || m_state == State::Closed || m_state == State::Disconnected)
        return {};
    const Transport* transport = m_session->transport();
    return transport ? transport->assignedSessionId() : QString();
}

bool ServerConnection::cancelCall(const QString& callId)
{
    const auto it = m_calls.constFind(callId);
    if (it == m_calls.constEnd())
        return false;
    it.value()->cancel();
    return true;
}

bool ServerConnection::expireSession(bool serverSide, QString* error)
{
    Transport* http = m_session ? m_session->transport() : nullptr;
    if (!http || !http->hasServerSession()) {
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
    m_stdioFaults->arm(fault, delayMs);
    noteEvent(QStringLiteral("action"), tr("armed stdio fault %1").arg(StdioFaultNames.name(fault)));
}

int ServerConnection::pendingStdioFaults() const
{
    return m_stdioFaults->pending();
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
