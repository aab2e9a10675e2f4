#pragma once

#include "session/clientresponder.h"

namespace mcpscope {

struct ServerConfig;

/// What one server's session answers when the server asks the client something. roots/list comes from
/// the server's own configured roots (ServerConfig::roots) when it has any; everything else, and a
/// server without configured roots, goes to the engine's responder (the CLI's script, the app's panels).
/// Roots are declared with listChanged, because the server's roots can be edited while it is connected
/// (ServerConnection then sends notifications/roots/list_changed).
class ConnectionResponder final : public ClientResponder
{
public:
    /// config: the connection's configuration, read at each request (it outlives this responder).
    explicit ConnectionResponder(const ServerConfig* config)
        : m_config(config)
    { }

    void setInner(ClientResponder* inner) { m_inner = inner; }
    ClientResponder* inner() const { return m_inner; }

    QJsonObject capabilities() const override;
    void respond(const JsonRpcMessage& request, Reply reply) override;

private:
    const ServerConfig* m_config = nullptr;
    ClientResponder* m_inner = nullptr;
};

} // namespace mcpscope
