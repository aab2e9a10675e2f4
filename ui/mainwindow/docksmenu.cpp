#include "docksmenu.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>

#include <algorithm>

namespace mcpscope {

namespace {

// Each widget's own toggle action (QDockWidget/QToolBar::toggleViewAction), sorted by title.
template <typename Widget> void fill(QMenu* menu, QMainWindow* window)
{
    menu->clear();
    QList<Widget*> widgets = window->findChildren<Widget*>(QString(), Qt::FindDirectChildrenOnly);
    std::sort(widgets.begin(), widgets.end(),
        [](const Widget* a, const Widget* b) { return a->windowTitle().localeAwareCompare(b->windowTitle()) < 0; });
    for (Widget* widget : std::as_const(widgets))
        menu->addAction(widget->toggleViewAction());
}

} // namespace

void addDocksMenu(QMenu* menu, QMainWindow* window)
{
    // The texts keep the main window's translation context: they are its View menu's.
    QMenu* docks = menu->addMenu(QCoreApplication::translate("mcpscope::MainWindow", "&Docks"));
    docks->setObjectName(QStringLiteral("docksMenu"));
    QObject::connect(docks, &QMenu::aboutToShow, docks, [docks, window] { fill<QDockWidget>(docks, window); });
    fill<QDockWidget>(docks, window);
    QMenu* toolbars = menu->addMenu(QCoreApplication::translate("mcpscope::MainWindow", "T&oolbars"));
    toolbars->setObjectName(QStringLiteral("toolbarsMenu"));
    QObject::connect(toolbars, &QMenu::aboutToShow, toolbars, [toolbars, window] { fill<QToolBar>(toolbars, window); });
    fill<QToolBar>(toolbars, window);
}

} // namespace mcpscope
