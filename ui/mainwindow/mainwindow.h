#pragma once

#include "config/workspace.h"

#include <QMainWindow>
#include <QPointer>

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
class CallsFilterProxy;
class CallsModel;
class CallsPresentation;
class Engine;
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

    // For screenshots and tests.
    QTableView* toolsView() const { return m_toolsView; }
    QTableView* callsView() const { return m_callsView; }
    TimelineView* timeline() const { return m_timeline; }
    ResultView* resultView() const { return m_result; }
    CallComposer* composer() const { return m_composer; }
    CallsModel* callsModel() const { return m_callsModel; }
    QTabWidget* centreTabs() const { return m_centre; }

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
    void showCallDetails();
    void addServer();
    void editServer();
    void duplicateServer();
    void removeServer();
    void saveWorkspace();
    void exportCalls();
    void armFault();
    void applyCallsFilter();
    void setStatus(const QString& text);
    QStringList serverNames() const;

    Engine* m_engine = nullptr;
    ScriptedResponder* m_responder = nullptr;
    Workspace m_workspace;
    CallRecordStore* m_store = nullptr;
    ServerListModel* m_serverModel = nullptr;
    ServerListPresentation* m_serverPresentation = nullptr;
    ToolsModel* m_toolsModel = nullptr;
    ToolsPresentation* m_toolsPresentation = nullptr;
    CallsModel* m_callsModel = nullptr;
    CallsFilterProxy* m_callsFilter = nullptr;
    CallsPresentation* m_callsPresentation = nullptr;
    TrafficModel* m_trafficModel = nullptr;
    QSortFilterProxyModel* m_trafficFilter = nullptr;
    TrafficPresentation* m_trafficPresentation = nullptr;

    QTreeView* m_serversView = nullptr;
    QTabWidget* m_centre = nullptr;
    QLabel* m_overview = nullptr;
    QTableView* m_toolsView = nullptr;
    CallComposer* m_composer = nullptr;
    ResultView* m_result = nullptr;
    QTableView* m_callsView = nullptr;
    TimelineView* m_timeline = nullptr;
    QLineEdit* m_callsSearch = nullptr;
    QLineEdit* m_callsTool = nullptr;
    QComboBox* m_callsOutcome = nullptr;
    QComboBox* m_callsServer = nullptr;
    QTableView* m_trafficView = nullptr;
    QComboBox* m_logLevel = nullptr;
    QPlainTextEdit* m_trafficDetail = nullptr;
    QToolBar* m_faultBar = nullptr;
    QComboBox* m_faultKind = nullptr;
    QSpinBox* m_faultCount = nullptr;
    QSpinBox* m_faultDelay = nullptr;
    QLabel* m_armed = nullptr;
    QLabel* m_status = nullptr;
    QString m_runningCall;
    QPointer<ServerConnection> m_runningOn;

    QAction* m_connectAction = nullptr;
    QAction* m_disconnectAction = nullptr;
    QAction* m_reconnectAction = nullptr;
    QList<QAction*> m_serverActions;
};

} // namespace mcpscope
