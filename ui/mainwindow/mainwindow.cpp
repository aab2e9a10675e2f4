#include "mainwindow.h"

#include "calllog/callrecordstore.h"
#include "calllog/logstore.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "calls/timelineview.h"
#include "composer/callcomposer.h"
#include "config/mcpjsonimport.h"
#include "dialogs/serverdialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "fault/stdiofault.h"
#include "models/callsfilterproxy.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"
#include "models/serverlistmodel.h"
#include "models/serverlistmodeldefs.h"
#include "models/toolsmodel.h"
#include "models/toolsmodeldefs.h"
#include "models/trafficmodel.h"
#include "models/trafficmodeldefs.h"
#include "presentation/presentation.h"
#include "recovery/circuitbreaker.h"
#include "result/resultview.h"
#include "session/scriptedresponder.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPalette>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTableView>
#include <QTabWidget>
#include <QThread>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <chrono>
#include <future>

namespace mcpscope {

namespace {
/// Hides log notifications below a chosen level; every other traffic row passes.
class TrafficLevelFilter : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setMinimumLevel(int level)
    {
        m_minimum = level;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override
    {
        const int level = sourceModel()->index(row, 0, parent).data(TrafficModelRole::LogLevelRole).toInt();
        return level < 0 || level >= m_minimum;
    }

private:
    int m_minimum = 0;
};

const char* const HttpFaults[] = { "expire-before", "expire-after", "cut-after", "auth-401", "delay", "drop-stream",
    "close-before-head", "rst-before-head" };
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_engine(new Engine(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("McpScope"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    // Server requests (roots, sampling, elicitation) are declared, and declined unless scripted.
    m_responder = new ScriptedResponder();
    m_engine->setResponder(m_responder);

    m_logStore = new LogStore(this);
    // Until a workspace's call log is open, records are kept in memory.
    m_fallbackStore = new CallRecordStore(this);
    connect(m_engine, &Engine::callUpdated, m_fallbackStore, &CallRecordStore::ingest);
    m_serverModel = new ServerListModel(m_engine, this);
    m_serverPresentation = new ServerListPresentation(this);
    m_serverPresentation->setSourceModel(m_serverModel);
    m_toolsModel = new ToolsModel(this);
    m_toolsPresentation = new ToolsPresentation(this);
    m_toolsPresentation->setSourceModel(m_toolsModel);
    m_trafficModel = new TrafficModel(this);
    m_trafficModel->setEngine(m_engine);
    m_trafficFilter = new TrafficLevelFilter(this);
    m_trafficFilter->setSourceModel(m_trafficModel);
    m_trafficPresentation = new TrafficPresentation(this);
    m_trafficPresentation->setSourceModel(m_trafficFilter);

    createCentre();
    createDocks();
    createActions();
    createFaultBar();

    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);

    m_logStatus = new QLabel(this);
    m_logStatus->setObjectName(QStringLiteral("logStatus"));
    statusBar()->addPermanentWidget(m_logStatus);
    refreshLogStatus();
    connect(m_logStore, &LogStore::writeFailed, this, [this](const QString& message) {
        const bool first = m_logError.isEmpty();
        m_logError = message;
        refreshLogStatus();
        if (first)
            setStatus(
                tr("The call log cannot be written: %1 Calls are kept in memory and saving is retried.").arg(message));
    });
    // The indicator follows commits, at most once a second (counting calls is a query).
    m_logStatusTimer.setSingleShot(true);
    m_logStatusTimer.setInterval(1000);
    connect(&m_logStatusTimer, &QTimer::timeout, this, &MainWindow::refreshLogStatus);
    connect(m_logStore, &LogStore::committed, this, [this] {
        if (!m_logStatusTimer.isActive())
            m_logStatusTimer.start();
        if (m_logError.isEmpty())
            return;
        m_logError.clear();
        setStatus(tr("The call log is being written again (%1).").arg(m_logStore->path()));
        refreshLogStatus();
    });
    connect(m_logStore, &LogStore::pruned, this, [this](int calls, int wireRows) {
        if (calls > 0 || wireRows > 0)
            setStatus(tr("Retention removed %n old call(s) from the call log", nullptr, calls)
                + tr(" and %n wire message(s).", nullptr, wireRows));
        refreshLogStatus();
    });
    connect(m_engine, &Engine::callUpdated, this, &MainWindow::onCallUpdated);
    // The log store knows no engine: it takes every call change and wire message from here, and each
    // server's secrets for its redactor. A closed store drops what it is given.
    connect(m_engine, &Engine::callUpdated, m_logStore, &LogStore::append);
    connect(m_engine, &Engine::traffic, m_logStore,
        [this](const QString& server, WireDirection direction, const QByteArray& bytes) {
            m_logStore->appendWire(server, direction, bytes, QDateTime::currentMSecsSinceEpoch());
        });
    connect(m_engine, &Engine::serverAdded, m_logStore,
        [this](ServerConnection* connection) { m_logStore->addServer(connection->config()); });
    QSettings settings;
    setTheme(Theme(settings.value(QStringLiteral("ui/theme"), int(Theme::System)).toInt()));
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1440, 900);
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray())) {
        resizeDocks({ findChild<QDockWidget*>(QStringLiteral("serversDock")) }, { 520 }, Qt::Horizontal);
        resizeDocks({ findChild<QDockWidget*>(QStringLiteral("callsDock")) }, { 330 }, Qt::Vertical);
    }
}

MainWindow::~MainWindow()
{
    // Sessions close before the responder they may still call goes away.
    delete m_engine;
    m_engine = nullptr;
    delete m_responder;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
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

    m_overview = new QLabel(m_centre);
    m_overview->setObjectName(QStringLiteral("overview"));
    m_overview->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_overview->setWordWrap(true);
    m_overview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_overview->setMargin(12);
    // Server instructions can be pages long: they scroll instead of stretching the window.
    auto* overviewScroll = new QScrollArea(m_centre);
    overviewScroll->setWidgetResizable(true);
    overviewScroll->setWidget(m_overview);
    m_centre->addTab(overviewScroll, tr("Overview"));

    auto* toolsPage = new QSplitter(Qt::Vertical, m_centre);
    m_toolsView = Presentation::makeTable(toolsPage, QStringLiteral("toolsView"));
    m_toolsView->setModel(m_toolsPresentation);
    m_toolsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* callArea = new QSplitter(Qt::Horizontal, toolsPage);
    m_composer = new CallComposer(callArea);
    m_composer->setObjectName(QStringLiteral("composer"));
    m_result = new ResultView(callArea);
    m_result->setObjectName(QStringLiteral("resultView"));
    callArea->setStretchFactor(0, 2);
    callArea->setStretchFactor(1, 3);
    toolsPage->setStretchFactor(0, 1);
    toolsPage->setStretchFactor(1, 1);
    // Enough of the tools table to compare annotations at a glance, and room for the composer.
    toolsPage->setSizes({ 360, 420 });
    m_centre->addTab(toolsPage, tr("Tools"));
    setCentralWidget(m_centre);

    connect(m_toolsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& index) { m_composer->setTool(index.data(ToolsModelRole::ToolRole).toJsonObject()); });
    connect(m_composer, &CallComposer::callRequested, this, [this] { callSelectedTool(); });
    connect(m_composer, &CallComposer::cancelRequested, this, [this] {
        if (m_runningOn && !m_runningCall.isEmpty())
            m_runningOn->cancelCall(m_runningCall);
    });
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
    m_serversView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    for (int column : { int(ServerListModelColumn::BreakerCooldownEnd), int(ServerListModelColumn::InFlight),
             int(ServerListModelColumn::ConsecutiveFailures) })
        m_serversView->hideColumn(column);
    serversDock->setWidget(m_serversView);
    addDockWidget(Qt::LeftDockWidgetArea, serversDock);
    connect(
        m_serversView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::onServerSelected);
    connect(m_serverModel, &QAbstractItemModel::dataChanged, this, [this] {
        refreshOverview();
        refreshFaultBar();
    });

    auto* callsDock = new QDockWidget(tr("Calls"), this);
    callsDock->setObjectName(QStringLiteral("callsDock"));
    m_calls = new CallsPanel(callsDock);
    m_calls->model()->setEngine(m_engine);
    m_calls->setRecordLookup([this](const QString& callId, std::function<void(std::optional<CallRecord>)> deliver) {
        lookupRecord(callId, std::move(deliver));
    });
    m_calls->setRawMessages([this](const CallRecord& record) {
        // Recorded exchanges first (they survive restarts); the live traffic view for older records.
        QList<QByteArray> raw = CallsPanel::recordedMessages(record);
        if (!raw.isEmpty())
            return raw;
        QSet<QString> ids;
        for (const CallAttempt& a : record.attempts)
            ids.insert(a.requestId);
        for (int row = m_trafficModel->rowCount() - 1; row >= 0 && raw.size() < 20; --row) {
            const QModelIndex t = m_trafficModel->index(row, 0);
            if (t.data(TrafficModelRole::ServerRole).toString() != record.server)
                continue;
            if (ids.contains(t.data(TrafficModelRole::RpcIdRole).toString()))
                raw.prepend(t.data(TrafficModelRole::PayloadRole).toByteArray());
            if (t.data(TrafficModelRole::TimestampRole).toLongLong() < record.startedAt - 1000)
                break;
        }
        return raw;
    });
    m_exporter = new CallsExporter(m_calls, this, [this](ExportRequest& request, QString* error) {
        for (const ServerConfig& config : std::as_const(m_workspace.servers))
            request.redactor.addServer(config);
        if (m_fallbackStore) {
            // No database: export what is in memory.
            for (const QString& callId : m_calls->callIds(CallsPanel::Scope::Visible)) {
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
    });
    connect(
        m_exporter, &CallsExporter::finished, this, [this](bool, int, const QString& message) { setStatus(message); });
    callsDock->setWidget(m_calls);
    addDockWidget(Qt::BottomDockWidgetArea, callsDock);

    auto* trafficDock = new QDockWidget(tr("Traffic"), this);
    trafficDock->setObjectName(QStringLiteral("trafficDock"));
    auto* trafficHost = new QWidget(trafficDock);
    auto* trafficLayout = new QVBoxLayout(trafficHost);
    trafficLayout->setContentsMargins(2, 2, 2, 2);
    auto* trafficBar = new QHBoxLayout;
    m_logLevel = new QComboBox(trafficHost);
    m_logLevel->setObjectName(QStringLiteral("logLevel"));
    for (const char* level : { "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" })
        m_logLevel->addItem(QString::fromLatin1(level));
    m_logLevel->setCurrentText(QStringLiteral("info"));
    auto* setLevel = new QAction(tr("Set server log level"), trafficHost);
    connect(setLevel, &QAction::triggered, this, [this] {
        ServerConnection* c = currentConnection();
        if (!c)
            return;
        m_engine->call(c->name(), QStringLiteral("logging/setLevel"),
            { { QStringLiteral("level"), m_logLevel->currentText() } }, {},
            [this](const CallRecord& r) { setStatus(tr("logging/setLevel: %1").arg(outcomeName(r.outcome))); });
    });
    auto* setLevelButton = new QToolBar(trafficHost);
    setLevelButton->addAction(setLevel);
    auto* showLevel = new QComboBox(trafficHost);
    showLevel->setObjectName(QStringLiteral("showLogLevel"));
    for (const char* level : { "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" })
        showLevel->addItem(QString::fromLatin1(level));
    connect(showLevel, &QComboBox::currentIndexChanged, this,
        [this](int level) { static_cast<TrafficLevelFilter*>(m_trafficFilter)->setMinimumLevel(level); });
    trafficBar->addWidget(new QLabel(tr("Show logs from:"), trafficHost));
    trafficBar->addWidget(showLevel);
    trafficBar->addSpacing(16);
    trafficBar->addWidget(new QLabel(tr("Server log level:"), trafficHost));
    trafficBar->addWidget(m_logLevel);
    trafficBar->addWidget(setLevelButton);
    trafficBar->addStretch();
    trafficLayout->addLayout(trafficBar);
    auto* trafficSplit = new QSplitter(Qt::Horizontal, trafficHost);
    m_trafficView = Presentation::makeTable(trafficSplit, QStringLiteral("trafficView"));
    m_trafficView->setModel(m_trafficPresentation);
    m_trafficDetail = new QPlainTextEdit(trafficSplit);
    m_trafficDetail->setReadOnly(true);
    m_trafficDetail->setFont(QFont(QStringLiteral("monospace")));
    trafficLayout->addWidget(trafficSplit);
    trafficDock->setWidget(trafficHost);
    addDockWidget(Qt::BottomDockWidgetArea, trafficDock);
    tabifyDockWidget(callsDock, trafficDock);
    callsDock->raise();
    connect(m_trafficView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& index) {
            const QByteArray payload = index.data(TrafficModelRole::PayloadRole).toByteArray();
            const QJsonDocument doc = QJsonDocument::fromJson(payload);
            m_trafficDetail->setPlainText(
                doc.isNull() ? QString::fromUtf8(payload) : QString::fromUtf8(doc.toJson(QJsonDocument::Indented)));
        });
    connect(m_trafficPresentation, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_trafficView->currentIndex().isValid())
            m_trafficView->scrollToBottom();
    });
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newServer = file->addAction(tr("&New Server…"), this, &MainWindow::addServer);
    newServer->setShortcut(QKeySequence::New);
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
    m_connectAction = server->addAction(tr("&Connect"), this, [this] {
        if (ServerConnection* c = currentConnection())
            c->connectToServer();
    });
    m_disconnectAction = server->addAction(tr("&Disconnect"), this, [this] {
        if (ServerConnection* c = currentConnection())
            c->disconnectFromServer();
    });
    m_reconnectAction = server->addAction(tr("&Reconnect Now"), this, [this] {
        if (ServerConnection* c = currentConnection())
            c->reconnectNow();
    });
    m_reconnectAction->setShortcut(Qt::Key_F5);
    server->addAction(tr("Connect &All"), m_engine, &Engine::connectAll);
    server->addSeparator();
    QAction* edit = server->addAction(tr("&Edit…"), this, &MainWindow::editServer);
    QAction* duplicate = server->addAction(tr("D&uplicate"), this, &MainWindow::duplicateServer);
    QAction* remove = server->addAction(tr("Re&move"), this, &MainWindow::removeServer);
    QAction* copySession = server->addAction(tr("Copy Session &Id"), this, [this] {
        if (ServerConnection* c = currentConnection())
            QApplication::clipboard()->setText(c->sessionId());
    });
    m_serverActions = { m_connectAction, m_disconnectAction, m_reconnectAction, edit, duplicate, remove, copySession };
    m_serversView->addActions(
        { m_connectAction, m_disconnectAction, m_reconnectAction, edit, duplicate, remove, copySession });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* find = view->addAction(tr("&Filter Calls"), this, [this] { m_calls->focusSearch(); });
    find->setShortcut(QKeySequence::Find);
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(this);
    for (const auto& [label, value] : { std::pair { tr("Follow the &system"), Theme::System },
             std::pair { tr("&Light"), Theme::Light }, std::pair { tr("&Dark"), Theme::Dark } }) {
        QAction* action = theme->addAction(label, this, [this, value = value] {
            setTheme(value);
            QSettings().setValue(QStringLiteral("ui/theme"), int(value));
        });
        action->setCheckable(true);
        action->setChecked(QSettings().value(QStringLiteral("ui/theme"), int(Theme::System)).toInt() == int(value));
        themes->addAction(action);
    }

    QToolBar* main = addToolBar(tr("Main"));
    main->setObjectName(QStringLiteral("mainToolBar"));
    main->addAction(newServer);
    main->addAction(import);
    main->addSeparator();
    main->addAction(m_connectAction);
    main->addAction(m_disconnectAction);
    main->addAction(m_reconnectAction);
}

void MainWindow::createFaultBar()
{
    addToolBarBreak();
    m_faultBar = addToolBar(tr("Faults and triggers"));
    m_faultBar->setObjectName(QStringLiteral("faultBar"));
    m_faultBar->addWidget(new QLabel(tr(" Faults: "), m_faultBar));
    m_faultBar
        ->addAction(tr("Expire (server)"), this,
            [this] {
                QString error;
                if (ServerConnection* c = currentConnection(); c && !c->expireSession(true, &error))
                    setStatus(error);
            })
        ->setToolTip(tr("Ask the server to end the session (DELETE)"));
    m_faultBar
        ->addAction(tr("Expire (client)"), this,
            [this] {
                QString error;
                if (ServerConnection* c = currentConnection(); c && !c->expireSession(false, &error))
                    setStatus(error);
            })
        ->setToolTip(tr("Forget the session id on the client"));
    m_faultBar->addAction(tr("Kill transport"), this, [this] {
        if (ServerConnection* c = currentConnection())
            c->killTransport();
    });
    m_faultBar->addSeparator();
    m_faultKind = new QComboBox(m_faultBar);
    m_faultKind->setObjectName(QStringLiteral("faultKind"));
    m_faultCount = new QSpinBox(m_faultBar);
    m_faultCount->setRange(1, 1000);
    m_faultCount->setPrefix(tr("×"));
    m_faultDelay = new QSpinBox(m_faultBar);
    m_faultDelay->setRange(0, 600000);
    m_faultDelay->setValue(2000);
    m_faultDelay->setSuffix(tr(" ms"));
    m_faultBar->addWidget(m_faultKind);
    m_faultBar->addWidget(m_faultCount);
    m_faultBar->addWidget(m_faultDelay);
    m_faultBar->addAction(tr("Arm"), this, &MainWindow::armFault)->setObjectName(QStringLiteral("armFault"));
    m_armed = new QLabel(m_faultBar);
    m_armed->setObjectName(QStringLiteral("armedFaults"));
    m_faultBar->addWidget(m_armed);
    m_faultBar->addSeparator();
    m_faultBar->addAction(tr("Open breaker"), this, [this] {
        if (ServerConnection* c = currentConnection())
            c->openBreaker();
    });
    m_faultBar->addAction(tr("Reset breaker"), this, [this] {
        if (ServerConnection* c = currentConnection())
            c->resetBreaker();
    });
}

void MainWindow::setTheme(Theme theme)
{
    // Qt 6.4 has no colour-scheme API: the system palette is the default, an override swaps it.
    static const QPalette systemPalette = QApplication::palette();
    if (theme == Theme::System) {
        QApplication::setPalette(systemPalette);
        return;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (theme == Theme::Light) {
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::AlternateBase, QColor(40, 40, 43));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::Button, QColor(55, 55, 58));
    dark.setColor(QPalette::ButtonText, QColor(230, 230, 230));
    dark.setColor(QPalette::Highlight, QColor(38, 110, 200));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::ToolTipBase, QColor(55, 55, 58));
    dark.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    dark.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    QApplication::setPalette(dark);
}

bool MainWindow::openWorkspace(const QString& path)
{
    ConfigError error;
    auto workspace = Workspace::load(path, &error);
    if (!workspace) {
        setStatus(error.toString());
        return false;
    }
    const QList<ServerConnection*> existing = m_engine->connections();
    for (ServerConnection* c : existing)
        m_engine->removeServer(c->name());
    m_workspace = *workspace;
    for (const ServerConfig& config : std::as_const(m_workspace.servers))
        m_engine->addServer(config);
    m_calls->setServerNames(serverNames());
    openLogStore(path);
    setWindowTitle(tr("McpScope — %1").arg(QFileInfo(path).fileName()));
    setStatus(tr("%n server(s) from %1", nullptr, int(m_workspace.servers.size())).arg(path));
    QSettings().setValue(QStringLiteral("workspace/lastPath"), path);
    if (m_serverPresentation->rowCount() > 0)
        m_serversView->setCurrentIndex(m_serverPresentation->index(0, 0));
    return true;
}

bool MainWindow::importFile(const QString& path)
{
    ConfigError error;
    auto imported = Workspace::load(path, &error);
    if (!imported) {
        setStatus(error.toString());
        QMessageBox::warning(this, tr("Import failed"), error.toString());
        return false;
    }
    int added = 0;
    for (ServerConfig config : std::as_const(imported->servers)) {
        const QString base = config.name;
        for (int n = 2; serverNames().contains(config.name); ++n)
            config.name = base + QStringLiteral(" (%1)").arg(n);
        m_workspace.servers.append(config);
        m_engine->addServer(config);
        m_calls->addServerName(config.name);
        ++added;
    }
    setStatus(tr("Imported %n server(s) from %1", nullptr, added).arg(path));
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

QStringList MainWindow::serverNames() const
{
    QStringList names;
    for (const ServerConnection* c : m_engine->connections())
        names.append(c->name());
    return names;
}

ServerConnection* MainWindow::currentConnection() const
{
    const QModelIndex index = m_serversView->currentIndex();
    if (!index.isValid())
        return nullptr;
    return m_serverModel->connectionAt(index.row());
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
    for (int row = 0; row < m_toolsPresentation->rowCount(); ++row) {
        const QModelIndex index = m_toolsPresentation->index(row, 0);
        if (index.data(ToolsModelRole::ToolNameRole).toString() == name) {
            m_toolsView->setCurrentIndex(index);
            m_centre->setCurrentIndex(1);
            return;
        }
    }
}

void MainWindow::selectCall(const QString& callId)
{
    m_calls->selectCall(callId);
}

void MainWindow::onServerSelected()
{
    ServerConnection* c = currentConnection();
    m_toolsModel->setConnection(c);
    m_composer->setTool({});
    refreshOverview();
    refreshFaultBar();
}

void MainWindow::refreshOverview()
{
    ServerConnection* c = currentConnection();
    if (!c) {
        m_overview->setText(tr("Add a server (Ctrl+N), import an mcp.json (Ctrl+O) or drop one here."));
        return;
    }
    const ClientSession* s = c->session();
    QString html = tr("<h2>%1</h2>").arg(c->name().toHtmlEscaped());
    html += tr("<p><b>State:</b> %1 &nbsp; <b>Transport:</b> %2</p>")
                .arg(Presentation::stateText(c->state()), Presentation::transportText(c->activeTransport()));
    if (!c->lastError().isEmpty() && c->state() == ServerConnection::State::Failed)
        html += tr("<p style='color:#b02a37'><b>Last error:</b> %1</p>").arg(c->lastError().toHtmlEscaped());
    if (s && !s->details().protocolVersion.isEmpty()) {
        const ServerDetails& d = s->details();
        html += tr("<p><b>Server:</b> %1 %2<br><b>Protocol:</b> %3<br><b>Session:</b> <code>%4</code></p>")
                    .arg(d.serverInfo.value(QLatin1String("name")).toString().toHtmlEscaped(),
                        d.serverInfo.value(QLatin1String("version")).toString().toHtmlEscaped(), d.protocolVersion,
                        c->sessionId().toHtmlEscaped());
        QStringList capabilities;
        for (auto it = d.capabilities.constBegin(); it != d.capabilities.constEnd(); ++it) {
            QStringList flags;
            const QJsonObject sub = it.value().toObject();
            for (auto f = sub.constBegin(); f != sub.constEnd(); ++f)
                flags.append(f.value().isBool() ? (f.value().toBool() ? f.key() : QString()) : f.key());
            flags.removeAll(QString());
            capabilities.append(
                flags.isEmpty() ? it.key() : QStringLiteral("%1 (%2)").arg(it.key(), flags.join(QStringLiteral(", "))));
        }
        html += tr("<p><b>Capabilities:</b> %1</p>").arg(capabilities.join(QStringLiteral(" · ")).toHtmlEscaped());
        if (!d.instructions.isEmpty())
            html += tr("<p><b>Instructions:</b></p><pre style='white-space:pre-wrap'>%1</pre>")
                        .arg(d.instructions.toHtmlEscaped());
    }
    const CircuitBreaker* b = c->breaker();
    html += tr("<p><b>Breaker:</b> %1, %2 consecutive failure(s)%3</p>")
                .arg(CircuitBreaker::stateName(b->state()))
                .arg(b->consecutiveFailures())
                .arg(c->config().idempotentReplay ? tr("<br><b>Policy:</b> idempotent-replay is on") : QString());
    m_overview->setText(html);
}

void MainWindow::refreshFaultBar()
{
    ServerConnection* c = currentConnection();
    const bool stdio = c && c->activeTransport() == TransportKind::Stdio;
    const QString current = m_faultKind->currentText();
    m_faultKind->blockSignals(true);
    m_faultKind->clear();
    if (stdio) {
        for (const EnumName<StdioFault>& fault : StdioFaultEntries)
            m_faultKind->addItem(fault.name.toString());
    } else if (c && c->faultProxy()) {
        for (const char* name : HttpFaults)
            m_faultKind->addItem(QString::fromLatin1(name));
    }
    m_faultKind->setCurrentText(current);
    m_faultKind->setEnabled(m_faultKind->count() > 0);
    m_faultKind->setToolTip(m_faultKind->count() > 0
            ? QString()
            : tr("HTTP faults need the server routed through the fault proxy (Edit server)."));
    m_faultKind->blockSignals(false);
    QStringList armed;
    if (c && c->faultProxy()) {
        for (const FaultProxy::Fault& f : c->faultProxy()->armed())
            armed.append(QStringLiteral("%1×%2").arg(FaultProxy::kindName(f.kind)).arg(f.count));
    }
    if (c && c->pendingStdioFaults() > 0)
        armed.append(tr("%n stdio fault(s)", nullptr, c->pendingStdioFaults()));
    m_armed->setText(armed.isEmpty() ? tr(" nothing armed ") : tr(" armed: %1 ").arg(armed.join(QStringLiteral(", "))));
}

void MainWindow::armFault()
{
    ServerConnection* c = currentConnection();
    if (!c || m_faultKind->currentText().isEmpty())
        return;
    const QString name = m_faultKind->currentText();
    if (c->activeTransport() == TransportKind::Stdio) {
        const StdioFault kind = StdioFaultNames.fromName(name).value_or(StdioFault::Delay);
        for (int i = 0; i < m_faultCount->value(); ++i)
            c->armStdioFault(kind, m_faultDelay->value());
    } else if (FaultProxy* proxy = c->faultProxy()) {
        FaultProxy::Fault fault;
        fault.kind = FaultProxy::kindFromName(name).value_or(FaultProxy::FaultKind::ExpireAfter);
        fault.count = m_faultCount->value();
        fault.delayMs = m_faultDelay->value();
        fault.method = QStringLiteral("tools/call");
        proxy->arm(fault);
        c->noteEvent(QStringLiteral("action"), tr("armed fault %1 ×%2").arg(name).arg(fault.count));
        connect(proxy, &FaultProxy::armedChanged, this, &MainWindow::refreshFaultBar, Qt::UniqueConnection);
    }
    refreshFaultBar();
}

void MainWindow::callSelectedTool()
{
    ServerConnection* c = currentConnection();
    const QModelIndex tool = m_toolsView->currentIndex();
    if (!c || !tool.isValid()) {
        setStatus(tr("Select a server and a tool first."));
        return;
    }
    const QString name = tool.data(ToolsModelRole::ToolNameRole).toString();
    const std::optional<QJsonObject> arguments = m_composer->arguments();
    if (!arguments) {
        setStatus(tr("The arguments for %1 are not valid yet; see the composer.").arg(name));
        return;
    }
    CallOptions options;
    QPointer<CallComposer> composer(m_composer);
    options.onProgress = [composer](const ProgressUpdate& update) {
        if (composer)
            composer->setProgress(update.progress, update.total, update.message);
    };
    m_result->showMessage(tr("Calling %1 on %2…").arg(name, c->name()));
    m_composer->setRunning(true);
    m_runningOn = c;
    m_runningCall.clear();
    // A call refused at once (breaker open) finishes before the id comes back.
    auto atOnce = std::make_shared<std::optional<CallRecord>>();
    m_runningCall = m_engine->call(c->name(), QStringLiteral("tools/call"),
        { { QStringLiteral("name"), name }, { QStringLiteral("arguments"), *arguments } }, options,
        [atOnce](const CallRecord& record) { *atOnce = record; });
    if (const auto& record = *atOnce; record && record->callId == m_runningCall && record->isFinished()) {
        m_composer->setRunning(false);
        m_result->showRecord(*record, c->session() ? c->session()->tool(name) : nullptr);
        m_runningCall.clear();
    }
}

void MainWindow::onCallUpdated(const CallRecord& record)
{
    if (record.callId == m_runningCall && record.isFinished()) {
        m_composer->setRunning(false);
        ServerConnection* c = m_runningOn;
        m_result->showRecord(record, c && c->session() ? c->session()->tool(record.tool) : nullptr);
        m_runningCall.clear();
    }
    m_calls->updateRecord(record);
    refreshFaultBar();
}

void MainWindow::lookupRecord(const QString& callId, std::function<void(std::optional<CallRecord>)> deliver)
{
    if (m_fallbackStore)
        deliver(m_fallbackStore->record(callId));
    else
        m_logStore->readRecord(callId, this, std::move(deliver));
}

void MainWindow::addServer()
{
    ServerDialog dialog(serverNames(), this);
    dialog.setWindowTitle(tr("New Server"));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ServerConfig config = dialog.config();
    m_workspace.servers.append(config);
    m_engine->addServer(config);
    m_calls->addServerName(config.name);
    selectServer(config.name);
}

void MainWindow::editServer()
{
    ServerConnection* c = currentConnection();
    if (!c)
        return;
    QStringList others = serverNames();
    others.removeAll(c->name());
    ServerDialog dialog(others, this);
    dialog.setConfig(c->config());
    dialog.setWindowTitle(tr("Edit %1").arg(c->name()));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ServerConfig config = dialog.config();
    for (ServerConfig& s : m_workspace.servers)
        if (s.name == c->name())
            s = config;
    m_logStore->addServer(config);
    if (config.name != c->name()) {
        m_engine->removeServer(c->name());
        m_engine->addServer(config);
    } else {
        c->setConfig(config);
    }
    setStatus(tr("Server %1 changed; reconnect (F5) to apply transport changes.").arg(config.name));
}

void MainWindow::duplicateServer()
{
    ServerConnection* c = currentConnection();
    if (!c)
        return;
    ServerConfig copy = c->config();
    const QString base = copy.name + tr(" copy");
    copy.name = base;
    for (int n = 2; serverNames().contains(copy.name); ++n)
        copy.name = base + QStringLiteral(" %1").arg(n);
    m_workspace.servers.append(copy);
    m_engine->addServer(copy);
    m_calls->addServerName(copy.name);
}

void MainWindow::removeServer()
{
    ServerConnection* c = currentConnection();
    if (!c)
        return;
    const QString name = c->name();
    if (QMessageBox::question(this, tr("Remove server"), tr("Remove '%1' from the workspace?").arg(name))
        != QMessageBox::Yes)
        return;
    m_workspace.servers.removeIf([&name](const ServerConfig& s) { return s.name == name; });
    m_engine->removeServer(name);
}

void MainWindow::saveWorkspace()
{
    QString path = m_workspace.filePath;
    if (path.isEmpty() || m_workspace.dialect != McpJsonImport::Dialect::McpScopeWorkspace)
        path = QFileDialog::getSaveFileName(this, tr("Save Workspace"), QString(), tr("McpScope workspace (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!m_workspace.save(path, &error)) {
        QMessageBox::warning(this, tr("Save failed"), error);
        return;
    }
    m_workspace.filePath = path;
    setStatus(tr("Saved %1").arg(path));
}

CallsModel* MainWindow::callsModel() const
{
    return m_calls->model();
}

QTableView* MainWindow::callsView() const
{
    return m_calls->view();
}

TimelineView* MainWindow::timeline() const
{
    return m_calls->timeline();
}

QString MainWindow::logStorePathFor(const QString& workspacePath)
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

void MainWindow::openLogStore(const QString& workspacePath)
{
    m_logStore->close();
    m_logError.clear();
    const QString path = logStorePathFor(workspacePath);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QString error;
    Redactor redactor;
    for (const ServerConfig& config : std::as_const(m_workspace.servers))
        redactor.addServer(config);
    m_logStore->setRedactor(redactor);
    if (!m_logStore->open(path, &error)) {
        // The app keeps working: calls stay in memory (and can still be exported) for this session.
        m_logError = error;
        if (!m_fallbackStore) {
            m_fallbackStore = new CallRecordStore(this);
            connect(m_engine, &Engine::callUpdated, m_fallbackStore, &CallRecordStore::ingest);
        }
        setStatus(tr("The call log cannot be opened: %1 Calls are kept in memory only for this session.").arg(error));
        refreshLogStatus();
        return;
    }
    delete m_fallbackStore;
    m_fallbackStore = nullptr;
    QSettings settings;
    m_logStore->setRetention(settings.value(QStringLiteral("log/retentionDays"), 0).toInt(),
        settings.value(QStringLiteral("log/retentionMegabytes"), 0).toLongLong() * 1024 * 1024);

    // Earlier sessions' calls, newest HistoryLimit of them; details load from the database on demand. Both
    // reads run on the store's reader thread; a later open's answers replace these.
    m_calls->model()->clear();
    m_historyShown = 0;
    m_storedAtOpen = 0;
    const quint64 generation = ++m_logGeneration;
    m_logStore->readRecentCalls(HistoryLimit, this, [this, generation](QList<CallSummary> history) {
        if (generation != m_logGeneration)
            return;
        std::reverse(history.begin(), history.end());
        // Calls of this session that arrived meanwhile are not history.
        const int live = m_calls->model()->rowCount();
        for (const CallSummary& summary : std::as_const(history))
            m_calls->model()->ingestColumns(summary.toTableRow());
        m_calls->model()->flush();
        m_historyShown = m_calls->model()->rowCount() - live;
        refreshLogStatus();
    });
    m_logStore->readCallCount(this, [this, generation](qint64 count) {
        if (generation != m_logGeneration)
            return;
        // The count includes the live calls not committed yet, which the table counts already.
        m_storedAtOpen = count - (m_calls->model()->rowCount() - m_historyShown);
        refreshLogStatus();
    });
    refreshLogStatus();
}

void MainWindow::refreshLogStatus()
{
    QString text;
    QString tip;
    if (!m_logStore->isOpen()) {
        text = m_logError.isEmpty() ? tr("Call log: none (open a workspace)") : tr("Call log: in memory only");
        tip = m_logError;
    } else {
        // Counted once at open, then followed through the table: callCount() queries every call not
        // yet committed, too slow to run each second while thousands are queued.
        const qint64 calls = std::max<qint64>(
            0, m_storedAtOpen + (m_calls->model()->rowCount() - m_historyShown) - m_logStore->prunedCalls());
        text = tr("Call log: %L1 call(s)", nullptr, int(std::min<qint64>(calls, INT_MAX))).arg(calls);
        QStringList limits;
        if (m_logStore->retentionDays() > 0)
            limits.append(tr("%n day(s)", nullptr, m_logStore->retentionDays()));
        if (m_logStore->retentionBytes() > 0)
            limits.append(tr("%L1 MB").arg(m_logStore->retentionBytes() / (1024 * 1024)));
        text += limits.isEmpty() ? tr(" · kept forever") : tr(" · kept %1").arg(limits.join(tr(" / ")));
        if (m_logStore->prunedCalls() > 0)
            text += tr(" · %L1 pruned").arg(m_logStore->prunedCalls());
        tip = m_logStore->path();
        if (m_historyShown >= HistoryLimit)
            tip += tr("\nThe table shows the newest %L1 calls of earlier sessions.").arg(HistoryLimit);
        if (!m_logError.isEmpty()) {
            text += tr(" · NOT SAVING");
            tip = m_logError;
        }
    }
    m_logStatus->setText(text);
    m_logStatus->setToolTip(tip);
    m_logStatus->setStyleSheet(m_logError.isEmpty() ? QString() : QStringLiteral("color:#b02a37;font-weight:bold"));
}

QString MainWindow::logStatusText() const
{
    return m_logStatus->text();
}

void MainWindow::setLogRetention(int maxAgeDays, int maxMegabytes)
{
    QSettings settings;
    settings.setValue(QStringLiteral("log/retentionDays"), maxAgeDays);
    settings.setValue(QStringLiteral("log/retentionMegabytes"), maxMegabytes);
    m_logStore->setRetention(maxAgeDays, qint64(maxMegabytes) * 1024 * 1024);
    if (m_logStore->isOpen())
        m_logStore->pruneNow();
    refreshLogStatus();
}

void MainWindow::editRetention()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Call Log Retention"));
    auto* form = new QFormLayout(&dialog);
    auto* explanation = new QLabel(tr("Finished calls older than the age limit, and the oldest calls while the log "
                                      "is larger than the size limit, are removed. 0 turns a limit off. Nothing "
                                      "else is ever removed."),
        &dialog);
    explanation->setWordWrap(true);
    form->addRow(explanation);
    auto* days = new QSpinBox(&dialog);
    days->setRange(0, 3650);
    days->setSuffix(tr(" days"));
    days->setSpecialValueText(tr("no age limit"));
    days->setValue(m_logStore->retentionDays());
    auto* megabytes = new QSpinBox(&dialog);
    megabytes->setRange(0, 1024 * 1024);
    megabytes->setSuffix(tr(" MB"));
    megabytes->setSpecialValueText(tr("no size limit"));
    megabytes->setValue(int(m_logStore->retentionBytes() / (1024 * 1024)));
    form->addRow(tr("Keep calls for:"), days);
    form->addRow(tr("Keep the log under:"), megabytes);
    form->addRow(new QLabel(tr("Log file: %1").arg(m_logStore->isOpen() ? m_logStore->path() : tr("none")), &dialog));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() == QDialog::Accepted)
        setLogRetention(days->value(), megabytes->value());
}

void MainWindow::openLogFile(const QString& path, bool interactive)
{
    // Big logs are parsed on a worker thread; the window opens when they are read.
    auto result = std::make_shared<CallLogReadResult>();
    QThread* reader = QThread::create([path, result] { *result = CallLogReader::read(path); });
    setStatus(tr("Reading %1…").arg(path));
    connect(reader, &QThread::finished, this, [this, reader, result, path, interactive] {
        reader->deleteLater();
        if (result->ok && result->records.isEmpty() && !result->problems.isEmpty()) {
            // Lines, but not one this McpScope can show (e.g. all from a newer schema).
            result->ok = false;
            result->error = tr("%1: no call record could be read. %2")
                                .arg(path, result->problems.mid(0, 3).join(QStringLiteral("; ")));
        }
        if (!result->ok) {
            setStatus(result->error);
            if (interactive)
                QMessageBox::warning(this, tr("Cannot open call log"), result->error);
            Q_EMIT logOpenFailed(result->error);
            return;
        }
        auto* window = new LogViewerWindow(path, *result);
        window->show();
        setStatus(tr("Opened %1: %n call(s)", nullptr, int(result->records.size())).arg(path)
            + (result->problems.isEmpty() ? QString()
                                          : tr(", %n line(s) skipped", nullptr, int(result->problems.size()))));
        Q_EMIT logOpened(window);
    });
    reader->start();
}

void MainWindow::setStatus(const QString& text)
{
    m_status->setText(text);
}

} // namespace mcpscope
