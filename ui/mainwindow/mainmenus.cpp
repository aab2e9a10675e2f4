#include "mainmenus.h"

#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "mainwindow/calllogcontrols.h"
#include "mainwindow/docksmenu.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/serveractions.h"
#include "mainwindow/serversdock.h"
#include "mainwindow/theme.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QToolBar>
#include <QTreeView>

namespace mcpscope {

void createMainMenus(MainWindow* window, ServerActions* serverActions, CallLogControls* log, ServersDock* servers)
{
    QMenu* file = window->menuBar()->addMenu(MainWindow::tr("&File"));
    file->addAction(serverActions->newServer());
    QAction* import = file->addAction(MainWindow::tr("&Import mcp.json…"), window, [window] {
        const QString path = QFileDialog::getOpenFileName(window,
            MainWindow::tr("Import an mcp.json (Claude Desktop, Cursor, VS Code)"), QString(),
            MainWindow::tr("JSON files (*.json);;All files (*)"));
        if (!path.isEmpty())
            window->importFile(path);
    });
    import->setShortcut(QKeySequence::Open);
    file->addAction(MainWindow::tr("Open &Workspace…"), window, [window] {
        const QString path = QFileDialog::getOpenFileName(
            window, MainWindow::tr("Open Workspace"), QString(), MainWindow::tr("JSON files (*.json)"));
        if (!path.isEmpty())
            window->openWorkspace(path);
    });
    QAction* save = file->addAction(MainWindow::tr("&Save Workspace"), window, &MainWindow::saveWorkspace);
    save->setShortcut(QKeySequence::Save);
    QAction* exportAction
        = file->addAction(MainWindow::tr("&Export Calls…"), window->exporter(), &CallsExporter::exportInteractively);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    QAction* openLog = file->addAction(MainWindow::tr("Open Call &Log…"), log, &CallLogControls::chooseLogFile);
    openLog->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(MainWindow::tr("Call Log &Retention…"), log, &CallLogControls::editRetention);
    file->addSeparator();
    QAction* quit = file->addAction(MainWindow::tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* server = window->menuBar()->addMenu(MainWindow::tr("&Server"));
    for (QAction* action : serverActions->menuActions()) {
        if (action)
            server->addAction(action);
        else
            server->addSeparator();
    }
    servers->view()->addActions(serverActions->contextActions());

    QMenu* view = window->menuBar()->addMenu(MainWindow::tr("&View"));
    QAction* find
        = view->addAction(MainWindow::tr("&Filter Calls"), window, [window] { window->callsPanel()->focusSearch(); });
    find->setShortcut(QKeySequence::Find);
    addThemeMenu(view);
    addDocksMenu(view, window);

    QToolBar* main = window->addToolBar(MainWindow::tr("Main"));
    main->setObjectName(QStringLiteral("mainToolBar"));
    main->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    main->addAction(serverActions->newServer());
    main->addAction(import);
    main->addSeparator();
    main->addAction(serverActions->connectServer());
    main->addAction(serverActions->disconnectServer());
    main->addAction(serverActions->reconnectServer());
    main->addAction(serverActions->pingServer());
}

} // namespace mcpscope
