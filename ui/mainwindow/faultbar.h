#pragma once

#include <QList>
#include <QToolBar>

#include <functional>

class QAction;
class QComboBox;
class QLabel;
class QSpinBox;

namespace mcpscope {

class ServerConnection;

/// The fault & trigger bar: expire the session (server or client side), kill the transport, arm faults
/// (the stdio set for a stdio server, the fault proxy's for an HTTP server routed through it), and open
/// or reset the breaker, all on the server the window has selected. Shows what is armed.
///
/// Signals: statusMessage(text) when an action fails, with the reason naming the server.
class FaultBar : public QToolBar
{
    Q_OBJECT
public:
    /// currentConnection gives the selected server (or nullptr) each time an action runs.
    explicit FaultBar(std::function<ServerConnection*()> currentConnection, QWidget* parent = nullptr);

    /// Offers the faults the selected server's transport can take and shows what is armed.
    void refresh();

Q_SIGNALS:
    void statusMessage(const QString& text);
    /// The user asked to put an HTTP server behind the fault proxy (Route through fault proxy).
    void routeThroughProxyRequested(mcpscope::ServerConnection* connection);

private:
    void armFault();

    std::function<ServerConnection*()> m_currentConnection;
    QComboBox* m_faultKind = nullptr;
    QSpinBox* m_faultCount = nullptr;
    QSpinBox* m_faultDelay = nullptr;
    QLabel* m_armed = nullptr;
    QAction* m_arm = nullptr;
    QAction* m_routeThroughProxy = nullptr;
    QList<QAction*> m_serverActions; ///< what needs a selected server
};

} // namespace mcpscope
