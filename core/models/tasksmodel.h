#pragma once

#include "engine/tasktracker.h"

#include <QAbstractTableModel>
#include <QList>
#include <QPointer>

namespace mcpscope {

/// One server's tasks as TaskTracker knows them (2025-11-25 tasks), one row per task in the order they
/// became known; raw values only (tasksmodeldefs.h), presented by TasksPresentation in ui/. A row changes in
/// place whenever the tracker reports the task changed.
class TasksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit TasksModel(QObject* parent = nullptr);

    /// Follows server's tasks in tracker (null or an empty server: no rows).
    void setServer(TaskTracker* tracker, const QString& server);
    QString server() const { return m_server; }
    int rowOf(const QString& taskId) const;
    const TaskInfo& task(int row) const { return m_tasks.at(row); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    void onTaskChanged(const TaskInfo& task);

    QPointer<TaskTracker> m_tracker;
    QString m_server;
    QList<TaskInfo> m_tasks;
};

} // namespace mcpscope
