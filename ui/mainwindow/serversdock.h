#pragma once

#include <QDockWidget>

class QTreeView;

namespace mcpscope {

class ServerConnection;
class ServerListModel;
class ServerListPresentation;

/// The Servers dock: one row per server of the workspace (state, breaker, counters), whose current row
/// is the server every other view of the window shows. Columns fit their contents a few times a second
/// at most, so a hundred servers changing state do not stall the window.
///
/// Signals: currentServerChanged() when the selected row changes.
class ServersDock : public QDockWidget
{
    Q_OBJECT
public:
    ServersDock(ServerListModel* model, ServerListPresentation* presentation, QWidget* parent = nullptr);

    QTreeView* view() const { return m_view; }
    /// The selected server, or nullptr.
    ServerConnection* currentConnection() const;
    /// Selects the server named name; false when there is none.
    bool selectServer(const QString& name);
    /// Selects the first server, if there is one.
    void selectFirst();
    /// No server is current (currentServerChanged follows).
    void clearCurrent();

Q_SIGNALS:
    void currentServerChanged();

private:
    ServerListModel* m_model = nullptr;
    ServerListPresentation* m_presentation = nullptr;
    QTreeView* m_view = nullptr;
};

} // namespace mcpscope
