#pragma once

#include <QScrollArea>

#include <functional>

class QLabel;

namespace mcpscope {

class AuthController;
class ServerConnection;
struct ServerDetails;

/// The Overview tab: a server's state and transport, what it said in initialize or, for a 2026-07-28 server,
/// server/discover (server info, protocol version and era, session id or "sessionless", supported versions
/// and cache hints, capabilities, instructions), its authorization (HTTP) and its breaker. Its last error is
/// in the ServerBanner above all tabs.
class ServerOverview : public QScrollArea
{
    Q_OBJECT
public:
    explicit ServerOverview(QWidget* parent = nullptr);

    /// connection may be null: the overview then says how to add a server. auth (optional) knows which
    /// authorization page a flow waits on.
    void showConnection(const ServerConnection* connection, const AuthController* auth = nullptr);
    /// Where the overview reads a server's last ping ("3.2 ms at 18:40:02"; empty: never pinged).
    void setPingLookup(std::function<QString(const QString& server)> lookup) { m_pingLookup = std::move(lookup); }
    /// The text shown, for tests.
    QString text() const;

private:
    /// A modern server's server/discover result: supported versions, ttlMs and cacheScope.
    static QString discoverHtml(const ServerDetails& details);

    QLabel* m_text = nullptr;
    std::function<QString(const QString&)> m_pingLookup;
};

} // namespace mcpscope
