#include "taskspresentation.h"

#include "engine/tasktracker.h"
#include "models/tasksmodeldefs.h"
#include "presentation/presentation.h"

#include <QColor>

namespace mcpscope {

namespace {

QColor statusColour(TaskInfo::Status status)
{
    switch (status) {
    case TaskInfo::Status::Working:
        return QColor(0x1f, 0x6f, 0xb5);
    case TaskInfo::Status::InputRequired:
        return QColor(0xb0, 0x6a, 0x00);
    case TaskInfo::Status::Completed:
        return QColor(0x19, 0x87, 0x54);
    case TaskInfo::Status::Failed:
        return QColor(0xc0, 0x39, 0x2b);
    case TaskInfo::Status::Cancelled:
    case TaskInfo::Status::Unknown:
        break;
    }
    return QColor(Qt::gray);
}

/// A server's round numbers as it chose them: "5 min", "1 s", "250 ms"; anything else as Presentation does.
QString intervalText(qint64 ms)
{
    if (ms >= 60000 && ms % 60000 == 0)
        return TasksPresentation::tr("%1 min").arg(ms / 60000);
    if (ms >= 1000 && ms % 1000 == 0)
        return TasksPresentation::tr("%1 s").arg(ms / 1000);
    if (ms < 1000)
        return TasksPresentation::tr("%1 ms").arg(ms);
    return Presentation::durationText(ms);
}

} // namespace

TasksPresentation::TasksPresentation(QObject* parent)
    : QIdentityProxyModel(parent)
{ }

QVariant TasksPresentation::data(const QModelIndex& index, int role) const
{
    using namespace TasksModelColumn;
    const QVariant raw = QIdentityProxyModel::data(index, Qt::DisplayRole);
    const QString error = QIdentityProxyModel::data(index, TasksModelRole::ErrorRole).toString();
    switch (index.column()) {
    case Status: {
        const auto status = TaskInfo::Status(raw.toInt());
        if (role == Qt::DisplayRole)
            return error.isEmpty() ? TaskInfo::statusName(status) : tr("%1 (lost)").arg(TaskInfo::statusName(status));
        if (role == Qt::ForegroundRole)
            return statusColour(status);
        if (role == Qt::ToolTipRole && !error.isEmpty())
            return error;
        if (role == Qt::ToolTipRole)
            return QIdentityProxyModel::data(index, TasksModelRole::FollowingRole).toBool()
                ? tr("Polled with tasks/get at the server's pollInterval.")
                : tr("Not polled: ended, or only listed by tasks/list.");
        break;
    }
    case Tool:
        if (role == Qt::DisplayRole && raw.toString().isEmpty())
            return tr("(listed)");
        break;
    case Created:
    case Updated:
        if (role == Qt::DisplayRole)
            return raw.toLongLong() > 0 ? Presentation::timeText(raw.toLongLong()) : tr("—");
        break;
    case Ttl:
        if (role == Qt::DisplayRole)
            return raw.toLongLong() < 0 ? tr("unlimited") : intervalText(raw.toLongLong());
        break;
    case PollInterval:
        if (role == Qt::DisplayRole)
            return raw.toLongLong() > 0 ? intervalText(raw.toLongLong()) : tr("—");
        break;
    default:
        break;
    }
    if (role == Qt::ToolTipRole && index.column() == StatusMessage)
        return raw;
    return QIdentityProxyModel::data(index, role);
}

QVariant TasksPresentation::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QIdentityProxyModel::headerData(section, orientation, role);
    using namespace TasksModelColumn;
    switch (section) {
    case TaskId:
        return tr("Task");
    case Tool:
        return tr("Tool");
    case Status:
        return tr("Status");
    case StatusMessage:
        return tr("Status message");
    case Created:
        return tr("Created");
    case Updated:
        return tr("Updated");
    case Ttl:
        return tr("TTL");
    case PollInterval:
        return tr("Poll");
    default:
        return {};
    }
}

} // namespace mcpscope
