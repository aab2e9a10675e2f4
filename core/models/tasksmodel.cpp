#include "tasksmodel.h"

#include "tasksmodeldefs.h"

namespace mcpscope {

TasksModel::TasksModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void TasksModel::setServer(TaskTracker* tracker, const QString& server)
{
    if (tracker == m_tracker && server == m_server)
        return;
    beginResetModel();
    if (m_tracker)
        disconnect(m_tracker, nullptr, this, nullptr);
    m_tracker = tracker;
    m_server = server;
    m_tasks = tracker && !server.isEmpty() ? tracker->tasks(server) : QList<TaskInfo>();
    if (m_tracker)
        connect(m_tracker, &TaskTracker::taskChanged, this, &TasksModel::onTaskChanged);
    endResetModel();
}

int TasksModel::rowOf(const QString& taskId) const
{
    for (int row = 0; row < m_tasks.size(); ++row) {
        if (m_tasks.at(row).taskId == taskId)
            return row;
    }
    return -1;
}

void TasksModel::onTaskChanged(const TaskInfo& task)
{
    if (task.server != m_server)
        return;
    const int row = rowOf(task.taskId);
    if (row >= 0) {
        m_tasks[row] = task;
        Q_EMIT dataChanged(index(row, 0), index(row, TasksModelColumn::Count - 1));
        return;
    }
    // A handful of tasks per server, each added once: one insert per task is right here.
    beginInsertRows({}, int(m_tasks.size()), int(m_tasks.size()));
    m_tasks.append(task);
    endInsertRows();
}

int TasksModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_tasks.size());
}

int TasksModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : TasksModelColumn::Count;
}

QVariant TasksModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TaskInfo& t = m_tasks.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case TasksModelColumn::TaskId:
            return t.taskId;
        case TasksModelColumn::Tool:
            return t.tool;
        case TasksModelColumn::Status:
            return int(t.status);
        case TasksModelColumn::StatusMessage:
            return t.statusMessage;
        case TasksModelColumn::Created:
            return t.createdAt;
        case TasksModelColumn::Updated:
            return t.lastUpdatedAt;
        case TasksModelColumn::Ttl:
            return t.ttlMs;
        case TasksModelColumn::PollInterval:
            return t.pollIntervalMs;
        default:
            return {};
        }
    case TasksModelRole::TaskIdRole:
        return t.taskId;
    case TasksModelRole::StatusRole:
        return int(t.status);
    case TasksModelRole::CallIdRole:
        return t.callId;
    case TasksModelRole::ResultRole:
        return QVariant::fromValue(t.result);
    case TasksModelRole::ErrorRole:
        return t.error;
    case TasksModelRole::FollowingRole:
        return t.following;
    default:
        return {};
    }
}

} // namespace mcpscope
