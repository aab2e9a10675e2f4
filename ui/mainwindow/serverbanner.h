#pragma once

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;

namespace mcpscope {

class ServerConnection;

/// A strip above all of the selected server's centre tabs that says when the server is not usable:
/// its start or session failed (with the error, which names the server and what failed), it waits for
/// authorization, its reconnects are parked, or it is not connected. A button connects it again.
/// Hidden while the server is connecting or ready.
class ServerBanner : public QWidget
{
    Q_OBJECT
public:
    explicit ServerBanner(QWidget* parent = nullptr);

    /// Follows connection's state (nullptr hides the banner).
    void showConnection(ServerConnection* connection);
    /// Puts the banner above tabs in a new widget (what the window sets as its centre).
    static QWidget* wrap(ServerBanner* banner, QWidget* tabs, QWidget* parent);

    QString text() const;
    QPushButton* button() const { return m_button; }

private:
    void refresh();
    void act();

    QPointer<ServerConnection> m_connection;
    QLabel* m_text = nullptr;
    QPushButton* m_button = nullptr;
};

} // namespace mcpscope
