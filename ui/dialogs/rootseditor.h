#pragma once

#include <QGroupBox>

#include <functional>

class QListWidget;
class QPushButton;

namespace mcpscope {

/// The folders a server is offered as MCP roots (its roots/list answer), edited with a folder picker.
/// Order is kept; a folder already in the list is not added twice.
///
/// Signals: changed() after every edit.
class RootsEditor : public QGroupBox
{
    Q_OBJECT
public:
    explicit RootsEditor(QWidget* parent = nullptr);

    void setRoots(const QStringList& roots);
    QStringList roots() const;
    /// Adds a folder (a path or a file: URI); false when it is already listed or empty.
    bool addRoot(const QString& root);
    /// Replaces the folder picker (tests): returns the chosen folder, or an empty string.
    void setFolderChooser(std::function<QString()> chooser) { m_chooser = std::move(chooser); }

Q_SIGNALS:
    void changed();

private:
    void updateButtons();

    QListWidget* m_list = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    std::function<QString()> m_chooser;
};

} // namespace mcpscope
