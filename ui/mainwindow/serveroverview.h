#pragma once

#include <QScrollArea>

class QLabel;

namespace mcpscope {

class AuthController;
class ServerConnection;

/// The Overview tab: a server's state and transport, its last error, what it said in initialize
/// (server info, protocol version, session id, capabilities, instructions), its authorization (HTTP) and
/// its breaker.
class ServerOverview : public QScrollArea
{
    Q_OBJECT
public:
    explicit ServerOverview(QWidget* parent = nullptr);

    /// connection may be null: the overview then says how to add a server. auth (optional) knows which
    /// authorization page a flow waits on.
    void showConnection(const ServerConnection* connection, const AuthController* auth = nullptr);

private:
    QLabel* m_text = nullptr;
};

} // namespace mcpscope
