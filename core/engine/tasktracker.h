#pragma once

#include "calllog/callrecord.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

class QTimer;

namespace mcpscope {

class Engine;
class ServerConnection;
struct CallOptions;

/// One task, as McpScope last heard of it: of the 2025-11-25 tasks utility (experimental), or of the
/// 2026-07-28 tasks extension io.modelcontextprotocol/tasks (SEP-2663; modern is set).
struct TaskInfo
{
    enum class Status { Working, InputRequired, Completed, Failed, Cancelled, Unknown };

    QString server;
    QString taskId;
    QString tool; ///< empty for a task only tasks/list told us of
    QString callId; ///< the tools/call that created it; empty for a task only tasks/list told us of
    Status status = Status::Unknown;
    QString statusMessage;
    qint64 createdAt = 0; ///< ms since the epoch; 0 when the server sent none
    qint64 lastUpdatedAt = 0;
    qint64 ttlMs = -1; ///< -1: unlimited (the server sent null or nothing)
    qint64 pollIntervalMs = 0; ///< 0: the server suggested none
    QList<Status> history; ///< every status seen, in order, each once per change
    QJsonValue result { QJsonValue::Undefined }; ///< what tasks/result answered; undefined until then
    QString error; ///< why McpScope stopped following the task before it ended
    bool following = false; ///< polls are scheduled
    bool modern = false; ///< the tasks extension: the result comes inline with tasks/get, input goes by tasks/update

    bool isTerminal() const
    {
        return status == Status::Completed || status == Status::Failed || status == Status::Cancelled;
    }
    static Status statusFromName(QStringView name);
    /// The spec's spelling: "working", "input_required", "completed", "failed", "cancelled" ("unknown").
    static QString statusName(Status status);
};

/// Follows every task a server creates for a task-augmented tools/call, so that a task is one call in the
/// calls log (issue 15); and every task handle a 2026-07-28 server answers a tools/call with (the tasks
/// extension, issue 16: server-directed, so any tools/call may come back as one).
///
/// Design: the creating tools/call goes through Engine::call like any request; RECOVERY.md applies to it
/// alone (it is a write unless its tool is read-only, so a connection lost after the task was created is
/// never replayed). Once its record shows a CreateTaskResult, the tracker polls tasks/get at the server's
/// pollInterval, fetches tasks/result when the task needs input or ended, and cancels with tasks/cancel.
/// Each of those requests also goes through Engine::call, so the breaker and the decision table see it,
/// but with CallOptions::partOfCall set to the creating call: its record is never published, so it is
/// neither a call nor an attempt in the log. What the polls learn (each status change, the result, a poll
/// that failed) goes onto the creating call's record as timeline events, and that record is published
/// again through Engine::updateFinishedCall. The creating call's outcome becomes the task's: completed is
/// success (or a tool error when the result says isError), failed is a tool error, cancelled is cancelled.
/// A task the polls lose (its server restarted, or it expired) keeps its id in the record's error, so the
/// user can look it up with tasks/get.
///
/// The tasks extension differs in three ways: the handle is the tools/call result itself (resultType
/// "task", ttlMs, pollIntervalMs); tasks/get carries the final result or error inline, so there is no
/// tasks/result; and an input_required task lists inputRequests, each answered once through the
/// connection's responder (the panels, the CLI's script) and sent with tasks/update. There is no tasks/list.
///
/// Signals: taskChanged whenever a task is learned of or any of its fields changes; taskEnded once, when
/// a followed task is terminal and its result fetched (or following it stopped), with the creating call's
/// final record.
class TaskTracker : public QObject
{
    Q_OBJECT
public:
    explicit TaskTracker(Engine* engine);
    ~TaskTracker() override;

    /// tools/call params for tool; with asTask, params.task carries the ttl asked for (0: none, the server
    /// picks it).
    static QJsonObject toolCallParams(const QString& tool, const QJsonObject& arguments, bool asTask, qint64 ttlMs = 0);

    /// Starts following the task a finished tools/call created, if its result is a CreateTaskResult.
    /// Returns the task id, or an empty string when the record holds no task. Idempotent: the engine's
    /// callUpdated already brings every such record here, so callers only use it to learn the id.
    QString follow(const CallRecord& creating);
    QList<TaskInfo> tasks(const QString& server) const;
    std::optional<TaskInfo> task(const QString& server, const QString& taskId) const;
    /// The creating call's record as last published (with the task's timeline and result); none for a task
    /// only tasks/list told of.
    std::optional<CallRecord> record(const QString& server, const QString& taskId) const;
    /// tasks/cancel; done (optional) gets the request's record.
    void cancel(const QString& server, const QString& taskId, std::function<void(const CallRecord&)> done = {});
    /// tasks/list, every page; tasks McpScope did not create are shown, not followed. done gets the record.
    void list(const QString& server, std::function<void(const CallRecord&)> done = {});

Q_SIGNALS:
    void taskChanged(const mcpscope::TaskInfo& task);
    void taskEnded(const mcpscope::TaskInfo& task, const mcpscope::CallRecord& record);

private:
    struct Entry;
    static QString keyOf(const QString& server, const QString& taskId) { return server + QLatin1Char('\n') + taskId; }
    Entry* entryFor(const QString& server, const QString& taskId);
    /// Takes a Task object (tasks/get, tasks/cancel, notifications/tasks/status, a CreateTaskResult's task).
    void apply(Entry& entry, const QJsonObject& task);
    void schedulePoll(Entry& entry);
    void poll(const QString& key);
    void fetchResult(const QString& key);
    /// A poll failed: noted on the timeline; a task the server no longer knows stops being followed.
    void pollFailed(const QString& key, const CallRecord& poll);
    void end(Entry& entry);
    /// Extension: the inputRequests of an input_required task not asked before go to the responder; each
    /// answer goes to the server with tasks/update. A request McpScope cannot answer cancels the task.
    void answerInputs(Entry& entry, const QJsonObject& inputRequests);
    void sendUpdate(const QString& key, const QString& inputKey, const QJsonValue& answer);
    void note(Entry& entry, const QString& text);
    /// Publishes the creating call's record again (Engine::updateFinishedCall), queued.
    void publish(Entry& entry);
    CallOptions taskOptions(const Entry& entry) const;
    void watch(ServerConnection* connection);

    Engine* m_engine;
    QHash<QString, Entry*> m_entries; ///< by keyOf(server, taskId)
    QHash<QString, QString> m_byCall; ///< creating call id → key
    bool m_following = false; ///< inside follow()
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::TaskInfo)
