#include "serverconnection.h"

#include "transportfactory.h"

namespace mcpscope {

ServerConnection::ServerConnection(ServerConfig config, QObject* parent)
    : QObject(parent)
    , m_config(std::move(config))
{
}

ServerConnection::~ServerConnection()
{
    delete m_session;
}

void ServerConnection::setConfig(const ServerConfig& config)
{
    m_config = config;
    ++m_generation;
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
    if (m_session && (m_session->state() == ClientSession::State::Ready
            || m_session->state() == ClientSession::State::Connecting
            || m_session->state() == ClientSession::State::Initializing))
        return;
    startSession(m_config.transport == TransportKind::AutoHttp ? TransportKind::StreamableHttp : m_config.transport);
}

bool ServerConnection::fallBackToLegacySse()
{
    // MCP-NOTES: an initialize POST answered 400, 404 or 405 means the server may speak 2024-11-05 HTTP+SSE.
    if (m_config.transport != TransportKind::AutoHttp || m_activeTransport != TransportKind::StreamableHttp
        || !m_session || m_session->details().protocolVersion.size() > 0)
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
        m_session->disconnect(this);
        m_session->deleteLater();
    }
    m_activeTransport = kind;
    ServerConfig effective = m_config;
    effective.transport = kind;
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
    connect(session, &ClientSession::stateChanged, this, &ServerConnection::onSessionState);
    connect(session, &ClientSession::ready, this, &ServerConnection::ready);
    connect(session, &ClientSession::failed, this, [this](const QString& message) {
        if (fallBackToLegacySse())
            return;
        m_lastError = message;
        setState(State::Failed);
        Q_EMIT failed(message);
    });
    connect(session, &ClientSession::closed, this, &ServerConnection::closed);
    connect(session, &ClientSession::toolsChanged, this, &ServerConnection::toolsChanged);
    connect(session, &ClientSession::serverLog, this, &ServerConnection::serverLog);
    connect(session, &ClientSession::logMessage, this, &ServerConnection::logMessage);
    connect(session, &ClientSession::traffic, this, &ServerConnection::traffic);
    connect(session, &ClientSession::keepaliveFailed, this, [this] { setState(State::Suspect); });
    Q_EMIT sessionCreated(session);
    session->start();
}

void ServerConnection::disconnectFromServer()
{
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
        setState(State::Connecting);
        break;
    case ClientSession::State::Initializing:
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
        // Failed initialize on an "auto" server is decided in the failed() handler (fallback or not).
        if (m_config.transport != TransportKind::AutoHttp || m_activeTransport != TransportKind::StreamableHttp)
            setState(State::Failed);
        break;
    }
}

} // namespace mcpscope
