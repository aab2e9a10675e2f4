#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QUrl>

namespace mcpscope {

class AuthView;
class ServerAuth;
class ServerConnection;
struct AuthSummary;

/// Connects the Auth view to the selected server's ServerAuth, and every server's browser requests and
/// problems to the window (a flow may need the browser while another server is selected).
///
/// Signals: statusMessage(text) before the browser opens, and for each ServerAuth::problem;
/// editCredentialsRequested when the view's Edit Client Credentials was pressed for the shown server.
class AuthController : public QObject
{
    Q_OBJECT
public:
    AuthController(AuthView* view, QObject* parent = nullptr);

    /// Follows connection's browser requests and problems (once per ServerAuth; null or stdio: nothing).
    void watch(ServerConnection* connection);
    /// Shows connection's authorization in the view; null or a server without OAuth empties it.
    void show(ServerConnection* connection);
    /// What the view and the Overview show for auth.
    static AuthSummary summaryOf(const ServerAuth* auth, const QUrl& pendingAuthorization);
    QUrl pendingAuthorization(const ServerAuth* auth) const { return m_pending.value(auth); }

Q_SIGNALS:
    void statusMessage(const QString& text);
    void editCredentialsRequested();
    /// The shown server's authorization state changed (the Overview shows it too).
    void stateChanged();

private:
    void refresh();
    void openBrowser(ServerAuth* auth, const QString& server, const QUrl& url);

    AuthView* m_view;
    QPointer<ServerAuth> m_auth;
    QList<QMetaObject::Connection> m_shown;
    QHash<const ServerAuth*, QUrl> m_pending; ///< the authorization page each flow waits on
};

} // namespace mcpscope
