#include "engine.h"

namespace mcpscope {

Engine::Engine(QObject* parent)
    : QObject(parent)
{ }

Engine::~Engine()
{
    qDeleteAll(m_connections);
}

ServerConnection* Engine::addServer(const ServerConfig& config)
{
    if (ServerConnection* existing = connection(config.name)) {
        existing->setConfig(config);
        return existing;
    }
    auto* connection = new ServerConnection(config, this);
    connection->setResponder(m_responder);
    m_connections.append(connection);
    Q_EMIT serverAdded(connection);
    return connection;
}

void Engine::removeServer(const QString& name)
{
    ServerConnection* c = connection(name);
    if (!c)
        return;
    m_connections.removeOne(c);
    c->disconnectFromServer();
    c->deleteLater();
    Q_EMIT serverRemoved(name);
}

ServerConnection* Engine::connection(const QString& name) const
{
    for (ServerConnection* c : m_connections) {
        if (c->name() == name)
            return c;
    }
    return nullptr;
}

void Engine::setResponder(ClientResponder* responder)
{
    m_responder = responder;
    for (ServerConnection* c : std::as_const(m_connections))
        c->setResponder(responder);
}

void Engine::follow(QObject* receiver, const std::function<void(ServerConnection*)>& attach)
{
    connect(this, &Engine::serverAdded, receiver, attach);
    for (ServerConnection* c : std::as_const(m_connections))
        attach(c);
}

void Engine::unfollow(QObject* receiver)
{
    disconnect(this, nullptr, receiver, nullptr);
    for (ServerConnection* c : std::as_const(m_connections))
        c->disconnect(receiver);
}

void Engine::connectAll()
{
    for (ServerConnection* c : std::as_const(m_connections))
        c->connectToServer();
}

void Engine::disconnectAll()
{
    for (ServerConnection* c : std::as_const(m_connections))
        c->disconnectFromServer();
}

} // namespace mcpscope
