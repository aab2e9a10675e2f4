#include "tasksshots.h"

#include "engine/engine.h"
#include "engine/tasktracker.h"
#include "mainwindow/mainwindow.h"
#include "models/tasksmodel.h"
#include "tasks/taskspage.h"

#include <QElapsedTimer>
#include <QTabWidget>
#include <QTimer>

#include <memory>

namespace mcpscope {

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
} // namespace

TasksShots::TasksShots(MainWindow* window, Save save, QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_save(std::move(save))
{ }

void TasksShots::waitUntil(std::function<bool()> condition, std::function<void()> then, const QString& what)
{
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [this, condition, then, what, timer, poll] {
        if (!m_window)
            return;
        if (condition()) {
            QTimer::singleShot(400, this, then);
            return;
        }
        if (timer->elapsed() > TimeoutMs) {
            Q_EMIT failed(tr("timed out waiting for %1").arg(what));
            return;
        }
        QTimer::singleShot(100, this, *poll);
    };
    (*poll)();
}

QString TasksShots::callTask(const QString& topic)
{
    return m_window->engine()->call(Server, QStringLiteral("tools/call"),
        TaskTracker::toolCallParams(Tool, { { QStringLiteral("topic"), topic } }, true), {}, [](const CallRecord&) {});
}

void TasksShots::start()
{
    TasksPage* page = m_window->tasksPage();
    m_window->selectServer(Server);
    m_window->centreTabs()->setCurrentWidget(page);
    m_cancelledCall = callTask(QStringLiteral("coral reefs"));
    m_completedCall = callTask(QStringLiteral("tide pools"));
    waitUntil([this] { return taskOfCall(m_window, m_cancelledCall).has_value(); },
        [this, page] {
            m_window->engine()->tasks()->cancel(Server, taskOfCall(m_window, m_cancelledCall)->taskId);
            waitUntil(
                [this] {
                    const auto done = taskOfCall(m_window, m_completedCall);
                    const auto cancelled = taskOfCall(m_window, m_cancelledCall);
                    return done && done->status == TaskInfo::Status::Completed && !done->result.isUndefined()
                        && cancelled && cancelled->status == TaskInfo::Status::Cancelled;
                },
                [this, page] {
                    page->selectTask(taskOfCall(m_window, m_completedCall)->taskId);
                    QTimer::singleShot(300, this, [this] {
                        m_save(m_window, QStringLiteral("tasks.png"));
                        Q_EMIT done();
                    });
                },
                tr("one %1 task to complete and one to be cancelled").arg(Tool));
        },
        tr("%1 to create a task").arg(Tool));
}

} // namespace mcpscope
