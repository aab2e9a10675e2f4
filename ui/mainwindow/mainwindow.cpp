#include "mainwindow.h"

#include "calllog/jobtracker.h"
#include "calllog/logstore.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/authcontroller.h"
#include "mainwindow/authview.h"
#include "mainwindow/docksmenu.h"
#include "mainwindow/emptystate.h"
#include "mainwindow/faultbar.h"
#include "mainwindow/retentiondialog.h"
#include "mainwindow/serveractions.h"
#include "mainwindow/serveroverview.h"
#include "mainwindow/serverscolumns.h"
#include "mainwindow/theme.h"
#include "mainwindow/toolspage.h"
#include "mainwindow/trafficdock.h"
#include "mainwindow/unsavedchanges.h"
#include "models/callsmodel.h"
#include "models/serverlistmodel.h"
#include "models/serverlistmodeldefs.h"
#include "models/toolsmodel.h"
#include "models/trafficmodel.h"
#include "presentation/presentation.h"
#include "prompts/promptspage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>

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
    m_toolsPresentation = new ToolsPresentation(this);
    m_toolsPresentation->setSourceModel(m_toolsModel);
    m_trafficModel = new TrafficModel(this);
    m_trafficModel->setEngine(engine());

    createCentre();
    createDocks();
    m_serverActions = new ServerActions(
        m_session, [this] { return currentConnection(); }, this);
    connect(m_serverActions, &ServerActions::serverAdded, m_calls, &CallsPanel::addServerName);
    connect(m_serverActions, &ServerActions::serverCreated, this, &MainWindow::selectServer);
    connect(m_serverActions, &ServerActions::statusMessage, this, &MainWindow::setStatus);
    connect(m_empty, &EmptyState::addServerRequested, m_serverActions->newServer(), &QAction::trigger);
    connect(m_empty, &EmptyState::importRequested, this, &MainWindow::importFile);
    connect(m_empty, &EmptyState::openWorkspaceRequested, this, &MainWindow::openWorkspace);
    connect(m_session, &WorkspaceSession::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_authController, &AuthController::editCredentialsRequested, m_serverActions,
        [this] { m_serverActions->editCredentials(currentConnection()); });
    createActions();
    addToolBarBreak();
    m_faultBar = new FaultBar([this] { return currentConnection(); }, this);
    addToolBar(m_faultBar);
    connect(m_faultBar, &FaultBar::statusMessage, this, &MainWindow::setStatus);

    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);

    m_logStatus = new QLabel(this);
    m_logStatus->setObjectName(QStringLiteral("logStatus"));
    statusBar()->addPermanentWidget(m_logStatus);
    refreshLogStatus();
    connect(m_session, &WorkspaceSession::statusMessage, this, &MainWindow::setStatus);
    connect(m_session, &WorkspaceSession::logStatusChanged, this, &MainWindow::refreshLogStatus);
    connect(engine(), &Engine::callUpdated, this, [this](const CallRecord& record) {
        m_calls->updateRecord(record);
        m_faultBar->refresh();
    });
    restoreTheme();
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1440, 900);
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray())) {
        resizeDocks({ findChild<QDockWidget*>(QStringLiteral("serversDock")) }, { 520 }, Qt::Horizontal);
        resizeDocks({ findChild<QDockWidget*>(QStringLiteral("callsDock")) }, { 330 }, Qt::Vertical);
    }
}

MainWindow::~MainWindow()
{
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
    m_empty = new EmptyState(m_serverPresentation, m_centre, this);
    setCentralWidget(m_empty);
}

void MainWindow::createDocks()
{
    auto* serversDock = new QDockWidget(tr("Servers"), this);
    serversDock->setObjectName(QStringLiteral("serversDock"));
    m_serversView = new QTreeView(serversDock);
    m_serversView->setObjectName(QStringLiteral("serversView"));
    m_serversView->setRootIsDecorated(false);
    m_serversView->setModel(m_serverPresentation);
    m_serversView->setContextMenuPolicy(Qt::ActionsContextMenu);
    // Columns fit their contents, but measured at most a few times a second: ResizeToContents measures
    // every row on every state change of any server, which with 100 servers connecting stalled the
    // window for half a minute.
    m_serversView->setUniformRowHeights(true);
    auto* fitColumns = new QTimer(m_serversView);
    fitColumns->setSingleShot(true);
    fitColumns->setInterval(250);
    connect(fitColumns, &QTimer::timeout, m_serversView, [view = m_serversView] {
        for (int column = 0; column < view->model()->columnCount(); ++column) {
            if (!view->isColumnHidden(column))
                view->resizeColumnToContents(column);
        }
    });
    const auto fitSoon = [fitColumns] {
        if (!fitColumns->isActive())
            fitColumns->start();
    };
    connect(m_serverPresentation, &QAbstractItemModel::dataChanged, fitColumns, fitSoon);
    connect(m_serverPresentation, &QAbstractItemModel::rowsInserted, fitColumns, fitSoon);
    connect(m_serverPresentation, &QAbstractItemModel::modelReset, fitColumns, fitSoon);
    setUpServerColumns(m_serversView);
    serversDock->setWidget(m_serversView);
    addDockWidget(Qt::LeftDockWidgetArea, serversDock);
    connect(
        m_serversView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::onServerSelected);
    connect(m_serverModel, &QAbstractItemModel::dataChanged, this, &MainWindow::refreshServerViews);

    auto* callsDock = new QDockWidget(tr("Calls"), this);
    callsDock->setObjectName(QStringLiteral("callsDock"));
    m_calls = new CallsPanel(callsDock);
    m_calls->model()->setEngine(engine());
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
    callsDock->raise();
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_serverActions->newServer());
    QAction* import = file->addAction(tr("&Import mcp.json…"), this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(this, tr("Import an mcp.json (Claude Desktop, Cursor, VS Code)"), QString(),
                tr("JSON files (*.json);;All files (*)"));
        if (!path.isEmpty())
            importFile(path);
    });
    import->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Workspace…"), this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(this, tr("Open Workspace"), QString(), tr("JSON files (*.json)"));
        if (!path.isEmpty())
            openWorkspace(path);
    });
    QAction* save = file->addAction(tr("&Save Workspace"), this, &MainWindow::saveWorkspace);
    save->setShortcut(QKeySequence::Save);
    QAction* exportAction = file->addAction(tr("&Export Calls…"), m_exporter, &CallsExporter::exportInteractively);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    QAction* openLog = file->addAction(tr("Open Call &Log…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a call log (read-only)"),
            QSettings().value(QStringLiteral("export/dir")).toString(), tr("Call logs (*.jsonl);;All files (*)"));
        if (!path.isEmpty())
            openLogFile(path, true);
    });
    openLog->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Call Log &Retention…"), this, &MainWindow::editRetention);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* server = menuBar()->addMenu(tr("&Server"));
    for (QAction* action : m_serverActions->menuActions()) {
        if (action)
            server->addAction(action);
        else
            server->addSeparator();
    }
    m_serversView->addActions(m_serverActions->contextActions());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* find = view->addAction(tr("&Filter Calls"), this, [this] { m_calls->focusSearch(); });
    find->setShortcut(QKeySequence::Find);
    addThemeMenu(view);
    addDocksMenu(view, this);

    QToolBar* main = addToolBar(tr("Main"));
    main->setObjectName(QStringLiteral("mainToolBar"));
    main->addAction(m_serverActions->newServer());
    main->addAction(import);
    main->addSeparator();
    main->addAction(m_serverActions->connectServer());
    main->addAction(m_serverActions->disconnectServer());
    main->addAction(m_serverActions->reconnectServer());
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
    if (m_serverPresentation->rowCount() > 0)
        m_serversView->setCurrentIndex(m_serverPresentation->index(0, 0));
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
    const QModelIndex index = m_serversView->currentIndex();
    return index.isValid() ? m_serverModel->connectionAt(index.row()) : nullptr;
}

void MainWindow::selectServer(const QString& name)
{
    for (int row = 0; row < m_serverPresentation->rowCount(); ++row) {
        if (m_serverPresentation->index(row, 0).data(ServerListModelRole::NameRole).toString() == name) {
            m_serversView->setCurrentIndex(m_serverPresentation->index(row, 0));
            return;
        }
    }
}

void MainWindow::selectTool(const QString& name)
{
    if (m_tools->selectTool(name))
        m_centre->setCurrentIndex(ToolsTab);
}

void MainWindow::onServerSelected()
{
    m_toolsModel->setConnection(currentConnection());
    m_tools->clearTool();
    refreshServerViews();
}

void MainWindow::refreshServerViews()
{
    ServerConnection* c = currentConnection();
    // A server edited from stdio to HTTP gets its ServerAuth late: watch() takes it on whenever it appears.
    m_authController->show(c);
    m_centre->setTabVisible(AuthTab, c && c->auth());
    m_overview->showConnection(c, m_authController);
    m_prompts->showConnection(c);
    m_faultBar->refresh();
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

void MainWindow::refreshLogStatus()
{
    const WorkspaceSession::LogStatus status = m_session->logStatus();
    m_logStatus->setText(status.text);
    m_logStatus->setToolTip(status.toolTip);
    m_logStatus->setStyleSheet(status.failing ? QStringLiteral("color:#b02a37;font-weight:bold") : QString());
}

QString MainWindow::logStatusText() const
{
    return m_logStatus->text();
}

void MainWindow::editRetention()
{
    const LogStore* store = m_session->logStore();
    RetentionDialog dialog(store->retentionDays(), int(store->retentionBytes() / (1024 * 1024)),
        store->isOpen() ? store->path() : QString(), this);
    if (dialog.exec() == QDialog::Accepted)
        m_session->setLogRetention(dialog.maxAgeDays(), dialog.maxMegabytes());
}

void MainWindow::openLogFile(const QString& path, bool interactive)
{
    // Big logs are parsed on a worker thread; the window opens when they are read.
    setStatus(tr("Reading %1…").arg(path));
    JobTracker::run(
        nullptr, this, [path] { return CallLogReader::read(path); },
        [this, path, interactive](CallLogReadResult result) {
            if (result.ok && result.records.isEmpty() && !result.problems.isEmpty()) {
                // Lines, but not one this McpScope can show (e.g. all from a newer schema).
                result.ok = false;
                result.error = tr("%1: no call record could be read. %2")
                                   .arg(path, result.problems.mid(0, 3).join(QStringLiteral("; ")));
            }
            if (!result.ok) {
                setStatus(result.error);
                if (interactive)
                    QMessageBox::warning(this, tr("Cannot open call log"), result.error);
                Q_EMIT logOpenFailed(result.error);
                return;
            }
            auto* window = new LogViewerWindow(path, result);
            window->show();
            setStatus(tr("Opened %1: %n call(s)", nullptr, int(result.records.size())).arg(path)
                + (result.problems.isEmpty() ? QString()
                                             : tr(", %n line(s) skipped", nullptr, int(result.problems.size()))));
            Q_EMIT logOpened(window);
        });
}

void MainWindow::setStatus(const QString& text)
{
    m_status->setText(text);
}

} // namespace mcpscope
