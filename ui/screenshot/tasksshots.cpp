#include "tasksshots.h"

#include "engine/engine.h"
#include "engine/tasktracker.h"
#include "mainwindow/mainwindow.h"
#include "tasks/taskspage.h"

#include <QCoreApplication>
#include <QTabWidget>

#include <optional>

namespace mcpscope::TasksShots {

namespace {
const QString Server = QStringLiteral("everything-stdio");
const QString Tool = QStringLiteral("simulate-research-query");
constexpr int TimeoutMs = 30000;

/// The task a call created, once the tracker follows it.
std::optional<TaskInfo> taskOfCall(MainWindow* window, const QString& callId)
{
    for (const TaskInfo& task : window->engine()->tasks()->tasks(Server)) {
        if (task.callId == callId)
            return task;
    }
    return std::nullopt;
}

QString callTask(MainWindow* window, const QString& topic)
{
    return window->engine()->call(Server, QStringLiteral("tools/call"),
        TaskTracker::toolCallParams(Tool, { { QStringLiteral("topic"), topic } }, true), {}, [](const CallRecord&) {});
}

QString tr(const char* text)
{
    return QCoreApplication::translate("TasksShots", text);
}
} // namespace

void run(MainWindow* window, FrictionShots::Save save, FrictionShots::Wait wait, std::function<void()> done)
{
    TasksPage* page = window->tasksPage();
    window->selectServer(Server);
    window->centreTabs()->setCurrentWidget(page);
    const QString cancelled = callTask(window, QStringLiteral("coral reefs"));
    const QString completed = callTask(window, QStringLiteral("tide pools"));
    wait([window, cancelled] { return taskOfCall(window, cancelled).has_value(); }, TimeoutMs,
        [=] {
            window->engine()->tasks()->cancel(Server, taskOfCall(window, cancelled)->taskId);
            wait(
                [window, cancelled, completed] {
                    const auto ok = taskOfCall(window, completed);
                    const auto gone = taskOfCall(window, cancelled);
                    return ok && ok->status == TaskInfo::Status::Completed && !ok->result.isUndefined() && gone
                        && gone->status == TaskInfo::Status::Cancelled;
                },
                TimeoutMs,
                [=] {
                    page->selectTask(taskOfCall(window, completed)->taskId);
                    // The selection's result view renders on a worker: one more short wait.
                    wait([] { return true; }, TimeoutMs,
                        [=] {
                            save(window, QStringLiteral("tasks.png"));
                            done();
                        },
                        tr("the task's result to render"));
                },
                tr("one %1 task to complete and one to be cancelled").arg(Tool));
        },
        tr("%1 to create a task").arg(Tool));
}

} // namespace mcpscope::TasksShots
