#include "mainwindow.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"

#include <QAction>
#include <QFileInfo>
#include <QApplication>
#include <QFileDialog>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolBar>

namespace mcpscope {

namespace {
enum Column { NameColumn, TransportColumn, TargetColumn, StateColumn, SessionColumn, ColumnCount };

QString targetOf(const ServerConfig& config)
{
    if (config.transport == TransportKind::Stdio)
        return (QStringList { config.command } + config.args).join(QLatin1Char(' '));
    return config.url.toString();
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_engine(new Engine(this))
{
    setWindowTitle(tr("McpScope"));
    m_servers = new QTableWidget(0, ColumnCount, this);
    m_servers->setHorizontalHeaderLabels({ tr("Server"), tr("Transport"), tr("Command or URL"), tr("State"), tr("Session") });
    m_servers->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_servers->setSelectionMode(QAbstractItemView::SingleSelection);
    m_servers->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_servers->verticalHeader()->hide();
    m_servers->horizontalHeader()->setSectionResizeMode(TargetColumn, QHeaderView::Stretch);
    setCentralWidget(m_servers);

    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    QAction* openAction = fileMenu->addAction(tr("&Open Workspace…"), this, &MainWindow::openWorkspaceDialog);
    openAction->setShortcut(QKeySequence::Open);
    fileMenu->addSeparator();
    QAction* quitAction = fileMenu->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quitAction->setShortcut(QKeySequence::Quit);

    auto* serverMenu = menuBar()->addMenu(tr("&Server"));
    QAction* connectAction = serverMenu->addAction(tr("&Connect"), this, [this] {
        if (ServerConnection* c = selectedConnection())
            c->connectToServer();
    });
    connectAction->setShortcut(Qt::Key_F5);
    QAction* disconnectAction = serverMenu->addAction(tr("&Disconnect"), this, [this] {
        if (ServerConnection* c = selectedConnection())
            c->disconnectFromServer();
    });
    QAction* connectAllAction = serverMenu->addAction(tr("Connect &All"), m_engine, &Engine::connectAll);
    connectAllAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F5));

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->addAction(connectAction);
    toolbar->addAction(disconnectAction);
    toolbar->addAction(connectAllAction);

    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);

    connect(m_engine, &Engine::serverAdded, this, &MainWindow::addRow);
    connect(m_servers, &QTableWidget::cellDoubleClicked, this, [this] {
        if (ServerConnection* c = selectedConnection())
            c->connectToServer();
    });

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    if (!settings.contains(QStringLiteral("mainWindow/geometry")))
        resize(960, 540);
}

MainWindow::~MainWindow()
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
}

bool MainWindow::openWorkspace(const QString& path)
{
    ConfigError error;
    auto workspace = Workspace::load(path, &error);
    if (!workspace) {
        m_status->setText(error.toString());
        return false;
    }
    for (ServerConnection* c : std::as_const(m_engine->connections()))
        m_engine->removeServer(c->name());
    m_servers->setRowCount(0);
    m_workspace = *workspace;
    for (const ServerConfig& config : std::as_const(m_workspace.servers))
        m_engine->addServer(config);
    setWindowTitle(tr("McpScope — %1").arg(QFileInfo(path).fileName()));
    m_status->setText(tr("%n server(s) in %1", nullptr, int(m_workspace.servers.size())).arg(path));
    QSettings().setValue(QStringLiteral("workspace/lastPath"), path);
    return true;
}

void MainWindow::openWorkspaceDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Workspace or mcp.json"), QString(), tr("JSON files (*.json);;All files (*)"));
    if (!path.isEmpty())
        openWorkspace(path);
}

void MainWindow::addRow(ServerConnection* connection)
{
    const int row = m_servers->rowCount();
    m_servers->insertRow(row);
    for (int column = 0; column < ColumnCount; ++column)
        m_servers->setItem(row, column, new QTableWidgetItem);
    m_servers->item(row, NameColumn)->setData(Qt::UserRole, connection->name());
    connect(connection, &ServerConnection::stateChanged, this, [this, connection] { updateRow(connection); });
    connect(connection, &ServerConnection::failed, this, [this, connection](const QString& message) {
        m_status->setText(message);
        updateRow(connection);
    });
    updateRow(connection);
    if (m_servers->currentRow() < 0)
        m_servers->selectRow(0);
}

void MainWindow::updateRow(ServerConnection* connection)
{
    for (int row = 0; row < m_servers->rowCount(); ++row) {
        if (m_servers->item(row, NameColumn)->data(Qt::UserRole).toString() != connection->name())
            continue;
        const ServerConfig& config = connection->config();
        m_servers->item(row, NameColumn)->setText(config.name);
        m_servers->item(row, TransportColumn)->setText(transportKindName(config.transport));
        m_servers->item(row, TargetColumn)->setText(targetOf(config));
        m_servers->item(row, StateColumn)->setText(ServerConnection::stateName(connection->state()));
        m_servers->item(row, StateColumn)->setToolTip(connection->lastError());
        const ClientSession* session = connection->session();
        m_servers->item(row, SessionColumn)->setText(session ? session->details().sessionId : QString());
    }
}

ServerConnection* MainWindow::selectedConnection() const
{
    const int row = m_servers->currentRow();
    if (row < 0)
        return nullptr;
    return m_engine->connection(m_servers->item(row, NameColumn)->data(Qt::UserRole).toString());
}

} // namespace mcpscope
