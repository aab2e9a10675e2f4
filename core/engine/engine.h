#pragma once

#include "config/serverconfig.h"
#include "serverconnection.h"

#include <QList>
#include <QObject>

#include <functional>

namespace mcpscope {

/// Owns one ServerConnection per configured server; any number may be live at once, and is the one
/// entry point for every request the app and the CLI make (call()).
///
/// Signals: serverAdded / serverRemoved when the set of servers changes; callUpdated, traffic,
/// serverLog, logMessage and actionLogged re-emit those of every connection, named by server, so the
/// models and stores follow the engine and never a connection.
class Engine : public QObject
{
    Q_OBJECT
public:
    explicit Engine(QObject* parent = nullptr);
    ~Engine() override;

    ServerConnection* addServer(const ServerConfig& config);
    void removeServer(const QString& name);
    ServerConnection* connection(const QString& name) const;
    const QList<ServerConnection*>& connections() const { return m_connections; }
    void setResponder(ClientResponder* responder);

    /// Sends any request (tools/call, resources/read, ping, …) to the named server through its call
    /// record, breaker and decision table. done gets the final record; an unknown server ends at once
    /// as not dispatched, with an error that names it. Returns the call id.
    QString call(const QString& server, const QString& method, const QJsonObject& params, const CallOptions& options,
        std::function<void(const CallRecord&)> done);

    /// Calls attach for every connection now and for each one added later, on receiver's behalf.
    /// The models and stores that watch all servers follow the engine this way.
    void follow(QObject* receiver, const std::function<void(ServerConnection*)>& attach);
    /// Undoes follow(): no more attach calls, and no connection's signals reach receiver any more.
    void unfollow(QObject* receiver);

    void connectAll();

Q_SIGNALS:
    void serverAdded(mcpscope::ServerConnection* connection);
    void serverRemoved(const QString& name);
    void callUpdated(const mcpscope::CallRecord& record);
    void traffic(const QString& server, mcpscope::WireDirection direction, const QByteArray& bytes);
    void serverLog(const QString& server, const QString& line);
    void logMessage(const QString& server, const QString& level, const QString& logger, const QJsonValue& data);
    void actionLogged(const QString& server, const QString& kind, const QString& text);

private:
    QList<ServerConnection*> m_connections;
    ClientResponder* m_responder = nullptr;
};

} // namespace mcpscope
