#pragma once

#include <QStackedWidget>

#include <functional>

class QAbstractItemModel;
class QPushButton;

namespace mcpscope {

/// The centre of the main window: while the workspace has no server, a page that says what to do
/// first (add a server, import another client's configuration, open the demo workspace); once a
/// server is there, the content it wraps (the server's tabs). It follows the servers model's rows.
///
/// Signals: addServerRequested(); importRequested(path) with the file the user picked;
/// openWorkspaceRequested(path) for the demo workspace.
class EmptyState : public QStackedWidget
{
    Q_OBJECT
public:
    EmptyState(QAbstractItemModel* servers, QWidget* content, QWidget* parent = nullptr);

    /// The welcome page is on screen.
    bool isShowingEmptyPage() const { return currentWidget() == m_page; }
    QPushButton* addServerButton() const { return m_add; }
    QPushButton* importButton() const { return m_import; }
    QPushButton* demoButton() const { return m_demo; }

    /// What the Import button asks for a file with (a file dialog by default; tests replace it).
    using FileChooser = std::function<QString(QWidget* parent)>;
    void setFileChooser(FileChooser chooser) { m_chooseFile = std::move(chooser); }

    /// The demo workspace shipped with McpScope: $MCPSCOPE_DEMO_WORKSPACE, then
    /// ../share/mcpscope/ beside the binary (an installation), then the source tree's resources/ this
    /// build came from, then ../resources and ../../resources beside the binary. Empty when none exists.
    static QString demoWorkspacePath();

Q_SIGNALS:
    void addServerRequested();
    void importRequested(const QString& path);
    void openWorkspaceRequested(const QString& path);

private:
    void follow();

    QAbstractItemModel* m_servers = nullptr;
    QWidget* m_page = nullptr;
    QWidget* m_content = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_import = nullptr;
    QPushButton* m_demo = nullptr;
    FileChooser m_chooseFile;
};

} // namespace mcpscope
