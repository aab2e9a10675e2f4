#include "authcontroller.h"

#include "engine/serverauth.h"
#include "engine/serverconnection.h"
#include "mainwindow/authview.h"

#include <QDesktopServices>

namespace mcpscope {

AuthController::AuthController(AuthView* view, QObject* parent)
    : QObject(parent)
    , m_view(view)
{
    connect(m_view, &AuthView::authorizeRequested, this, [this] {
        if (m_auth)
            m_auth->authorizeNow();
    });
    connect(m_view, &AuthView::refreshRequested, this, [this] {
        if (m_auth)
            m_auth->refreshNow();
    });
    connect(m_view, &AuthView::forgetRequested, this, [this] {
        if (m_auth)
            m_auth->forgetTokens();
    });
    connect(m_view, &AuthView::editCredentialsRequested, this, &AuthController::editCredentialsRequested);
    connect(m_view, &AuthView::openAuthorizationRequested, this, [this](const QUrl& url) {
        if (m_auth && url.isValid())
            QDesktopServices::openUrl(url);
    });
}

void AuthController::watch(ServerConnection* connection)
{
    ServerAuth* auth = connection ? connection->auth() : nullptr;
    // Once per ServerAuth: the window calls this on every server it sees, as often as it likes.
    if (!auth || auth->property("mcpscopeWatched").toBool())
        return;
    auth->setProperty("mcpscopeWatched", true);
    QPointer<ServerConnection> server(connection);
    connect(auth, &ServerAuth::browserNeeded, this,
        [this, auth, server](const QUrl& url) { openBrowser(auth, server ? server->name() : QString(), url); });
    connect(auth, &ServerAuth::problem, this, &AuthController::statusMessage);
    connect(auth, &ServerAuth::stateChanged, this, [this, auth](ServerAuth::State state) {
        if (state != ServerAuth::State::NeedsUser)
            m_pending.remove(auth);
    });
    connect(auth, &QObject::destroyed, this, [this, auth] { m_pending.remove(auth); });
}

void AuthController::openBrowser(ServerAuth* auth, const QString& server, const QUrl& url)
{
    m_pending.insert(auth, url);
    Q_EMIT statusMessage(tr("Server '%1' needs authorization: the authorization page opens in your browser (%2).")
                             .arg(server, url.host()));
    if (!QDesktopServices::openUrl(url))
        Q_EMIT statusMessage(tr("Server '%1': no browser could be opened. Open the authorization page yourself from "
                                "the Auth tab.")
                                 .arg(server));
    if (auth == m_auth)
        refresh();
}

void AuthController::show(ServerConnection* connection)
{
    ServerAuth* auth = connection ? connection->auth() : nullptr;
    watch(connection);
    if (auth == m_auth)
        return refresh();
    // Only the connections for the shown server go: watch()'s stay for as long as the server exists.
    for (const QMetaObject::Connection& shown : std::as_const(m_shown))
        disconnect(shown);
    m_shown.clear();
    m_auth = auth;
    if (auth) {
        m_shown.append(connect(auth, &ServerAuth::stateChanged, this, &AuthController::refresh));
        m_shown.append(connect(auth, &ServerAuth::stepsChanged, this, [this] { m_view->setSteps(m_auth->steps()); }));
        m_shown.append(connect(auth, &ServerAuth::loaded, this, &AuthController::refresh));
        m_view->setSteps(auth->steps());
    } else {
        m_view->setSteps({});
    }
    refresh();
}

AuthSummary AuthController::summaryOf(const ServerAuth* auth, const QUrl& pendingAuthorization)
{
    AuthSummary summary;
    if (!auth)
        return summary;
    summary.state = auth->state();
    summary.lastError = auth->lastError();
    summary.expiresAt = auth->expiresAt();
    summary.hasToken = auth->client() && auth->client()->hasToken();
    summary.storePersistent = auth->storeIsPersistent();
    summary.storeDescription = auth->storeDescription();
    if (summary.state == ServerAuth::State::NeedsUser)
        summary.pendingAuthorization = pendingAuthorization;
    return summary;
}

void AuthController::refresh()
{
    m_view->setSummary(summaryOf(m_auth, m_pending.value(m_auth)));
    Q_EMIT stateChanged();
}

} // namespace mcpscope
