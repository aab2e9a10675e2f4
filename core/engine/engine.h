#pragma once

#include "config/serverconfig.h"
#include "serverconnection.h"

#include <QList>
#include <QObject>

#include <functional>

namespace mcpscope {

/// Owns one ServerConnection per configured server; any number may be live at once.
///
/// Signals: serverAdded / serverRemoved when the set of servers changes.
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

    /// Calls attach for every connection now and for each one added later, on receiver's behalf.
    /// The models and stores that watch all servers follow the engine this way.
    void follow(QObject* receiver, const std::function<void(ServerConnection*)>& attach);
    /// Undoes follow(): no more attach calls, and no connection's signals reach receiver any more.
    void unfollow(QObject* receiver);

    void connectAll();
    void disconnectAll();

Q_SIGNALS:
    void serverAdded(mcpscope::ServerConnection* connection);
    void serverRemoved(const QString& name);

private:
    QList<ServerConnection*> m_connections;
    ClientResponder* m_responder = nullptr;
};

} // namespace mcpscope
