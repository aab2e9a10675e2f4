#pragma once

#include <Qt>

namespace mcpscope {

/// Columns of TasksModel. Qt::DisplayRole and Qt::EditRole carry the raw value named here.
namespace TasksModelColumn {
enum Column {
    TaskId, ///< QString
    Tool, ///< QString: empty for a task only tasks/list told of
    Status, ///< int: a TaskInfo::Status
    StatusMessage, ///< QString
    Created, ///< qint64: ms since the epoch, 0 when unknown
    Updated, ///< qint64: ms since the epoch, 0 when unknown
    Ttl, ///< qint64: ms, -1 for unlimited
    PollInterval, ///< qint64: ms, 0 when the server suggested none
    Count
};
} // namespace TasksModelColumn

/// Roles of TasksModel, every column.
namespace TasksModelRole {
enum Role {
    TaskIdRole = Qt::UserRole + 1, ///< QString
    StatusRole, ///< int: a TaskInfo::Status
    CallIdRole, ///< QString: the creating call, empty for a listed task
    ResultRole, ///< QJsonValue: what tasks/result answered, undefined until then
    ErrorRole, ///< QString: why McpScope stopped following the task, empty otherwise
    FollowingRole, ///< bool: polls are scheduled
};
} // namespace TasksModelRole

} // namespace mcpscope
