#pragma once

#include "calllog/callrecord.h"
#include "calllog/exportjob.h"
#include "config/workspace.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <optional>

namespace mcpscope {

class CallRecordStore;
class CallsModel;
class Engine;
class LogStore;
class ServerRequestQueue;

/// What the main window works on, without a widget (GammaRay's ClientConnectionManager): the engine and
/// its servers, the workspace file they come from, and the workspace's call log with its retention.
///
/// The call log is a LogStore fed from the engine (every call change, every wire message, each server's
/// secrets for its redactor). When the log of a workspace cannot be opened, and before any workspace is
/// open, records are kept in memory instead, so details and exports still work for this session.
///
/// Signals:
/// - statusMessage(text) when something about the call log is worth a line in the status bar (it
///   cannot be opened or written, it is written again, retention removed calls);
/// - logStatusChanged() when logStatus() may have changed: at most once a second while commits arrive,
///   and at once on errors, retention and a newly opened log;
/// - modifiedChanged(modified) when the servers start or stop differing from the file last opened or
///   saved (added, edited, copied, removed or imported servers make the workspace modified). The era an
///   auto server's probe found is no edit: it is written into the workspace file at once (knownEra).
class WorkspaceSession : public QObject
{
    Q_OBJECT
public:
    /// The newest calls of earlier sessions shown when a workspace's call log opens.
    static constexpr qsizetype HistoryLimit = 100000;

    explicit WorkspaceSession(QObject* parent = nullptr);
    ~WorkspaceSession() override;

    Engine* engine() const { return m_engine; }
    LogStore* logStore() const { return m_logStore; }
    /// The server requests that wait for the user (sampling, elicitation).
    ServerRequestQueue* serverRequests() const { return m_responder; }
    const Workspace& workspace() const { return m_workspace; }
    QStringList serverNames() const;

    /// The table of calls: earlier sessions' calls are loaded into it when a workspace opens, and its
    /// live rows count towards the call-log indicator.
    void setCallsModel(CallsModel* model);

    /// Replaces the servers with those of the workspace or mcp.json file at path and opens that
    /// workspace's call log. On failure returns false with *error (naming the file) and changes nothing.
    bool openWorkspace(const QString& path, QString* error);
    /// Adds the servers of an mcp.json dialect (names made unique); returns their names, or nullopt
    /// with *error.
    std::optional<QStringList> importServers(const QString& path, QString* error);
    void addServer(const ServerConfig& config);
    /// Replaces the configuration of server name (which may rename it).
    void changeServer(const QString& name, const ServerConfig& config);
    /// Adds a copy of server name under a new name, and returns that name.
    QString duplicateServer(const QString& name);
    void removeServer(const QString& name);
    /// Where saveWorkspace() may write without asking: empty for a new workspace, or one read from
    /// another client's file, whose configuration saving would replace.
    QString savePath() const;
    bool saveWorkspace(const QString& path, QString* error);
    /// True when servers were added, edited, copied, removed or imported since the workspace was
    /// opened or saved: quitting then asks whether to save.
    bool isModified() const { return m_modified; }

    /// Where the call log of the workspace at workspacePath lives: $MCPSCOPE_LOG_DIR or the
    /// application data folder, one database per workspace file.
    static QString logStorePathFor(const QString& workspacePath);
    /// Retention of the workspace's call log, persisted in the settings. 0 turns a limit off.
    void setLogRetention(int maxAgeDays, int maxMegabytes);

    /// The call-log indicator: size, retention, and write errors (failing is then true).
    struct LogStatus
    {
        QString text;
        QString toolTip;
        bool failing = false;
    };
    LogStatus logStatus() const;

    /// The newest version of a call, from memory or from the call log; deliver runs on the GUI thread,
    /// unless context is gone by then.
    void lookupRecord(
        const QString& callId, QObject* context, std::function<void(std::optional<CallRecord>)> deliver) const;
    /// What CallsExporter needs: the database to read (after everything appended so far is committed)
    /// and the secrets to redact, or the records kept in memory, in the order visibleCalls() gives.
    bool fillExportSource(ExportRequest& request, const std::function<QStringList()>& visibleCalls, QString* error);

Q_SIGNALS:
    void statusMessage(const QString& text);
    void logStatusChanged();
    void modifiedChanged(bool modified);

private:
    void openLogStore(const QString& workspacePath);
    /// An auto server's probe found its era: the workspace keeps it as knownEra, in memory and in its file
    /// (only that field, so unsaved edits stay unsaved), and the next start skips the probe. The file is
    /// written for all servers found within EraWriteDelayMs at once, and before the workspace closes.
    void rememberEra(const QString& server, ProtocolEra era);
    void writePendingEras();
    static constexpr int EraWriteDelayMs = 250;
    void setModified(bool modified);

    Engine* m_engine = nullptr;
    ServerRequestQueue* m_responder = nullptr;
    Workspace m_workspace;
    LogStore* m_logStore = nullptr;
    /// Keeps records in memory when the log store cannot be opened, so details stay available.
    CallRecordStore* m_fallbackStore = nullptr;
    QPointer<CallsModel> m_callsModel;
    QString m_logError;
    qsizetype m_historyShown = 0;
    qint64 m_storedAtOpen = 0;
    quint64 m_logGeneration = 0;
    QTimer m_logStatusTimer;
    QTimer m_eraTimer;
    QHash<QString, ProtocolEra> m_pendingEras;
    QString m_pendingErasPath;
    bool m_modified = false;
};

} // namespace mcpscope
