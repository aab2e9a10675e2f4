#include "mainwindow.h"

#include "calllog/logstore.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "charts/latencychartspage.h"
#include "charts/loaddialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/authcontroller.h"
#include "mainwindow/authview.h"
#include "mainwindow/calllogcontrols.h"
#include "mainwindow/emptystate.h"
#include "mainwindow/faultbar.h"
#include "mainwindow/mainmenus.h"
#include "mainwindow/serveractions.h"
#include "mainwindow/serverbanner.h"
#include "mainwindow/serveroverview.h"
#include "mainwindow/serversdock.h"
#include "mainwindow/theme.h"
#include "mainwindow/toolspage.h"
#include "mainwindow/trafficdock.h"
#include "mainwindow/unsavedchanges.h"
#include "models/callmetrics.h"
#include "models/callsmodel.h"
#include "models/serverlistmodel.h"
#include "models/serveroutput.h"
#include "models/toolsmodel.h"
#include "models/trafficmodel.h"
#include "output/serveroutputview.h"
#include "presentation/presentation.h"
#include "prompts/promptspage.h"
#include "requests/serverrequestsdock.h"
#include "resources/resourcespage.h"
#include "result/resultview.h"
#include "tasks/taskspage.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

namespace mcpscope {

namespace {
enum CentreTab { OverviewTab, ToolsTab, AuthTab };
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_session(new WorkspaceSession(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("McpScope[*]"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_serverModel = new ServerListModel(engine(), this);
    m_serverPresentation = new ServerListPresentation(this);
    m_serverPresentation->setSourceModel(m_serverModel);
    m_toolsModel = new ToolsModel(this);
    m_metrics = new CallMetrics(engine(), this);
    m_toolsModel->setMetrics(m_metrics);
    m_toolsPresentation = new ToolsPresentation(this);
    m_toolsPresentation->setSourceModel(m_toolsModel);
    m_trafficModel = new TrafficModel(this);
    m_trafficModel->setEngine(engine());
    m_log = new CallLogControls(m_session, this);
    connect(m_log, &CallLogControls::statusMessage, this, &MainWindow::setStatus);
    connect(m_log, &CallLogControls::logOpened, this, &MainWindow::logOpened);
    connect(m_log, &CallLogControls::logOpenFailed, this, &MainWindow::logOpenFailed);

    createCentre();
    createDocks();
    m_serverActions = new ServerActions(
        m_session, [this] { return currentConnection(); }, this);
    connect(m_serverActions, &ServerActions::serverAdded, m_calls, &CallsPanel::addServerName);
    connect(m_serverActions, &ServerActions::serverCreated, this, &MainWindow::selectServer);
    connect(m_serverActions, &ServerActions::statusMessage, this, &MainWindow::setStatus);
    connect(m_serverActions, &ServerActions::pinged, this, &MainWindow::refreshServerViews);
    m_overview->setPingLookup([this](const QString& server) { return m_serverActions->lastPingText(server); });
    connect(m_empty, &EmptyState::addServerRequested, m_serverActions->newServer(), &QAction::trigger);
    connect(m_empty, &EmptyState::importRequested, this, &MainWindow::importFile);
    connect(m_empty, &EmptyState::openWorkspaceRequested, this, &MainWindow::openWorkspace);
    connect(m_session, &WorkspaceSession::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_authController, &AuthController::editCredentialsRequested, m_serverActions,
        [this] { m_serverActions->editCredentials(currentConnection()); });
    createMainMenus(this, m_serverActions, m_log, m_servers);
    addToolBarBreak();
    m_faultBar = new FaultBar([this] { return currentConnection(); }, this);
    addToolBar(m_faultBar);
    connect(m_faultBar, &FaultBar::statusMessage, this, &MainWindow::setStatus);
    connect(m_faultBar, &FaultBar::routeThroughProxyRequested, m_serverActions, &ServerActions::routeThroughFaultProxy);

    m_status = new QLabel(this);
    // A long message (a server's full error) is cut at the window's edge: the tooltip has all of it, and it
    // can be selected and copied.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_status, 1);

    statusBar()->addPermanentWidget(m_log);
    connect(m_session, &WorkspaceSession::statusMessage, this, &MainWindow::setStatus);
    // The fault list depends on the era the connection found (session faults or 2026-07-28 ones).
    connect(engine(), &Engine::serverAdded, this, [this](ServerConnection* connection) {
        connect(connection, &ServerConnection::ready, m_faultBar, &FaultBar::refresh);
    });
    connect(engine(), &Engine::callUpdated, this, [this](const CallRecord& record) {
        m_calls->updateRecord(record);
        m_faultBar->refresh();
    });
    restoreTheme();
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1440, 900);
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray())) {
        resizeDocks({ m_servers }, { 520 }, Qt::Horizontal);
        resizeDocks({ findChild<QDockWidget*>(QStringLiteral("callsDock")) }, { 330 }, Qt::Vertical);
    }
}

MainWindow::~MainWindow()
{
    // The views let go of the shown server first: otherwise each server's row, removed as the engine
    // closes, moved the selection to the next one and redrew every view for it (1.5 s for 100 servers).
    disconnect(m_servers, nullptr, this, nullptr);
    disconnect(m_serverModel, nullptr, this, nullptr);
    m_servers->clearCurrent();
    onServerSelected();
    // The engine's sessions close before the views that follow them go away.
    delete m_session;
    m_session = nullptr;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!confirmCloseWorkspace(this, m_session, [this] { return saveWorkspace(); })) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::createCentre()
{
    m_centre = new QTabWidget(this);
    m_centre->setObjectName(QStringLiteral("centreTabs"));
    m_centre->setDocumentMode(true);

    m_overview = new ServerOverview(m_centre);
    m_centre->addTab(m_overview, tr("Overview"));

    m_tools = new ToolsPage(
        engine(), m_toolsPresentation, [this] { return currentConnection(); }, m_centre);
    connect(m_tools, &ToolsPage::statusMessage, this, &MainWindow::setStatus);
    connect(m_tools, &ToolsPage::loadRequested, this, &MainWindow::openLoadDialog);
    m_centre->addTab(m_tools, tr("Tools"));

    // HTTP servers only: the tab hides for a stdio server.
    m_auth = new AuthView(m_centre);
    m_centre->addTab(m_auth, tr("Auth"));
    m_centre->setTabVisible(AuthTab, false);
    m_authController = new AuthController(m_auth, this);
    connect(m_authController, &AuthController::statusMessage, this, &MainWindow::setStatus);
    connect(m_authController, &AuthController::stateChanged, this,
        [this] { m_overview->showConnection(currentConnection(), m_authController); });
    for (ServerConnection* c : engine()->connections())
        m_authController->watch(c);
    connect(engine(), &Engine::serverAdded, m_authController, &AuthController::watch);
    m_prompts = new PromptsPage(
        engine(), [this] { return currentConnection(); }, m_centre);
    m_prompts->setObjectName(QStringLiteral("promptsPage"));
    connect(m_prompts, &PromptsPage::statusMessage, this, &MainWindow::setStatus);
    m_centre->addTab(m_prompts, tr("Prompts"));
    m_resources = new ResourcesPage(
        engine(), [this] { return currentConnection(); }, m_centre);
    m_resources->setObjectName(QStringLiteral("resourcesPage"));
    connect(m_resources, &ResourcesPage::statusMessage, this, &MainWindow::setStatus);
    m_centre->addTab(m_resources, tr("Resources"));
    m_tasks = new TasksPage(engine(), m_centre);
    connect(m_tasks, &TasksPage::statusMessage, this, &MainWindow::setStatus);
    m_centre->addTab(m_tasks, tr("Tasks"));
    m_charts = new LatencyChartsPage(m_metrics, m_centre);
    m_charts->setObjectName(QStringLiteral("chartsPage"));
    m_centre->addTab(m_charts, tr("Charts"));
    connect(m_tools->resultView(), &ResultView::resourceLinkActivated, this, [this](const QString& uri) {
        m_centre->setCurrentWidget(m_resources);
        m_resources->openUri(uri);
    });
    m_banner = new ServerBanner(this);
    m_empty = new EmptyState(m_serverPresentation, ServerBanner::wrap(m_banner, m_centre, this), this);
    setCentralWidget(m_empty);
}

void MainWindow::createDocks()
{
    m_servers = new ServersDock(m_serverModel, m_serverPresentation, this);
    addDockWidget(Qt::LeftDockWidgetArea, m_servers);
    connect(m_servers, &ServersDock::currentServerChanged, this, &MainWindow::onServerSelected);
    // Only a change to the server shown refreshes its views: with 100 servers connecting at once, every
    // other row's state and counters redrew the shown server's overview, charts and actions each time.
    connect(m_serverModel, &QAbstractItemModel::dataChanged, this,
        [this](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
            // The call counters change twice a call and none of these views shows them; refreshing
            // them (a tab shown again relays out the whole centre) held calls from the window to ~200/s.
            if (topLeft.column() >= ServerListModelColumn::Calls
                && bottomRight.column() <= ServerListModelColumn::InFlight)
                return;
            const ServerConnection* shown = currentConnection();
            for (int row = topLeft.row(); shown && row <= bottomRight.row(); ++row) {
                if (m_serverModel->connectionAt(row) == shown) {
                    refreshServerViews();
                    return;
                }
            }
        });

    auto* callsDock = new QDockWidget(tr("Calls"), this);
    callsDock->setObjectName(QStringLiteral("callsDock"));
    m_calls = new CallsPanel(callsDock);
    m_calls->model()->setEngine(engine());
    // Live calls arrive by the hundred a second under a script or a load test; the table repaints
    // on each flush, so it gets at most ten a second.
    m_calls->model()->setFlushInterval(100);
    m_session->setCallsModel(m_calls->model());
    m_calls->setRecordLookup([this](const QString& callId, std::function<void(std::optional<CallRecord>)> deliver) {
        m_session->lookupRecord(callId, this, std::move(deliver));
    });
    m_calls->setRawMessages([this](const CallRecord& record) {
        // Recorded exchanges first (they survive restarts); the live traffic view for older records.
        const QList<QByteArray> raw = CallsPanel::recordedMessages(record);
        return raw.isEmpty() ? m_traffic->messagesOf(record) : raw;
    });
    m_exporter = new CallsExporter(m_calls, this, [this](ExportRequest& request, QString* error) {
        return m_session->fillExportSource(
            request, [this] { return m_calls->callIds(CallsPanel::Scope::Visible); }, error);
    });
    connect(
        m_exporter, &CallsExporter::finished, this, [this](bool, int, const QString& message) { setStatus(message); });
    callsDock->setWidget(m_calls);
    addDockWidget(Qt::BottomDockWidgetArea, callsDock);

    m_traffic = new TrafficDock(m_trafficModel, this);
    connect(m_traffic, &TrafficDock::setLevelRequested, this, [this](const QString& level) {
        ServerConnection* c = currentConnection();
        if (!c)
            return;
        engine()->call(c->name(), QStringLiteral("logging/setLevel"), { { QStringLiteral("level"), level } }, {},
            [this](const CallRecord& r) { setStatus(tr("logging/setLevel: %1").arg(outcomeName(r.outcome))); });
    });
    addDockWidget(Qt::BottomDockWidgetArea, m_traffic);
    tabifyDockWidget(callsDock, m_traffic);
    m_output = new ServerOutput(this);
    m_output->setEngine(engine());
    m_outputView = new ServerOutputView(m_output, this);
    addDockWidget(Qt::BottomDockWidgetArea, m_outputView);
    tabifyDockWidget(m_traffic, m_outputView);
    callsDock->raise();

    m_requests = new ServerRequestsDock(m_session->serverRequests(), this);
    connect(m_requests, &ServerRequestsDock::statusMessage, this, &MainWindow::setStatus);
    // Full height on the right, beside the calls too: a request's editor needs the room more than the calls table.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    addDockWidget(Qt::RightDockWidgetArea, m_requests);
    m_requests->hide(); // comes forward with the first request; Docks ▸ Server Requests shows it any time
}

bool MainWindow::openWorkspace(const QString& path)
{
    QString error;
    if (!m_session->openWorkspace(path, &error)) {
        setStatus(error);
        return false;
    }
    m_calls->setServerNames(m_session->serverNames());
    setWindowTitle(tr("McpScope — %1[*]").arg(QFileInfo(path).fileName()));
    setStatus(tr("%n server(s) from %1", nullptr, int(m_session->workspace().servers.size())).arg(path));
    QSettings().setValue(QStringLiteral("workspace/lastPath"), path);
    m_servers->selectFirst();
    return true;
}

bool MainWindow::importFile(const QString& path)
{
    QString error;
    const std::optional<QStringList> added = m_session->importServers(path, &error);
    if (!added) {
        setStatus(error);
        QMessageBox::warning(this, tr("Import failed"), error);
        return false;
    }
    for (const QString& name : *added)
        m_calls->addServerName(name);
    setStatus(tr("Imported %n server(s) from %1", nullptr, int(added->size())).arg(path));
    return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile())
            importFile(url.toLocalFile());
    }
}

ServerConnection* MainWindow::currentConnection() const
{
    return m_servers->currentConnection();
}

void MainWindow::selectServer(const QString& name)
{
    m_servers->selectServer(name);
}

void MainWindow::selectTool(const QString& name)
{
    if (m_tools->selectTool(name))
        m_centre->setCurrentIndex(ToolsTab);
}

void MainWindow::onServerSelected()
{
    // Cleared first: the tools page keeps its tool across a re-list of the same server, not another's.
    m_tools->clearTool();
    m_toolsModel->setConnection(currentConnection());
    m_outputView->showServer(currentConnection() ? currentConnection()->name() : QString());
    refreshServerViews();
}

void MainWindow::refreshServerViews()
{
    ServerConnection* c = currentConnection();
    // A server edited from stdio to HTTP gets its ServerAuth late: watch() takes it on whenever it appears.
    m_authController->show(c);
    m_centre->setTabVisible(AuthTab, c && c->auth());
    m_overview->showConnection(c, m_authController);
    m_banner->showConnection(c);
    m_prompts->showConnection(c);
    m_resources->showConnection(c);
    m_tasks->showConnection(c);
    m_charts->showServer(c ? c->name() : QString());
    m_faultBar->refresh();
    if (m_serverActions)
        m_serverActions->refresh();
    // The 2026-07-28 revision has no logging/setLevel (a modern request carries its logLevel in _meta).
    m_traffic->setLogLevelUnavailable(c && c->session() && c->session()->isModern()
            ? tr("%1 speaks MCP 2026-07-28, which has no logging/setLevel.").arg(c->name())
            : QString());
}

LoadDialog* MainWindow::openLoadDialog(const QString& tool, const QJsonObject& arguments)
{
    ServerConnection* c = currentConnection();
    if (!c)
        return nullptr;
    auto* dialog = new LoadDialog(engine(), c->name(), tool, arguments, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

bool MainWindow::showAuthTab()
{
    ServerConnection* c = currentConnection();
    if (!c || !c->auth())
        return false;
    m_centre->setCurrentIndex(AuthTab);
    return true;
}

bool MainWindow::saveWorkspace()
{
    QString path = m_session->savePath();
    if (path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save Workspace"), QString(), tr("McpScope workspace (*.json)"));
    if (path.isEmpty())
        return false;
    QString error;
    if (!m_session->saveWorkspace(path, &error)) {
        QMessageBox::warning(this, tr("Save failed"), error);
        return false;
    }
    setWindowTitle(tr("McpScope — %1[*]").arg(QFileInfo(path).fileName()));
    setStatus(tr("Saved %1").arg(path));
    return true;
}

QString MainWindow::logStatusText() const
{
    return m_log->text();
}

void MainWindow::openLogFile(const QString& path, bool interactive)
{
    m_log->openLogFile(path, interactive);
}

void MainWindow::setStatus(const QString& text)
{
    m_status->setText(text);
    m_status->setToolTip(text);
}

} // namespace mcpscope
