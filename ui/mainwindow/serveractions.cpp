#include "serveractions.h"

#include "dialogs/serverdialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/workspacesession.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QElapsedTimer>
#include <QIcon>
#include <QMessageBox>
#include <QPointer>

#include <memory>

namespace mcpscope {

ServerActions::ServerActions(
    WorkspaceSession* session, std::function<ServerConnection*()> currentConnection, QWidget* window)
    : QObject(window)
    , m_session(session)
    , m_currentConnection(std::move(currentConnection))
    , m_window(window)
{
    m_newServer = new QAction(tr("&New Server…"), window);
    m_newServer->setShortcut(QKeySequence::New);
    connect(m_newServer, &QAction::triggered, this, &ServerActions::addServer);
    m_connect = add(tr("&Connect"), [](ServerConnection* c) { c->connectToServer(); });
    m_disconnect = add(tr("&Disconnect"), [](ServerConnection* c) { c->disconnectFromServer(); });
    m_reconnect = add(tr("&Reconnect Now"), [](ServerConnection* c) { c->reconnectNow(); });
    m_reconnect->setShortcut(Qt::Key_F5);
    m_ping = add(tr("&Ping"), [this](ServerConnection* c) { ping(c); });
    m_ping->setObjectName(QStringLiteral("pingAction"));
    m_ping->setIcon(QIcon(QStringLiteral(":/icons/ping.svg")));
    m_connectAll = new QAction(tr("Connect &All"), window);
    connect(m_connectAll, &QAction::triggered, m_session->engine(), &Engine::connectAll);
    m_edit = add(tr("&Edit…"), [this](ServerConnection* c) { editServer(c); });
    m_duplicate = add(
        tr("D&uplicate"), [this](ServerConnection* c) { Q_EMIT serverAdded(m_session->duplicateServer(c->name())); });
    m_remove = add(tr("Re&move"), [this](ServerConnection* c) { removeServer(c); });
    m_copySessionId = add(
        tr("Copy Session &Id"), [](ServerConnection* c) { QApplication::clipboard()->setText(c->shownSessionId()); });
    refresh();
}

void ServerActions::refresh()
{
    using State = ServerConnection::State;
    ServerConnection* c = m_currentConnection();
    const QString none = tr("Select a server in the Servers list first.");
    const auto set = [](QAction* action, bool enabled, const QString& why) {
        action->setEnabled(enabled);
        action->setToolTip(enabled ? action->text().remove(QLatin1Char('&')) : why);
        action->setStatusTip(enabled ? QString() : why);
    };
    const State state = c ? c->state() : State::Disconnected;
    const bool live = state == State::Ready || state == State::Connecting || state == State::Initializing
        || state == State::Suspect || state == State::Reconnecting;
    const bool down = state == State::Disconnected || state == State::Closed;
    set(m_connect, c && !live, c ? tr("%1 is already connected or connecting.").arg(c->name()) : none);
    set(m_disconnect, c && !down, c ? tr("%1 is not connected.").arg(c->name()) : none);
    set(m_reconnect, c && !down, c ? tr("%1 is not connected: use Connect.").arg(c->name()) : none);
    for (QAction* action : { m_edit, m_duplicate, m_remove })
        set(action, c != nullptr, none);
    set(m_copySessionId, c && !c->shownSessionId().isEmpty(),
        c ? tr("%1 has no session id (not connected, or the server assigns none).").arg(c->name()) : none);
    set(m_connectAll, !m_session->serverNames().isEmpty(), tr("The workspace has no servers yet: add one (Ctrl+N)."));
    const bool up = state == State::Ready || state == State::Suspect;
    // The 2026-07-28 revision has no ping: a modern server is never offered one.
    const bool modern = c && c->session() && c->session()->isModern();
    set(m_ping, c && up && !modern,
        !c           ? none
            : modern ? tr("Ping: %1 speaks MCP 2026-07-28, which has no ping (sessionless: each request stands alone).")
                           .arg(c->name())
                     : tr("Ping: %1 is not connected (%2)").arg(c->name(), ServerConnection::stateName(state)));
}

void ServerActions::ping(ServerConnection* c)
{
    const QString name = c->name();
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    const QPointer<ServerActions> self(this);
    m_session->engine()->call(name, QStringLiteral("ping"), {}, {}, [self, name, timer](const CallRecord& record) {
        if (!self)
            return;
        const double ms = double(timer->nsecsElapsed()) / 1e6;
        const QString at = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
        QString text;
        if (record.outcome == CallOutcome::Success) {
            text = tr("%1 ms at %2").arg(QString::number(ms, 'f', 1), at);
            Q_EMIT self->statusMessage(tr("Ping %1: %2 ms round trip").arg(name, QString::number(ms, 'f', 1)));
        } else {
            const QString why = record.error.value(QLatin1String("message")).toString();
            text = tr("failed at %1: %2").arg(at, why.isEmpty() ? outcomeName(record.outcome) : why);
            Q_EMIT self->statusMessage(
                tr("Ping to '%1' failed (%2): %3")
                    .arg(name, outcomeName(record.outcome), why.isEmpty() ? tr("no answer") : why));
        }
        self->m_lastPing.insert(name, text);
        Q_EMIT self->pinged(name);
    });
}

QList<QAction*> ServerActions::menuActions() const
{
    return { m_connect, m_disconnect, m_reconnect, m_ping, m_connectAll, nullptr, m_edit, m_duplicate, m_remove,
        m_copySessionId };
}

QList<QAction*> ServerActions::contextActions() const
{
    return { m_connect, m_disconnect, m_reconnect, m_ping, m_edit, m_duplicate, m_remove, m_copySessionId };
}

QAction* ServerActions::add(const QString& text, std::function<void(ServerConnection*)> run)
{
    auto* action = new QAction(text, m_window);
    connect(action, &QAction::triggered, this, [this, run = std::move(run)] {
        if (ServerConnection* c = m_currentConnection())
            run(c);
    });
    return action;
}

void ServerActions::addServer()
{
    ServerDialog dialog(m_session->serverNames(), m_window);
    dialog.setWindowTitle(tr("New Server"));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ServerConfig config = dialog.config();
    m_session->addServer(config);
    applyCredentials(config.name, dialog);
    Q_EMIT serverAdded(config.name);
    Q_EMIT serverCreated(config.name);
}

void ServerActions::editCredentials(ServerConnection* c)
{
    if (c)
        editServer(c, true);
}

void ServerActions::editServer(ServerConnection* c, bool focusCredentials)
{
    QStringList others = m_session->serverNames();
    others.removeAll(c->name());
    ServerDialog dialog(others, m_window);
    dialog.setConfig(c->config());
    if (const ServerAuth* auth = c->auth())
        dialog.setStoredCredentials(auth->hasClientSecret(), auth->hasClientKey());
    dialog.setWindowTitle(tr("Edit %1").arg(c->name()));
    if (focusCredentials)
        dialog.focusCredentials();
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ServerConfig config = dialog.config();
    m_session->changeServer(c->name(), config);
    applyCredentials(config.name, dialog);
    Q_EMIT statusMessage(tr("Server %1 changed; reconnect (F5) to apply transport changes.").arg(config.name));
}

void ServerActions::routeThroughFaultProxy(ServerConnection* c)
{
    if (!c || !c->config().isHttp() || c->config().viaFaultProxy)
        return;
    using State = ServerConnection::State;
    const QString name = c->name();
    const bool wasConnected = c->state() != State::Disconnected && c->state() != State::Closed;
    ServerConfig config = c->config();
    config.viaFaultProxy = true;
    m_session->changeServer(name, config);
    ServerConnection* changed = m_session->engine()->connection(name);
    if (changed && wasConnected) {
        // The proxy starts with the next connect; the session ends and a new one goes through it.
        changed->disconnectFromServer();
        changed->connectToServer();
    }
    Q_EMIT statusMessage(wasConnected ? tr("Server %1 now goes through the fault proxy; reconnecting.").arg(name)
                                      : tr("Server %1 goes through the fault proxy from its next connect.").arg(name));
}

void ServerActions::applyCredentials(const QString& server, const ServerDialog& dialog)
{
    const ServerDialog::CredentialChange change = dialog.credentialChange();
    if (!change.changed)
        return;
    // After changeServer: a renamed server is a new connection, whose ServerAuth keys its store entry by name.
    ServerConnection* c = m_session->engine()->connection(server);
    if (!c || !c->auth())
        return;
    c->auth()->setClientCredentials(dialog.config().oauthClientId, change.clientSecret, change.clientKeyPem);
    Q_EMIT statusMessage(
        tr("Server %1: the client credentials are stored in %2.").arg(server, c->auth()->storeDescription()));
}

void ServerActions::removeServer(ServerConnection* c)
{
    const QString name = c->name();
    if (QMessageBox::question(m_window, tr("Remove server"), tr("Remove '%1' from the workspace?").arg(name))
        != QMessageBox::Yes)
        return;
    m_session->removeServer(name);
}

} // namespace mcpscope
