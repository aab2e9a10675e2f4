#pragma once

#include <QJsonObject>
#include <QWidget>

#include <optional>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QShortcut;
class QTabWidget;
class QTimer;

namespace mcpscope {

class SchemaForm;

/// Composes a tools/call: the tool's name and description, its arguments as a generated form or as
/// raw JSON (kept in sync both ways), Call / Cancel, and the running call's progress.
///
/// Call stays enabled when the arguments break the schema, so a server's own validation can be
/// tested; the problems are listed under the editor instead.
class CallComposer : public QWidget
{
    Q_OBJECT
public:
    explicit CallComposer(QWidget* parent = nullptr);
    ~CallComposer() override;

    /// Shows a tool from tools/list (`name`, `title`, `description`, `inputSchema`) and resets the
    /// arguments to the schema's defaults. A non-empty excludedReason (a tool McpScope leaves out, 2026-07-28
    /// x-mcp-header rules) shows the reason and keeps Call disabled.
    void setTool(const QJsonObject& toolJson, const QString& excludedReason = {});
    /// Why the shown tool is not callable; empty for a callable one.
    QString excludedReason() const { return m_excludedReason; }
    QJsonObject tool() const { return m_tool; }

    /// The arguments Call would send: the form's value, or the JSON text when the JSON tab is shown.
    /// Empty when that text does not parse as a JSON object.
    std::optional<QJsonObject> arguments() const;

    SchemaForm* form() const { return m_form; }
    /// The "Run as task" box (2025-11-25 tasks): checked and locked for a tool whose execution.taskSupport is
    /// required, free for optional, unchecked and locked for a tool without task support.
    bool runAsTask() const;
    QCheckBox* runAsTaskBox() const { return m_asTask; }

    /// While running, Call is disabled and Cancel (and Esc) enabled. The progress bar shows once the call
    /// has run for ProgressDelayMs or reports progress, so that fast calls do not flash it (and do not
    /// lay the composer out twice per call).
    void setRunning(bool running);
    static constexpr int ProgressDelayMs = 150;
    bool isRunning() const { return m_running; }

    /// A progress notification for the running call; without a total the bar is indeterminate.
    void setProgress(double progress, std::optional<double> total, const QString& message);

Q_SIGNALS:
    /// Call was clicked or Ctrl+Return pressed, with arguments that parse.
    void callRequested(const QJsonObject& arguments);
    /// Cancel was clicked or Esc pressed while a call runs.
    void cancelRequested();

private:
    void formEdited();
    void jsonEdited();
    void requestCall();
    void updateProblems();
    /// Call is disabled, saying why, while no tool is selected or a call runs.
    void updateCallButton();
    void setJsonError(const QString& error);

    QJsonObject m_tool;
    QLabel* m_title = nullptr;
    QLabel* m_name = nullptr;
    QLabel* m_description = nullptr;
    QLabel* m_excluded = nullptr;
    QString m_excludedReason;
    QTabWidget* m_tabs = nullptr;
    SchemaForm* m_form = nullptr;
    QPlainTextEdit* m_json = nullptr;
    QLabel* m_jsonError = nullptr;
    QLabel* m_problems = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_progressText = nullptr;
    QCheckBox* m_asTask = nullptr;
    QPushButton* m_call = nullptr;
    QPushButton* m_cancel = nullptr;
    QShortcut* m_escape = nullptr;
    QTimer* m_progressDelay = nullptr;
    bool m_running = false;
    bool m_syncing = false;
};

} // namespace mcpscope
