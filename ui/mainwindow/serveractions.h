#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

class QAction;
class QWidget;

namespace mcpscope {

class ServerConnection;
class ServerDialog;
class WorkspaceSession;

/// The actions on the workspace's servers (File › New Server and the Server menu): new, connect,
/// disconnect, reconnect, ping, connect all, edit, duplicate, remove, copy the session id. They act on
/// the server the window has selected and change the workspace through its WorkspaceSession; the
/// dialogs they open belong to window. Ping sends `ping` through Engine::call (a call record of its
/// own) and keeps each server's last round trip.
///
/// Signals:
/// - serverAdded(name) after New Server or Duplicate added a server;
/// - serverCreated(name) after New Server, for the window to select it;
/// - statusMessage(text) after a change worth a line in the status bar;
/// - pinged(server) when a ping ended, after lastPingText(server) changed.
class ServerActions : public QObject
{
    Q_OBJECT
public:
    ServerActions(WorkspaceSession* session, std::function<ServerConnection*()> currentConnection, QWidget* window);

    QAction* newServer() const { return m_newServer; }
    QAction* connectServer() const { return m_connect; }
    QAction* disconnectServer() const { return m_disconnect; }
    QAction* reconnectServer() const { return m_reconnect; }
    QAction* pingServer() const { return m_ping; }
    /// "3.2 ms at 18:40:02", or why the last ping failed; empty before the first.
    QString lastPingText(const QString& server) const { return m_lastPing.value(server); }
    /// The Server menu, in order; nullptr stands for a separator.
    QList<QAction*> menuActions() const;
    /// What the servers view offers on a right click.
    QList<QAction*> contextActions() const;
    /// The server dialog with the focus on its Authorization group (the Auth view's Edit Client Credentials).
    void editCredentials(ServerConnection* c);
    /// Enables the actions that apply to the selected server; a disabled one says why (tooltip, status tip).
    void refresh();
    /// Turns on an HTTP server's fault proxy option (saved with the workspace) and reconnects it if it was
    /// connected, so that the fault bar can arm HTTP faults.
    void routeThroughFaultProxy(ServerConnection* c);

Q_SIGNALS:
    void serverAdded(const QString& name);
    void serverCreated(const QString& name);
    void statusMessage(const QString& text);
    void pinged(const QString& server);

private:
    QAction* add(const QString& text, std::function<void(ServerConnection*)> run);
    void addServer();
    void editServer(ServerConnection* c, bool focusCredentials = false);
    /// Hands the secret or key the dialog took to the server's ServerAuth (the keychain), never the workspace.
    void applyCredentials(const QString& server, const ServerDialog& dialog);
    void removeServer(ServerConnection* c);
    void ping(ServerConnection* c);

    WorkspaceSession* m_session;
    std::function<ServerConnection*()> m_currentConnection;
    QPointer<QWidget> m_window;
    QAction* m_newServer = nullptr;
    QAction* m_connect = nullptr;
    QAction* m_disconnect = nullptr;
    QAction* m_reconnect = nullptr;
    QAction* m_connectAll = nullptr;
    QAction* m_edit = nullptr;
    QAction* m_duplicate = nullptr;
    QAction* m_remove = nullptr;
    QAction* m_copySessionId = nullptr;
    QAction* m_ping = nullptr;
    QHash<QString, QString> m_lastPing;
};

} // namespace mcpscope
