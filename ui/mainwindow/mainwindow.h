#pragma once

#include "calllog/callrecord.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "mainwindow/toolspage.h"
#include "mainwindow/workspacesession.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QTabWidget;
class QTableView;

namespace mcpscope {

class AuthController;
class AuthView;
class CallComposer;
class CallLogControls;
class CallsExporter;
class CallsModel;
class CallsPanel;
class EmptyState;
class Engine;
class FaultBar;
class LogStore;
class ResultView;
class ServerConnection;
class ServerListModel;
class ServerListPresentation;
class ServerActions;
class ServerBanner;
class ServerOutput;
class ServerOutputView;
class ServerOverview;
class ServerRequestsDock;
class ServersDock;
class TimelineView;
class PromptsPage;
class ResourcesPage;
class TasksPage;
class CallMetrics;
class LatencyChartsPage;
class LoadDialog;
class ToolsModel;
class ToolsPresentation;
class TrafficDock;
class TrafficModel;

/// McpScope's main window: servers (left), the selected server's overview, tools, composer and
/// result (centre), calls with their timelines and the traffic (docks), and the fault & trigger bar.
/// It arranges the views and forwards actions; the engine, the workspace and the call log belong to
/// its WorkspaceSession.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a workspace or mcp.json file; on failure shows the error (naming the file) and returns false.
    bool openWorkspace(const QString& path);
    /// Adds the servers of an mcp.json dialect to the workspace (names made unique).
    bool importFile(const QString& path);
    WorkspaceSession* session() const { return m_session; }
    Engine* engine() const { return m_session->engine(); }
    ServerConnection* currentConnection() const;
    void selectServer(const QString& name);
    void selectTool(const QString& name);
    /// Calls the selected tool with the composer's arguments (what Ctrl+Return does).
    void callSelectedTool() { m_tools->callSelectedTool(); }
    void selectCall(const QString& callId) { m_calls->selectCall(callId); }
    /// Opens a JSONL call log read-only in a new window (logOpened), or reports what is wrong with it
    /// (logOpenFailed, and a message box if interactive); see CallLogControls.
    void openLogFile(const QString& path, bool interactive = false);

    // For screenshots and tests.
    QTableView* toolsView() const { return m_tools->toolsView(); }
    QTableView* callsView() const { return m_calls->view(); }
    TimelineView* timeline() const { return m_calls->timeline(); }
    ResultView* resultView() const { return m_tools->resultView(); }
    CallComposer* composer() const { return m_tools->composer(); }
    CallsModel* callsModel() const { return m_calls->model(); }
    CallsPanel* callsPanel() const { return m_calls; }
    CallsExporter* exporter() const { return m_exporter; }
    LogStore* logStore() const { return m_session->logStore(); }
    /// The call-log indicator in the status bar (size, retention, write errors).
    QString logStatusText() const;
    QTabWidget* centreTabs() const { return m_centre; }
    /// The Auth tab (HTTP servers only).
    AuthView* authView() const { return m_auth; }
    PromptsPage* promptsPage() const { return m_prompts; }
    LatencyChartsPage* chartsPage() const { return m_charts; }
    CallMetrics* callMetrics() const { return m_metrics; }
    /// Load… on a tool of the selected server: a dialog of its own (closing it deletes it), returned.
    LoadDialog* openLoadDialog(const QString& tool, const QJsonObject& arguments);
    ResourcesPage* resourcesPage() const { return m_resources; }
    TasksPage* tasksPage() const { return m_tasks; }
    ServerRequestsDock* serverRequestsDock() const { return m_requests; }
    ServerOutputView* serverOutputView() const { return m_outputView; }
    TrafficDock* trafficDock() const { return m_traffic; }
    ServerActions* serverActions() const { return m_serverActions; }
    ServerOverview* overview() const { return m_overview; }
    /// The centre: the welcome page while the workspace has no server, else the server's tabs.
    EmptyState* emptyState() const { return m_empty; }
    /// Shows the Auth tab of the selected server (false when it has none: a stdio server).
    bool showAuthTab();
    /// Saves the workspace to its file, asking for one if it has none; false if not saved.
    bool saveWorkspace();

Q_SIGNALS:
    void logOpened(mcpscope::LogViewerWindow* window);
    void logOpenFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createCentre();
    void createDocks();
    void onServerSelected();
    void refreshServerViews();
    void setStatus(const QString& text);

    WorkspaceSession* m_session = nullptr;
    ServerListModel* m_serverModel = nullptr;
    ServerListPresentation* m_serverPresentation = nullptr;
    ToolsModel* m_toolsModel = nullptr;
    CallMetrics* m_metrics = nullptr;
    ToolsPresentation* m_toolsPresentation = nullptr;
    CallsPanel* m_calls = nullptr;
    CallsExporter* m_exporter = nullptr;
    ServerActions* m_serverActions = nullptr;
    TrafficModel* m_trafficModel = nullptr;
    TrafficDock* m_traffic = nullptr;
    ServerOutput* m_output = nullptr;
    ServerOutputView* m_outputView = nullptr;

    ServersDock* m_servers = nullptr;
    CallLogControls* m_log = nullptr;
    QTabWidget* m_centre = nullptr;
    EmptyState* m_empty = nullptr;
    ServerOverview* m_overview = nullptr;
    ServerBanner* m_banner = nullptr;
    ToolsPage* m_tools = nullptr;
    AuthView* m_auth = nullptr;
    PromptsPage* m_prompts = nullptr;
    LatencyChartsPage* m_charts = nullptr;
    ResourcesPage* m_resources = nullptr;
    TasksPage* m_tasks = nullptr;
    ServerRequestsDock* m_requests = nullptr;
    AuthController* m_authController = nullptr;
    FaultBar* m_faultBar = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace mcpscope
