#pragma once

#include <QLabel>

namespace mcpscope {

class LogViewerWindow;
class WorkspaceSession;

/// The call log's part of the main window: the status-bar indicator (size, retention, write errors),
/// the retention dialog, and opening a JSONL call log read-only in a window of its own.
///
/// Signals: logOpened(window) and logOpenFailed(message) when openLogFile() ends; statusMessage(text)
/// for the window's status bar.
class CallLogControls : public QLabel
{
    Q_OBJECT
public:
    /// dialogParent: where the retention dialog and message boxes are centred.
    CallLogControls(WorkspaceSession* session, QWidget* dialogParent);

    /// Reads a JSONL call log on a worker thread and opens it read-only in a new window, or reports
    /// what is wrong with it (and shows a message box if interactive).
    void openLogFile(const QString& path, bool interactive);
    /// Asks for a file and opens it with openLogFile().
    void chooseLogFile();
    void editRetention();

Q_SIGNALS:
    void logOpened(mcpscope::LogViewerWindow* window);
    void logOpenFailed(const QString& message);
    void statusMessage(const QString& text);

private:
    void refresh();

    WorkspaceSession* m_session = nullptr;
    QWidget* m_dialogParent = nullptr;
};

} // namespace mcpscope
