#pragma once

namespace mcpscope {

class CallLogControls;
class MainWindow;
class ServerActions;
class ServersDock;

/// Builds the main window's File, Server and View menus and its main toolbar, from the actions the
/// window's parts own (ServerActions, CallLogControls, the calls exporter) and its public slots.
void createMainMenus(MainWindow* window, ServerActions* serverActions, CallLogControls* log, ServersDock* servers);

} // namespace mcpscope
