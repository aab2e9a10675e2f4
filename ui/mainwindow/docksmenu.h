#pragma once

class QMainWindow;
class QMenu;

namespace mcpscope {

/// Adds "Docks" and "Toolbars" submenus to menu (the View menu) with a check action for every dock
/// widget and toolbar of window, so a closed dock comes back from there. The submenus are filled each
/// time they open, so docks and toolbars added later are listed too.
void addDocksMenu(QMenu* menu, QMainWindow* window);

} // namespace mcpscope
