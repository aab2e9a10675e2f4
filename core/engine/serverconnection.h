#pragma once

#include "config/serverconfig.h"
#include "session/clientsession.h"

#include <QObject>
#include <QPointer>

namespace mcpscope {

/// One configured server and its live session. The engine owns one per server.
///
/// Signals: stateChanged through setState() only; ready when a session finished initialize;
/// failed with a message naming the server when connecting or the session fails.
class ServerConnection : public QObject
{
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Initializing, Ready, Suspect, Reconnecting, Parked, NeedsAuth,
        Failed, Closed };
    Q_ENUM(State)

    explicit ServerConnection(ServerConfig config, QObject* parent = nullptr);
    ~ServerConnection() override;

    const ServerConfig& config() const { return m_config; }
    QString name() const { return m_config.name; }
    /// Replacing the configuration bumps the generation (the routing guard of RECOVERY.md §4 reads it).
    void setConfig(const ServerConfig& config);
    quint64 generation() const { return m_generation; }
    void setResponder(ClientResponder* responder);

    State state() const { return m_state; }
    static QString stateName(State state);
    ClientSession* session() const { return m_session; }
    QString lastError() const { return m_lastError; }

    /// The transport in use: for an "auto" server, Streamable HTTP or the legacy SSE it fell back to.
    TransportKind activeTransport() const { return m_activeTransport; }

    void connectToServer();
    void disconnectFromServer();

Q_SIGNALS:
    void stateChanged(mcpscope::ServerConnection::State state);
    void sessionCreated(mcpscope::ClientSession* session);
    void ready();
    void failed(const QString& message);
    void closed();
    void toolsChanged();
    void serverLog(const QString& line);
    void logMessage(const QString& level, const QString& logger, const QJsonValue& data);
    void traffic(mcpscope::WireDirection direction, const QByteArray& bytes);

private:
    void setState(State state);
    void startSession(TransportKind kind);
    bool fallBackToLegacySse();
    void onSessionState(ClientSession::State state);

    ServerConfig m_config;
    quint64 m_generation = 1;
    ClientResponder* m_responder = nullptr;
    QPointer<ClientSession> m_session;
    State m_state = State::Disconnected;
    TransportKind m_activeTransport = TransportKind::Stdio;
    QString m_lastError;
};

} // namespace mcpscope
