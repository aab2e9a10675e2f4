// mcpscope-cli's tasks (2025-11-25, experimental, and the 2026-07-28 tasks extension, whose task handles a
// server may answer any tools/call with): call TOOL [--task] waits for the task the call created,
// printing each status change with --progress, then prints the task's result as a plain call's; tasks list,
// tasks get ID and tasks cancel ID are one request each.

#include "cliapp.h"

#include "clijson.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/tasktracker.h"

#include <QJsonObject>

namespace mcpscope {

using cli::compactJson;

bool CliApp::followTask(const QString& toolName, const CallRecord& created)
{
    TaskTracker* tracker = m_engine->tasks();
    const QString callId = created.callId;
    // Connected before follow(): a CreateTaskResult that is already terminal ends the task inside it.
    auto ended = connect(tracker, &TaskTracker::taskEnded, this,
        [this, toolName, callId](const TaskInfo& task, const CallRecord& record) {
            if (task.callId != callId)
                return;
            const QJsonObject extra { { QStringLiteral("taskId"), task.taskId },
                { QStringLiteral("taskStatus"), TaskInfo::statusName(task.status) } };
            if (!task.error.isEmpty()) {
                // Lost: the task may still run on the server. Its id is how the user finds it.
                fail(task.error, ExitOutcomeUncertain, extra);
                return;
            }
            if (task.status == TaskInfo::Status::Cancelled) {
                fail(tr("task %1 of tool '%2' was cancelled").arg(task.taskId, toolName), exitCodeFor(record.outcome),
                    extra);
                return;
            }
            finishToolCall(toolName, record, extra);
        });
    const QString taskId = tracker->follow(created);
    if (taskId.isEmpty()) {
        disconnect(ended);
        return false;
    }
    if (m_progress) {
        if (const auto task = tracker->task(m_config.name, taskId))
            printTaskStatus(*task);
        connect(tracker, &TaskTracker::taskChanged, this, [this, callId](const TaskInfo& task) {
            if (task.callId == callId)
                printTaskStatus(task);
        });
    }
    return true;
}

void CliApp::printTaskStatus(const TaskInfo& task)
{
    // One line per status change, not per poll: taskChanged also fires for a new lastUpdatedAt.
    const QString line = TaskInfo::statusName(task.status) + QLatin1Char(' ') + task.statusMessage;
    if (m_taskLines.value(task.taskId) == line)
        return;
    m_taskLines.insert(task.taskId, line);
    if (m_json) {
        m_err << compactJson(QJsonObject { { QStringLiteral("taskId"), task.taskId },
            { QStringLiteral("status"), TaskInfo::statusName(task.status) },
            { QStringLiteral("statusMessage"), task.statusMessage } })
              << '\n';
    } else {
        m_err << "task " << task.taskId << ": " << TaskInfo::statusName(task.status);
        if (!task.statusMessage.isEmpty())
            m_err << " " << task.statusMessage;
        m_err << '\n';
    }
    m_err.flush();
}

void CliApp::tasksCommand()
{
    const QString sub = m_commandArgs.value(0);
    const bool needsId = sub == QLatin1String("get") || sub == QLatin1String("cancel");
    if ((sub != QLatin1String("list") && !needsId) || (needsId && m_commandArgs.size() < 2))
        return fail(tr("usage: tasks list | tasks get ID | tasks cancel ID"), ExitUsage);
    auto done = [this](const CallRecord& record) { completeCall(record); };
    if (sub == QLatin1String("list")) {
        if (ClientSession* session = m_connection->session(); session && session->isModern())
            return fail(tr("Server '%1' speaks 2026-07-28: its tasks extension has no tasks/list. Use tasks get ID "
                           "with the id a call printed.")
                            .arg(m_config.name),
                ExitUsage);
        return list(QStringLiteral("tasks/list"), QStringLiteral("tasks"));
    }
    const QString taskId = m_commandArgs.at(1);
    if (sub == QLatin1String("get"))
        return request(QStringLiteral("tasks/get"), { { QStringLiteral("taskId"), taskId } }, done);
    m_engine->tasks()->cancel(m_config.name, taskId, done);
}

} // namespace mcpscope
