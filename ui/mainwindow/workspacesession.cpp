#include "workspacesession.h"

#include "calllog/callrecordstore.h"
#include "calllog/logstore.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/serverrequestqueue.h"
#include "models/callsmodel.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

#include <chrono>
#include <climits>
#include <future>
#include <utility>

namespace mcpscope {

WorkspaceSession::WorkspaceSession(QObject* parent)
    : QObject(parent)
    , m_engine(new Engine(this))
{
    // Server requests (sampling, elicitation) wait in the server requests panel, unless the server's entry has
    // a canned answer; roots come from the server's configured folders.
    m_responder = new ServerRequestQueue();
    m_responder->setAutoReplies([this](const QString& server) {
        const ServerConnection* connection = m_engine ? m_engine->connection(server) : nullptr;
        return connection ? connection->config().autoReply : QJsonObject();
    });
    m_responder->watch(m_engine);
    m_engine->setResponder(m_responder);
    // An authorization-code flow opens the system browser; the redirect comes back to a loopback listener.
    m_engine->setAuthBrowser(ServerAuth::Browser::External);

    m_logStore = new LogStore(this);
    // Until a workspace's call log is open, records are kept in memory.
    m_fallbackStore = new CallRecordStore(this);
    connect(m_engine, &Engine::callUpdated, m_fallbackStore, &CallRecordStore::ingest);

    connect(m_logStore, &LogStore::writeFailed, this, [this](const QString& message) {
        const bool first = m_logError.isEmpty();
        m_logError = message;
        Q_EMIT logStatusChanged();
        if (first)
            Q_EMIT statusMessage(
                tr("The call log cannot be written: %1 Calls are kept in memory and saving is retried.").arg(message));
    });
    // The indicator follows commits, at most once a second (counting calls is a query).
    m_logStatusTimer.setSingleShot(true);
    m_logStatusTimer.setInterval(1000);
    connect(&m_logStatusTimer, &QTimer::timeout, this, &WorkspaceSession::logStatusChanged);
    m_eraTimer.setSingleShot(true);
    m_eraTimer.setInterval(EraWriteDelayMs);
    connect(&m_eraTimer, &QTimer::timeout, this, &WorkspaceSession::writePendingEras);
    connect(m_logStore, &LogStore::committed, this, [this] {
        if (!m_logStatusTimer.isActive())
            m_logStatusTimer.start();
        if (m_logError.isEmpty())
            return;
        m_logError.clear();
        Q_EMIT statusMessage(tr("The call log is being written again (%1).").arg(m_logStore->path()));
        Q_EMIT logStatusChanged();
    });
    connect(m_logStore, &LogStore::pruned, this, [this](int calls, int wireRows) {
        if (calls > 0 || wireRows > 0)
            Q_EMIT statusMessage(tr("Retention removed %n old call(s) from the call log", nullptr, calls)
                + tr(" and %n wire message(s).", nullptr, wireRows));
        Q_EMIT logStatusChanged();
    });
    // The log store knows no engine: it takes every call change and wire message from here, and each
    // server's secrets for its redactor. A closed store drops what it is given.
    connect(m_engine, &Engine::callUpdated, m_logStore, &LogStore::append);
    connect(m_engine, &Engine::traffic, m_logStore,
        [this](const QString& server, WireDirection direction, const QByteArray& bytes) {
            m_logStore->appendWire(server, direction, bytes, QDateTime::currentMSecsSinceEpoch());
        });
    connect(m_engine, &Engine::serverAdded, m_logStore,
        [this](ServerConnection* connection) { m_logStore->addServer(connection->config()); });
    connect(m_engine, &Engine::serverAdded, this, [this](ServerConnection* connection) {
        connect(connection, &ServerConnection::eraDetected, this,
            [this, connection](ProtocolEra era) { rememberEra(connection->name(), era); });
    });
    connect(m_engine, &Engine::redactorChanged, m_logStore, [this] { m_logStore->setRedactor(m_engine->redactor()); });
}

WorkspaceSession::~WorkspaceSession()
{
    writePendingEras();
    // The calls in flight end as interrupted while the log store still follows the engine; the store
    // commits them when it closes, right after.
    m_engine->shutDown();
    // Sessions close before the responder they may still call goes away.
    delete m_engine;
    m_engine = nullptr;
    delete m_responder;
}

QStringList WorkspaceSession::serverNames() const
{
    QStringList names;
    for (const ServerConnection* c : m_engine->connections())
        names.append(c->name());
    return names;
}

void WorkspaceSession::setCallsModel(CallsModel* model)
{
    m_callsModel = model;
}

bool WorkspaceSession::openWorkspace(const QString& path, QString* error)
{
    ConfigError configError;
    auto workspace = Workspace::load(path, &configError);
    if (!workspace) {
        *error = configError.toString();
        return false;
    }
    const QList<ServerConnection*> existing = m_engine->connections();
    for (ServerConnection* c : existing)
        m_engine->removeServer(c->name());
    writePendingEras();
    m_workspace = *workspace;
    for (const ServerConfig& config : std::as_const(m_workspace.servers))
        m_engine->addServer(config);
    openLogStore(path);
    setModified(false);
    return true;
}

std::optional<QStringList> WorkspaceSession::importServers(const QString& path, QString* error)
{
    ConfigError configError;
    auto imported = Workspace::load(path, &configError);
    if (!imported) {
        *error = configError.toString();
        return std::nullopt;
    }
    QStringList added;
    for (ServerConfig config : std::as_const(imported->servers)) {
        const QString base = config.name;
        for (int n = 2; serverNames().contains(config.name); ++n)
            config.name = base + QStringLiteral(" (%1)").arg(n);
        // Variables the imported file wrote stay variables where they still mean the same on save.
        if (const auto raw = imported->rawForms.constFind(base); raw != imported->rawForms.constEnd())
            m_workspace.rawForms.insert(config.name, *raw);
        addServer(config);
        added.append(config.name);
    }
    return added;
}

void WorkspaceSession::addServer(const ServerConfig& config)
{
    m_workspace.servers.append(config);
    m_engine->addServer(config);
    setModified(true);
}

void WorkspaceSession::changeServer(const QString& name, const ServerConfig& config)
{
    ServerConnection* c = m_engine->connection(name);
    if (!c)
        return;
    bool changed = false;
    for (ServerConfig& s : m_workspace.servers) {
        if (s.name == name) {
            changed = changed || !(s == config);
            s = config;
        }
    }
    if (config.name != name && m_workspace.rawForms.contains(name))
        m_workspace.rawForms.insert(config.name, m_workspace.rawForms.take(name));
    // OK in the dialog without an edit leaves the workspace as saved.
    if (changed)
        setModified(true);
    m_logStore->addServer(config);
    if (config.name != name) {
        m_engine->removeServer(name);
        m_engine->addServer(config);
    } else {
        // Through the engine: a server edited from stdio to HTTP gets its ServerAuth there.
        m_engine->addServer(config);
    }
}

QString WorkspaceSession::duplicateServer(const QString& name)
{
    ServerConnection* c = m_engine->connection(name);
    if (!c)
        return {};
    ServerConfig copy = c->config();
    const QString base = copy.name + tr(" copy");
    copy.name = base;
    for (int n = 2; serverNames().contains(copy.name); ++n)
        copy.name = base + QStringLiteral(" %1").arg(n);
    if (const auto raw = m_workspace.rawForms.constFind(name); raw != m_workspace.rawForms.constEnd())
        m_workspace.rawForms.insert(copy.name, *raw);
    addServer(copy);
    return copy.name;
}

void WorkspaceSession::removeServer(const QString& name)
{
    m_workspace.servers.removeIf([&name](const ServerConfig& s) { return s.name == name; });
    m_workspace.rawForms.remove(name);
    m_engine->removeServer(name);
    setModified(true);
}

QString WorkspaceSession::savePath() const
{
    return m_workspace.dialect == McpJsonImport::Dialect::McpScopeWorkspace ? m_workspace.filePath : QString();
}

bool WorkspaceSession::saveWorkspace(const QString& path, QString* error)
{
    if (!m_workspace.save(path, error))
        return false;
    m_workspace.filePath = QFileInfo(path).absoluteFilePath();
    m_workspace.dialect = McpJsonImport::Dialect::McpScopeWorkspace;
    setModified(false);
    return true;
}

void WorkspaceSession::rememberEra(const QString& server, ProtocolEra era)
{
    bool changed = false;
    for (ServerConfig& s : m_workspace.servers) {
        if (s.name == server) {
            changed = changed || s.knownEra != era;
            s.knownEra = era;
        }
    }
    const QString path = savePath();
    if (!changed || path.isEmpty())
        return; // known already, or a new workspace or another client's file: the next save writes it
    // Written together a moment later: a workspace of 100 servers that all connect at once read and wrote
    // its file once per server, on the GUI thread, as each probe answered.
    if (path != m_pendingErasPath)
        writePendingEras();
    m_pendingErasPath = path;
    m_pendingEras.insert(server, era);
    if (!m_eraTimer.isActive())
        m_eraTimer.start();
}

void WorkspaceSession::writePendingEras()
{
    m_eraTimer.stop();
    if (m_pendingEras.isEmpty())
        return;
    const QHash<QString, ProtocolEra> eras = std::exchange(m_pendingEras, {});
    const QString path = std::exchange(m_pendingErasPath, {});
    QStringList names = eras.keys();
    names.sort();
    const auto failed = [&](const QString& why) {
        Q_EMIT statusMessage(tr("Could not remember the protocol era of %1 in %2: %3")
                                 .arg(names.join(QStringLiteral(", ")), QDir::toNativeSeparators(path), why));
    };
    // The file as it is on disk with only these servers' knownEra changed: edits not saved yet stay unsaved.
    ConfigError configError;
    std::optional<Workspace> onDisk = Workspace::load(path, &configError);
    if (!onDisk) {
        failed(configError.toString());
        return;
    }
    bool changed = false;
    for (ServerConfig& s : onDisk->servers) {
        const auto era = eras.constFind(s.name);
        if (era != eras.constEnd() && s.era == ProtocolEra::Auto && s.knownEra != *era) {
            s.knownEra = *era;
            changed = true;
        }
    }
    QString error;
    if (changed && !onDisk->save(path, &error))
        failed(error);
}

void WorkspaceSession::setModified(bool modified)
{
    if (m_modified == modified)
        return;
    m_modified = modified;
    Q_EMIT modifiedChanged(modified);
}

QString WorkspaceSession::logStorePathFor(const QString& workspacePath)
{
    QString dir = qEnvironmentVariable("MCPSCOPE_LOG_DIR");
    if (dir.isEmpty())
        dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/logs");
    const QFileInfo workspace(workspacePath);
    const QByteArray hash
        = QCryptographicHash::hash(workspace.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(8);
    return QDir(dir).filePath(
        QStringLiteral("%1-%2.mcpscope-log").arg(workspace.completeBaseName(), QString::fromLatin1(hash)));
}

void WorkspaceSession::openLogStore(const QString& workspacePath)
{
    m_logStore->close();
    m_logError.clear();
    const QString path = logStorePathFor(workspacePath);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QString error;
    m_logStore->setRedactor(m_engine->redactor());
    if (!m_logStore->open(path, &error)) {
        // The app keeps working: calls stay in memory (and can still be exported) for this session.
        m_logError = error;
        if (!m_fallbackStore) {
            m_fallbackStore = new CallRecordStore(this);
            connect(m_engine, &Engine::callUpdated, m_fallbackStore, &CallRecordStore::ingest);
        }
        Q_EMIT statusMessage(
            tr("The call log cannot be opened: %1 Calls are kept in memory only for this session.").arg(error));
        Q_EMIT logStatusChanged();
        return;
    }
    delete m_fallbackStore;
    m_fallbackStore = nullptr;
    QSettings settings;
    m_logStore->setRetention(settings.value(QStringLiteral("log/retentionDays"), 0).toInt(),
        settings.value(QStringLiteral("log/retentionMegabytes"), 0).toLongLong() * 1024 * 1024);

    // Earlier sessions' calls, newest HistoryLimit of them; details load from the database on demand. Both
    // reads run on the store's reader thread; a later open's answers replace these.
    if (m_callsModel)
        m_callsModel->clear();
    m_historyShown = 0;
    m_storedAtOpen = 0;
    const quint64 generation = ++m_logGeneration;
    m_logStore->readRecentCalls(HistoryLimit, this, [this, generation](QList<CallSummary> history) {
        if (generation != m_logGeneration || !m_callsModel)
            return;
        std::reverse(history.begin(), history.end());
        // Calls of this session that arrived meanwhile are not history.
        const int live = m_callsModel->rowCount();
        for (const CallSummary& summary : std::as_const(history))
            m_callsModel->ingestColumns(summary);
        m_callsModel->flush();
        m_historyShown = m_callsModel->rowCount() - live;
        Q_EMIT logStatusChanged();
    });
    m_logStore->readCallCount(this, [this, generation](qint64 count) {
        if (generation != m_logGeneration)
            return;
        // The count includes the live calls not committed yet, which the table counts already.
        const int rows = m_callsModel ? m_callsModel->rowCount() : 0;
        m_storedAtOpen = count - (rows - m_historyShown);
        Q_EMIT logStatusChanged();
    });
    Q_EMIT logStatusChanged();
}

WorkspaceSession::LogStatus WorkspaceSession::logStatus() const
{
    LogStatus status;
    status.failing = !m_logError.isEmpty();
    if (!m_logStore->isOpen()) {
        status.text = m_logError.isEmpty() ? tr("Call log: none (open a workspace)") : tr("Call log: in memory only");
        status.toolTip = m_logError;
        return status;
    }
    // Counted once at open, then followed through the table: callCount() queries every call not
    // yet committed, too slow to run each second while thousands are queued.
    const int rows = m_callsModel ? m_callsModel->rowCount() : 0;
    const qint64 calls = std::max<qint64>(0, m_storedAtOpen + (rows - m_historyShown) - m_logStore->prunedCalls());
    QString text = tr("Call log: %L1 call(s)", nullptr, int(std::min<qint64>(calls, INT_MAX))).arg(calls);
    QStringList limits;
    if (m_logStore->retentionDays() > 0)
        limits.append(tr("%n day(s)", nullptr, m_logStore->retentionDays()));
    if (m_logStore->retentionBytes() > 0)
        limits.append(tr("%L1 MB").arg(m_logStore->retentionBytes() / (1024 * 1024)));
    text += limits.isEmpty() ? tr(" · kept forever") : tr(" · kept %1").arg(limits.join(tr(" / ")));
    if (m_logStore->prunedCalls() > 0)
        text += tr(" · %L1 pruned").arg(m_logStore->prunedCalls());
    QString tip = m_logStore->path();
    if (m_historyShown >= HistoryLimit)
        tip += tr("\nThe table shows the newest %L1 calls of earlier sessions.").arg(HistoryLimit);
    if (!m_logError.isEmpty()) {
        text += tr(" · NOT SAVING");
        tip = m_logError;
    }
    status.text = text;
    status.toolTip = tip;
    return status;
}

void WorkspaceSession::setLogRetention(int maxAgeDays, int maxMegabytes)
{
    QSettings settings;
    settings.setValue(QStringLiteral("log/retentionDays"), maxAgeDays);
    settings.setValue(QStringLiteral("log/retentionMegabytes"), maxMegabytes);
    m_logStore->setRetention(maxAgeDays, qint64(maxMegabytes) * 1024 * 1024);
    if (m_logStore->isOpen())
        m_logStore->pruneNow();
    Q_EMIT logStatusChanged();
}

void WorkspaceSession::lookupRecord(
    const QString& callId, QObject* context, std::function<void(std::optional<CallRecord>)> deliver) const
{
    if (m_fallbackStore)
        deliver(m_fallbackStore->record(callId));
    else
        m_logStore->readRecord(callId, context, std::move(deliver));
}

bool WorkspaceSession::fillExportSource(
    ExportRequest& request, const std::function<QStringList()>& visibleCalls, QString* error)
{
    request.redactor = m_engine->redactor();
    if (m_fallbackStore) {
        // No database: export what is in memory.
        for (const QString& callId : visibleCalls()) {
            if (auto record = m_fallbackStore->record(callId))
                request.records.append(*record);
        }
        return true;
    }
    if (!m_logStore->isOpen()) {
        *error = tr("no call log is open");
        return false;
    }
    // Everything appended so far must be in the database the export reads: the export's worker waits
    // for the store's commit, the GUI thread does not.
    auto committed = std::make_shared<std::promise<QString>>();
    std::shared_future<QString> written = committed->get_future().share();
    m_logStore->flushThen(this, [this, committed](bool ok, const QString& message) {
        committed->set_value(ok ? QString()
                                : tr("the call log %1 could not save the newest calls (%2)")
                                      .arg(m_logStore->path(), message.isEmpty() ? m_logError : message));
    });
    request.beforeRead = [written](QString* error) {
        if (written.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
            *error = tr("the call log could not save the newest calls (timed out)");
            return false;
        }
        *error = written.get();
        return error->isEmpty();
    };
    request.storePath = m_logStore->path();
    return true;
}

} // namespace mcpscope
