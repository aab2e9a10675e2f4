#pragma once

#include "calllog/callrecord.h"
#include "calls/logviewerwindow.h"
#include "config/workspace.h"

#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTabWidget;
class QSortFilterProxyModel;
class QTableView;
class QToolBar;
class QTreeView;

namespace mcpscope {

class CallComposer;
class CallRecordStore;
class CallsExporter;
class CallsModel;
class CallsPanel;
class Engine;
class LogStore;
class ResultView;
class ServerConnection;
class ServerListModel;
class ServerListPresentation;
class TimelineView;
class ToolsModel;
class ToolsPresentation;
class TrafficModel;
class TrafficPresentation;
class ScriptedResponder;

/// McpScope's main window: servers (left), the selected server's overview, tools, composer and
/// result (centre), calls with their timelines and the traffic (docks), and the fault & trigger bar.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum class Theme { System, Light, Dark };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a workspace or mcp.json file; on failure shows the error (naming the file) and returns false.
    bool openWorkspace(const QString& path);
    /// Adds the servers of an mcp.json dialect to the workspace (names made unique).
    bool importFile(const QString& path);
    Engine* engine() const { return m_engine; }
    ServerConnection* currentConnection() const;
    void selectServer(const QString& name);
    void selectTool(const QString& name);
    /// Calls the selected tool with the composer's arguments (what Ctrl+Return does).
    void callSelectedTool();
    void selectCall(const QString& callId);
    void setTheme(Theme theme);
    /// Reads a JSONL call log on a worker thread and opens it read-only in a new window
    /// (logOpened), or reports what is wrong with it (logOpenFailed, and a message box if interactive).
    void openLogFile(const QString& path, bool interactive = false);
    /// Where the call log of the workspace at workspacePath lives: $MCPSCOPE_LOG_DIR or the
    /// application data folder, one database per workspace file.
    static QString logStorePathFor(const QString& workspacePath);
    /// Retention of the workspace's call log, persisted in the settings. 0 turns a limit off.
    void setLogRetention(int maxAgeDays, int maxMegabytes);

    // For screenshots and tests.
    QTableView* toolsView() const { return m_toolsView; }
    QTableView* callsView() const;
    TimelineView* timeline() const;
    ResultView* resultView() const { return m_result; }
    CallComposer* composer() const { return m_composer; }
    CallsModel* callsModel() const;
    CallsPanel* callsPanel() const { return m_calls; }
    CallsExporter* exporter() const { return m_exporter; }
    LogStore* logStore() const { return m_logStore; }
    /// The call-log indicator in the status bar (size, retention, write errors).
    QString logStatusText() const;
    QTabWidget* centreTabs() const { return m_centre; }

Q_SIGNALS:
    void logOpened(mcpscope::LogViewerWindow* window);
    void logOpenFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createCentre();
    void createDocks();
    void createFaultBar();
    void onServerSelected();
    void refreshOverview();
    void refreshFaultBar();
    void onCallUpdated(const CallRecord& record);
    void openLogStore(const QString& workspacePath);
    void refreshLogStatus();
    void editRetention();
    void lookupRecord(const QString& callId, std::function<void(std::optional<CallRecord>)> deliver);
    void addServer();
    void editServer();
    void duplicateServer();
    void removeServer();
    void saveWorkspace();
    void armFault();
    void setStatus(const QString& text);
    QStringList serverNames() const;

    Engine* m_engine = nullptr;
    ScriptedResponder* m_responder = nullptr;
    Workspace m_workspace;
    LogStore* m_logStore = nullptr;
    /// Keeps records in memory when the log store cannot be opened, so details stay available.
    CallRecordStore* m_fallbackStore = nullptr;
    QString m_logError;
    static constexpr qsizetype HistoryLimit = 100000;
    qsizetype m_historyShown = 0;
    qint64 m_storedAtOpen = 0;
    quint64 m_logGeneration = 0;
    QTimer m_logStatusTimer;
    ServerListModel* m_serverModel = nullptr;
    ServerListPresentation* m_serverPresentation = nullptr;
    ToolsModel* m_toolsModel = nullptr;
    ToolsPresentation* m_toolsPresentation = nullptr;
    CallsPanel* m_calls = nullptr;
    CallsExporter* m_exporter = nullptr;
    TrafficModel* m_trafficModel = nullptr;
    QSortFilterProxyModel* m_trafficFilter = nullptr;
    TrafficPresentation* m_trafficPresentation = nullptr;

    QTreeView* m_serversView = nullptr;
    QTabWidget* m_centre = nullptr;
    QLabel* m_overview = nullptr;
    QTableView* m_toolsView = nullptr;
    CallComposer* m_composer = nullptr;
    ResultView* m_result = nullptr;
    QTableView* m_trafficView = nullptr;
    QComboBox* m_logLevel = nullptr;
    QPlainTextEdit* m_trafficDetail = nullptr;
    QToolBar* m_faultBar = nullptr;
    QComboBox* m_faultKind = nullptr;
    QSpinBox* m_faultCount = nullptr;
    QSpinBox* m_faultDelay = nullptr;
    QLabel* m_armed = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_logStatus = nullptr;
    QString m_runningCall;
    QPointer<ServerConnection> m_runningOn;

    QAction* m_connectAction = nullptr;
    QAction* m_disconnectAction = nullptr;
    QAction* m_reconnectAction = nullptr;
    QList<QAction*> m_serverActions;
};

} // namespace mcpscope
