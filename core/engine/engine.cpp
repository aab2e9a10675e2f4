#include "engine.h"

#include "auth/tokenstore.h"
#include "jsonrpc/pagedlist.h"
#include "tasktracker.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QMetaMethod>
#include <QPointer>
#include <QTimer>

#include <utility>

namespace mcpscope {

Engine::Engine(QObject* parent)
    : QObject(parent)
    , m_tasks(new TaskTracker(this))
{ }

Engine::~Engine()
{
    m_shuttingDown = true;
    interruptCalls(false);
    // Each connection leaves the list before it is deleted: whoever follows its destroyed() and asks for
    // connections() (the servers list, then the window's actions) sees only live ones.
    while (!m_connections.isEmpty())
        delete m_connections.takeFirst();
}

void Engine::setTokenStore(std::shared_ptr<TokenStore> store)
{
    m_tokenStore = std::move(store);
}

std::shared_ptr<TokenStore> Engine::tokenStore()
{
    if (!m_tokenStore) {
        // One probe of the keychain per process: every engine (the app has one, tests make many) shares it.
        static std::weak_ptr<TokenStore> shared;
        m_tokenStore = shared.lock();
        if (!m_tokenStore) {
            m_tokenStore = TokenStore::createDefault();
            shared = m_tokenStore;
        }
    }
    return m_tokenStore;
}

void Engine::shutDown()
{
    m_shuttingDown = true;
    interruptCalls(true);
}

void Engine::interruptCalls(bool tellCallers)
{
    // Copies: a call's done may remove a server.
    QList<QPointer<ServerConnection>> connections;
    for (ServerConnection* c : std::as_const(m_connections))
        connections.append(c);
    for (const QPointer<ServerConnection>& c : std::as_const(connections)) {
        if (c)
            c->interruptCalls(tellCallers);
    }
}

void Engine::connectNotify(const QMetaMethod& signal)
{
    static const QMetaMethod trafficSignal = QMetaMethod::fromSignal(&Engine::traffic);
    if (signal == trafficSignal && !m_trafficWatched) {
        m_trafficWatched = true;
        for (ServerConnection* connection : std::as_const(m_connections))
            forwardTraffic(connection);
    }
    QObject::connectNotify(signal);
}

void Engine::forwardTraffic(ServerConnection* connection)
{
    const Redactor* redactor = m_redactor.get();
    // The name is read at each signal: it is the connection's identity in the engine.
    connect(connection, &ServerConnection::traffic, this,
        [this, connection, redactor](WireDirection direction, const QByteArray& bytes) {
            Q_EMIT traffic(connection->name(), direction, redactor->redactWire(bytes));
        });
}

ServerConnection* Engine::addServer(const ServerConfig& config)
{
    if (ServerConnection* existing = connection(config.name)) {
        existing->setConfig(config);
        if (config.isHttp())
            existing->enableAuth(tokenStore(), m_authBrowser, m_authAdjust);
        Q_EMIT redactorChanged();
        return existing;
    }
    auto* connection = new ServerConnection(config, this);
    connection->setResponder(m_responder);
    connection->shareRedactor(m_redactor);
    const Redactor* redactor = m_redactor.get();
    // The name is read at each signal: it is the connection's identity in the engine.
    connect(connection, &ServerConnection::callUpdated, this, [this, redactor](const CallRecord& record) {
        if (!redactor->hasSecretValues()) {
            Q_EMIT callUpdated(record);
            return;
        }
        CallRecord scrubbed = record;
        redactor->scrubRecord(scrubbed);
        Q_EMIT callUpdated(scrubbed);
    });
    if (m_trafficWatched)
        forwardTraffic(connection);
    connect(connection, &ServerConnection::serverLog, this, [this, connection, redactor](const QString& line) {
        Q_EMIT serverLog(connection->name(), redactor->redactText(line));
    });
    connect(connection, &ServerConnection::notice, this, [this, connection, redactor](const QString& text) {
        Q_EMIT notice(connection->name(), redactor->redactText(text));
    });
    connect(connection, &ServerConnection::logMessage, this,
        [this, connection, redactor](const QString& level, const QString& logger, const QJsonValue& data) {
            Q_EMIT logMessage(connection->name(), level, redactor->redactText(logger), redactor->redactJson(data));
        });
    connect(connection, &ServerConnection::actionLogged, this,
        [this, connection, redactor](const QString& kind, const QString& text) {
            Q_EMIT actionLogged(connection->name(), kind, redactor->redactText(text));
        });
    connect(connection, &ServerConnection::secretLearned, this, &Engine::addCredential);
    if (config.isHttp())
        connection->enableAuth(tokenStore(), m_authBrowser, m_authAdjust);
    m_connections.append(connection);
    Q_EMIT redactorChanged();
    Q_EMIT serverAdded(connection);
    return connection;
}

void Engine::addCredential(const QString& value)
{
    m_redactor->addCredential(value);
    Q_EMIT redactorChanged();
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

QString Engine::call(const QString& server, const QString& method, const QJsonObject& params,
    const CallOptions& options, std::function<void(const CallRecord&)> done)
{
    if (m_shuttingDown)
        return endAtOnce(server, method, params, CallOutcome::Interrupted,
            tr("McpScope is stopping: the call to server '%1' was not sent.").arg(server), std::move(done));
    if (ServerConnection* c = connection(server)) {
        if (!done)
            return c->call(method, params, options, {});
        return c->call(
            method, params, options, [redactor = m_redactor, done = std::move(done)](const CallRecord& record) {
                if (!redactor->hasSecretValues())
                    return done(record);
                CallRecord scrubbed = record;
                redactor->scrubRecord(scrubbed);
                done(scrubbed);
            });
    }
    return endAtOnce(server, method, params, CallOutcome::NotDispatched,
        tr("No server named \"%1\" in this workspace").arg(server), std::move(done));
}

QString Engine::endAtOnce(const QString& server, const QString& method, const QJsonObject& params, CallOutcome outcome,
    const QString& message, std::function<void(const CallRecord&)> done)
{
    CallRecord r;
    r.callId = CallRecord::newCallId();
    r.server = server;
    r.method = method;
    r.tool = method == QLatin1String("tools/call") ? params.value(QLatin1String("name")).toString() : QString();
    r.arguments = r.tool.isEmpty() ? params : params.value(QLatin1String("arguments")).toObject();
    r.startedAt = r.endedAt = QDateTime::currentMSecsSinceEpoch();
    r.outcome = outcome;
    r.error = { { QStringLiteral("message"), message },
        { QStringLiteral("dispatch"), dispatchVerdictName(DispatchVerdict::NotDispatched) } };
    Q_EMIT callUpdated(r);
    if (done)
        done(r);
    return r.callId;
}

void Engine::list(const QString& server, const QString& method, const QString& key, const CallOptions& options,
    std::function<void(const CallRecord&)> done)
{
    listPage(server, method, key, QString(), std::make_shared<QJsonArray>(), options, std::move(done));
}

void Engine::listPage(const QString& server, const QString& method, const QString& key, const QString& cursor,
    std::shared_ptr<QJsonArray> items, const CallOptions& options, std::function<void(const CallRecord&)> done)
{
    QJsonObject params;
    if (!cursor.isNull())
        params.insert(QStringLiteral("cursor"), cursor);
    call(server, method, params, options,
        [this, server, method, key, items, options, done = std::move(done)](const CallRecord& record) mutable {
            if (record.outcome != CallOutcome::Success) {
                if (done)
                    done(record);
                return;
            }
            const QJsonObject result = record.result.toObject();
            const QString next = PagedList::appendPage(result, key, *items);
            if (!next.isNull()) {
                listPage(server, method, key, next, items, options, std::move(done));
                return;
            }
            CallRecord all = record;
            all.result = PagedList::merged(result, key, *items);
            if (done)
                done(all);
        });
}

void Engine::connectAll()
{
    for (ServerConnection* c : std::as_const(m_connections)) {
        if (!m_connectQueue.contains(c))
            m_connectQueue.append(c);
    }
    // Even the first pass waits for the event loop: whoever asked (opening a workspace, say) has held
    // the GUI thread for a while already, and one pass on top of that made the longest stall.
    if (!std::exchange(m_connectPassQueued, true))
        QTimer::singleShot(0, this, &Engine::connectQueued);
}

void Engine::connectQueued()
{
    // Starting a stdio server is a vfork and exec the calling thread waits for, 2 to 8 ms each: a workspace
    // of 100 servers held the GUI thread for most of a second in one pass. Passes of at most ConnectPassMs,
    // in order, with the event loop running in between.
    m_connectPassQueued = false;
    QElapsedTimer pass;
    pass.start();
    while (!m_connectQueue.isEmpty() && !m_shuttingDown) {
        if (pass.elapsed() >= ConnectPassMs) {
            m_connectPassQueued = true;
            QTimer::singleShot(0, this, &Engine::connectQueued);
            return;
        }
        if (const QPointer<ServerConnection> c = m_connectQueue.takeFirst())
            c->connectToServer();
    }
    m_connectQueue.clear();
}

} // namespace mcpscope
