#pragma once

#include <QPointer>
#include <QSplitter>

class QLabel;
class QPushButton;
class QTableView;

namespace mcpscope {

class Engine;
class ResultView;
class ServerConnection;
class TasksModel;
class TasksPresentation;

/// The Tasks tab (2025-11-25 tasks, experimental): the selected server's tasks as TaskTracker follows them
/// (id, tool, status, status message, created, updated, TTL, poll interval), List (tasks/list), Cancel
/// (tasks/cancel) for the selected task, and below the task's call: its timeline of status changes and, once
/// tasks/result answered, its result. A task's elicitation or sampling (input_required) reaches the user
/// through the app's responder like any request of the server.
///
/// Signals: statusMessage(text) when a request fails or cannot start, saying why.
class TasksPage : public QSplitter
{
    Q_OBJECT
public:
    explicit TasksPage(Engine* engine, QWidget* parent = nullptr);

    void showConnection(ServerConnection* connection);
    /// tasks/list for the selected server.
    void refresh();
    /// tasks/cancel for the selected task.
    void cancelSelected();
    bool selectTask(const QString& taskId);

    TasksModel* model() const { return m_model; }
    QTableView* tasksView() const { return m_view; }
    ResultView* resultView() const { return m_result; }
    QPushButton* cancelButton() const { return m_cancel; }

Q_SIGNALS:
    void statusMessage(const QString& text);

private:
    QString selectedTaskId() const;
    void showSelected();
    void updateButtons();

    Engine* m_engine;
    QPointer<ServerConnection> m_connection;
    TasksModel* m_model;
    TasksPresentation* m_presentation;
    QLabel* m_heading = nullptr;
    QPushButton* m_list = nullptr;
    QPushButton* m_cancel = nullptr;
    QTableView* m_view = nullptr;
    ResultView* m_result = nullptr;
};

} // namespace mcpscope
