#pragma once

#include "config/workspace.h"

#include <QMainWindow>

class QTableWidget;
class QLabel;

namespace mcpscope {

class Engine;
class ServerConnection;

/// The first McpScope window: the workspace's servers with their live connection state.
/// The full inspector (server view, calls, traffic, faults) grows from here.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a workspace or mcp.json file; on failure shows the error in the status bar and returns false.
    bool openWorkspace(const QString& path);
    Engine* engine() const { return m_engine; }

private:
    void addRow(ServerConnection* connection);
    void updateRow(ServerConnection* connection);
    ServerConnection* selectedConnection() const;
    void openWorkspaceDialog();

    Engine* m_engine = nullptr;
    QTableWidget* m_servers = nullptr;
    QLabel* m_status = nullptr;
    Workspace m_workspace;
};

} // namespace mcpscope
