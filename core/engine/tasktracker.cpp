#include "tasktracker.h"

#include "engine.h"
#include "jsonrpc/jsonrpcmessage.h"
#include "jsonrpc/protocolera.h"

#include <QDateTime>
#include <QJsonArray>
#include <QSet>
#include <QTimer>

namespace mcpscope {

namespace {

/// The SDK's default and a floor: a server that suggests 0 ms must not make McpScope spin.
constexpr qint64 DefaultPollMs = 1000;
constexpr qint64 MinPollMs = 100;
/// Polls that failed in a row (each already retried by the decision table) before the task counts as lost.
constexpr int MaxFailedPolls = 3;
/// tasks/result is fetched at most this often per task: once for input_required, once more at the end.
constexpr int MaxResultFetches = 2;

qint64 parseTime(const QJsonValue& value)
{
    const QDateTime t = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    return t.isValid() ? t.toMSecsSinceEpoch() : 0;
}

} // namespace

TaskInfo::Status TaskInfo::statusFromName(QStringView name)
{
    if (name == u"working")
        return Status::Working;
    if (name == u"input_required")
        return Status::InputRequired;
    if (name == u"completed")
        return Status::Completed;
    if (name == u"failed")
        return Status::Failed;
    if (name == u"cancelled")
        return Status::Cancelled;
    return Status::Unknown;
}

QString TaskInfo::statusName(Status status)
{
    switch (status) {
    case Status::Working:
        return QStringLiteral("working");
    case Status::InputRequired:
        return QStringLiteral("input_required");
    case Status::Completed:
        return QStringLiteral("completed");
    case Status::Failed:
        return QStringLiteral("failed");
    case Status::Cancelled:
        return QStringLiteral("cancelled");
    case Status::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

struct TaskTracker::Entry
{
    TaskInfo info;
    CallRecord record; ///< the creating call's record, as last published
    QTimer* timer = nullptr;
    bool getInFlight = false;
    bool resultInFlight = false;
    bool resultFetched = false;
    QSet<QString> askedInputs; ///< extension: inputRequests keys already handed to the responder
    int resultFetches = 0;
    int failedPolls = 0;
    bool ended = false;
    bool publishQueued = false;
    QString resultCallId; ///< the tasks/result in flight
};

TaskTracker::TaskTracker(Engine* engine)
    : QObject(engine)
    , m_engine(engine)
{
    connect(engine, &Engine::callUpdated, this, [this](const CallRecord& record) {
        if (record.isFinished() && !m_byCall.contains(record.callId))
            follow(record);
    });
    connect(engine, &Engine::serverAdded, this, &TaskTracker::watch);
    for (ServerConnection* c : engine->connections())
        watch(c);
}

TaskTracker::~TaskTracker()
{
    qDeleteAll(m_entries);
}

void TaskTracker::watch(ServerConnection* connection)
{
    // notifications/tasks/status is optional for a server: it only makes a change show before the next poll.
    connect(connection, &ServerConnection::sessionCreated, this, [this, connection](ClientSession* session) {
        connect(session, &ClientSession::notificationReceived, this, [this, connection](const JsonRpcMessage& m) {
            if (m.method != QLatin1String("notifications/tasks/status") && m.method != Modern::TaskStatusNotification)
                return;
            const QString id = m.params.value(QLatin1String("taskId")).toString();
            if (Entry* entry = m_entries.value(keyOf(connection->name(), id)); entry && !entry->ended)
                apply(*entry, m.params);
        });
    });
}

QJsonObject TaskTracker::toolCallParams(const QString& tool, const QJsonObject& arguments, bool asTask, qint64 ttlMs)
{
    QJsonObject params { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), arguments } };
    if (asTask) {
        QJsonObject task;
        if (ttlMs > 0)
            task.insert(QStringLiteral("ttl"), ttlMs);
        params.insert(QStringLiteral("task"), task);
    }
    return params;
}

QString TaskTracker::follow(const CallRecord& creating)
{
    if (const auto it = m_byCall.constFind(creating.callId); it != m_byCall.constEnd())
        return m_entries.value(*it)->info.taskId;
    if (creating.method != QLatin1String("tools/call") || creating.outcome != CallOutcome::Success)
        return {};
    // The extension's handle is the result itself; 2025-11-25 wraps it in result.task.
    const QJsonObject result = creating.result.toObject();
    const bool modern = result.value(QLatin1String("resultType")).toString() == Modern::Task;
    const QJsonObject task = modern ? result : result.value(QLatin1String("task")).toObject();
    const QString taskId = task.value(QLatin1String("taskId")).toString();
    if (taskId.isEmpty())
        return {};
    Entry* entry = entryFor(creating.server, taskId);
    entry->info.tool = creating.tool;
    entry->info.callId = creating.callId;
    entry->info.modern = modern;
    entry->record = creating;
    m_byCall.insert(creating.callId, keyOf(creating.server, taskId));
    note(*entry, tr("Task %1 created").arg(taskId));
    m_following = true;
    apply(*entry, task);
    m_following = false;
    return taskId;
}

TaskTracker::Entry* TaskTracker::entryFor(const QString& server, const QString& taskId)
{
    Entry*& entry = m_entries[keyOf(server, taskId)];
    if (!entry) {
        entry = new Entry;
        entry->info.server = server;
        entry->info.taskId = taskId;
    }
    return entry;
}

QList<TaskInfo> TaskTracker::tasks(const QString& server) const
{
    QList<TaskInfo> list;
    for (const Entry* entry : m_entries) {
        if (entry->info.server == server)
            list.append(entry->info);
    }
    std::sort(list.begin(), list.end(), [](const TaskInfo& a, const TaskInfo& b) { return a.createdAt < b.createdAt; });
    return list;
}

std::optional<TaskInfo> TaskTracker::task(const QString& server, const QString& taskId) const
{
    if (const Entry* entry = m_entries.value(keyOf(server, taskId)))
        return entry->info;
    return std::nullopt;
}

std::optional<CallRecord> TaskTracker::record(const QString& server, const QString& taskId) const
{
    if (const Entry* entry = m_entries.value(keyOf(server, taskId)); entry && !entry->info.callId.isEmpty())
        return entry->record;
    return std::nullopt;
}

void TaskTracker::apply(Entry& entry, const QJsonObject& task)
{
    TaskInfo& info = entry.info;
    const TaskInfo before = info;
    if (task.contains(QLatin1String("status")))
        info.status = TaskInfo::statusFromName(task.value(QLatin1String("status")).toString());
    if (task.contains(QLatin1String("statusMessage")))
        info.statusMessage = task.value(QLatin1String("statusMessage")).toString();
    if (const qint64 created = parseTime(task.value(QLatin1String("createdAt"))))
        info.createdAt = created;
    if (const qint64 updated = parseTime(task.value(QLatin1String("lastUpdatedAt"))))
        info.lastUpdatedAt = updated;
    // 2025-11-25 says ttl and pollInterval, the extension ttlMs and pollIntervalMs; both in milliseconds.
    for (const QLatin1String key : { QLatin1String("ttl"), QLatin1String("ttlMs") }) {
        if (task.contains(key)) {
            const QJsonValue ttl = task.value(key);
            info.ttlMs = ttl.isDouble() ? qint64(ttl.toDouble()) : -1;
        }
    }
    for (const QLatin1String key : { QLatin1String("pollInterval"), QLatin1String("pollIntervalMs") }) {
        if (task.value(key).isDouble())
            info.pollIntervalMs = qint64(task.value(key).toDouble());
    }
    // The extension inlines the end: a completed task's result, a failed one's JSON-RPC error.
    if (info.modern && task.value(QLatin1String("result")).isObject()) {
        info.result = task.value(QLatin1String("result"));
        entry.record.result = info.result;
    }
    if (info.modern && task.value(QLatin1String("error")).isObject())
        entry.record.error = task.value(QLatin1String("error")).toObject();
    const bool statusChanged = info.history.isEmpty() || info.history.last() != info.status;
    if (statusChanged) {
        info.history.append(info.status);
        if (!info.callId.isEmpty())
            note(entry,
                info.statusMessage.isEmpty()
                    ? tr("Task %1").arg(TaskInfo::statusName(info.status))
                    : tr("Task %1: %2").arg(TaskInfo::statusName(info.status), info.statusMessage));
    }
    const bool changed = statusChanged || before.statusMessage != info.statusMessage
        || before.lastUpdatedAt != info.lastUpdatedAt || before.ttlMs != info.ttlMs
        || before.pollIntervalMs != info.pollIntervalMs || before.createdAt != info.createdAt;
    if (info.callId.isEmpty() || entry.ended) {
        // Listed, not created here: shown, never polled (a poll would have no call to belong to).
        if (changed)
            Q_EMIT taskChanged(info);
        return;
    }
    if (changed) {
        publish(entry);
        Q_EMIT taskChanged(info);
    }
    const QString key = keyOf(info.server, info.taskId);
    if (info.modern) {
        if (info.status == TaskInfo::Status::InputRequired)
            answerInputs(entry, task.value(QLatin1String("inputRequests")).toObject());
        if (info.isTerminal())
            end(entry);
        else
            schedulePoll(entry);
        return;
    }
    // input_required: the server delivers its elicitation or sampling request while tasks/result is pending
    // (the SDK queues it for that stream), and it reaches the user through the ClientResponder like any
    // request. A cancelled task has no result to fetch.
    const bool wantsResult = info.status == TaskInfo::Status::InputRequired
        || info.status == TaskInfo::Status::Completed || info.status == TaskInfo::Status::Failed;
    if (wantsResult && !entry.resultInFlight && !entry.resultFetched && entry.resultFetches < MaxResultFetches)
        fetchResult(key);
    // A cancelled task's pending tasks/result may never be answered: it is given up on.
    if (info.isTerminal() && (!entry.resultInFlight || info.status == TaskInfo::Status::Cancelled))
        end(entry);
    else if (!info.isTerminal())
        schedulePoll(entry);
}

CallOptions TaskTracker::taskOptions(const Entry& entry) const
{
    CallOptions options;
    options.partOfCall = entry.info.callId;
    return options;
}

void TaskTracker::schedulePoll(Entry& entry)
{
    if (entry.ended || entry.getInFlight)
        return;
    if (!entry.timer) {
        entry.timer = new QTimer(this);
        entry.timer->setSingleShot(true);
        connect(entry.timer, &QTimer::timeout, this,
            [this, key = keyOf(entry.info.server, entry.info.taskId)] { poll(key); });
    }
    entry.info.following = true;
    if (!entry.timer->isActive())
        entry.timer->start(
            int(std::max(MinPollMs, entry.info.pollIntervalMs > 0 ? entry.info.pollIntervalMs : DefaultPollMs)));
}

void TaskTracker::poll(const QString& key)
{
    Entry* entry = m_entries.value(key);
    if (!entry || entry->ended || entry->getInFlight)
        return;
    entry->getInFlight = true;
    QPointer<TaskTracker> self(this);
    m_engine->call(entry->info.server, QStringLiteral("tasks/get"),
        { { QStringLiteral("taskId"), entry->info.taskId } }, taskOptions(*entry), [self, key](const CallRecord& r) {
            Entry* entry = self ? self->m_entries.value(key) : nullptr;
            if (!entry)
                return;
            entry->getInFlight = false;
            if (entry->ended)
                return;
            if (r.outcome != CallOutcome::Success)
                return self->pollFailed(key, r);
            entry->failedPolls = 0;
            self->apply(*entry, r.result.toObject());
        });
}

void TaskTracker::pollFailed(const QString& key, const CallRecord& poll)
{
    Entry* entry = m_entries.value(key);
    const QString message = poll.error.value(QLatin1String("message")).toString();
    note(*entry, tr("Poll %1 failed (%2): %3").arg(poll.method, outcomeName(poll.outcome), message));
    // A JSON-RPC error is the server's answer: it no longer knows the task (a restarted stdio server, an
    // expired ttl). Anything else may pass; polls stop after a few in a row, or when McpScope is stopping.
    if (poll.outcome == CallOutcome::ProtocolError || poll.outcome == CallOutcome::Interrupted
        || ++entry->failedPolls >= MaxFailedPolls) {
        entry->info.error = tr("McpScope lost track of task %1 on server '%2' (%3). The task may still run: look "
                               "it up with tasks/get %1 (mcpscope-cli tasks get %1).")
                                .arg(entry->info.taskId, entry->info.server, message);
        entry->record.error.insert(QStringLiteral("task"), entry->info.error);
        end(*entry);
        return;
    }
    publish(*entry);
    schedulePoll(*entry);
}

void TaskTracker::fetchResult(const QString& key)
{
    Entry* entry = m_entries.value(key);
    entry->resultInFlight = true;
    ++entry->resultFetches;
    CallOptions options = taskOptions(*entry);
    // tasks/result blocks until the task ends, and while input_required it waits on the user's answer: it may
    // take as long as the task lives.
    if (entry->info.ttlMs > 0)
        options.timeoutMs = entry->info.ttlMs;
    QPointer<TaskTracker> self(this);
    entry->resultCallId = m_engine->call(entry->info.server, QStringLiteral("tasks/result"),
        { { QStringLiteral("taskId"), entry->info.taskId } }, options, [self, key](const CallRecord& r) {
            Entry* entry = self ? self->m_entries.value(key) : nullptr;
            if (!entry)
                return;
            entry->resultInFlight = false;
            entry->resultCallId.clear();
            if (entry->ended)
                return;
            if (r.outcome == CallOutcome::Success) {
                entry->resultFetched = true;
                entry->info.result = r.result;
                entry->record.result = r.result;
                self->note(*entry, tr("Task result fetched"));
                Q_EMIT self->taskChanged(entry->info);
            } else {
                self->note(*entry,
                    tr("tasks/result failed (%1): %2")
                        .arg(outcomeName(r.outcome), r.error.value(QLatin1String("message")).toString()));
            }
            if (entry->info.isTerminal())
                return self->end(*entry);
            // The result came before a poll saw the end (it was fetched for input_required): learn the status.
            if (entry->timer)
                entry->timer->stop();
            self->poll(key);
        });
}

void TaskTracker::answerInputs(Entry& entry, const QJsonObject& inputRequests)
{
    ServerConnection* connection = m_engine->connection(entry.info.server);
    if (!connection)
        return;
    const QString key = keyOf(entry.info.server, entry.info.taskId);
    QPointer<TaskTracker> self(this);
    for (auto it = inputRequests.constBegin(); it != inputRequests.constEnd(); ++it) {
        // Every poll repeats what is outstanding; each key is asked once (keys are unique per task).
        if (entry.askedInputs.contains(it.key()))
            continue;
        entry.askedInputs.insert(it.key());
        const QJsonObject request = it.value().toObject();
        const QString method = request.value(QLatin1String("method")).toString();
        note(entry, tr("Task asks for input: %1 (%2)").arg(it.key(), method));
        publish(entry);
        const JsonRpcMessage message
            = JsonRpcMessage::request(QStringLiteral("task:%1:%2").arg(entry.info.taskId, it.key()), method,
                request.value(QLatin1String("params")).toObject());
        connection->answerInputRequest(entry.info.callId, message,
            [self, key, inputKey = it.key(), method](
                const QJsonValue& answer, const std::optional<JsonRpcError>& error) {
                Entry* entry = self ? self->m_entries.value(key) : nullptr;
                if (!entry || entry->ended)
                    return;
                if (!error) {
                    self->sendUpdate(key, inputKey, answer);
                    return;
                }
                // Nobody will answer it: the task would wait out its ttl, so it is cancelled instead.
                self->note(*entry,
                    tr("McpScope could not answer the task's %1 (%2): %3; the task is cancelled")
                        .arg(inputKey, method, error->message));
                self->cancel(entry->info.server, entry->info.taskId);
            });
    }
}

void TaskTracker::sendUpdate(const QString& key, const QString& inputKey, const QJsonValue& answer)
{
    Entry* entry = m_entries.value(key);
    const QJsonObject params { { QStringLiteral("taskId"), entry->info.taskId },
        { QStringLiteral("inputResponses"), QJsonObject { { inputKey, answer } } } };
    QPointer<TaskTracker> self(this);
    m_engine->call(entry->info.server, QStringLiteral("tasks/update"), params, taskOptions(*entry),
        [self, key, inputKey](const CallRecord& r) {
            Entry* entry = self ? self->m_entries.value(key) : nullptr;
            if (!entry || entry->ended)
                return;
            self->note(*entry,
                r.outcome == CallOutcome::Success
                    ? tr("tasks/update sent the answer to %1").arg(inputKey)
                    : tr("tasks/update for %1 failed (%2): %3")
                          .arg(inputKey, outcomeName(r.outcome), r.error.value(QLatin1String("message")).toString()));
            self->publish(*entry);
            // The acknowledgement is eventually consistent: the next poll shows what the answer did.
            if (entry->timer)
                entry->timer->stop();
            self->schedulePoll(*entry);
        });
}

void TaskTracker::end(Entry& entry)
{
    if (entry.ended)
        return;
    entry.ended = true;
    entry.info.following = false;
    if (entry.timer)
        entry.timer->stop();
    if (entry.resultInFlight) {
        if (ServerConnection* c = m_engine->connection(entry.info.server))
            c->cancelCall(entry.resultCallId);
    }
    CallRecord& r = entry.record;
    switch (entry.info.status) {
    case TaskInfo::Status::Completed:
        r.outcome = entry.info.result.toObject().value(QLatin1String("isError")) == QJsonValue(true)
            ? CallOutcome::ToolError
            : CallOutcome::Success;
        break;
    case TaskInfo::Status::Failed:
        // The extension's failed is a JSON-RPC error during execution; 2025-11-25 only says it failed.
        r.outcome = entry.info.modern ? CallOutcome::ProtocolError : CallOutcome::ToolError;
        break;
    case TaskInfo::Status::Cancelled:
        r.outcome = CallOutcome::Cancelled;
        break;
    default:
        break; // lost: the creating call's own outcome stands, and the error says what became of the task
    }
    r.endedAt = QDateTime::currentMSecsSinceEpoch();
    if (m_following)
        publish(entry); // inside the engine's callUpdated for the creating call: after it, not before
    else
        m_engine->updateFinishedCall(r);
    Q_EMIT taskChanged(entry.info);
    Q_EMIT taskEnded(entry.info, r);
}

void TaskTracker::publish(Entry& entry)
{
    // Queued, and once per turn of the event loop: follow() runs inside the engine's callUpdated for the
    // creating call, and a listener after us must not see the newer record before the older one.
    if (entry.publishQueued)
        return;
    entry.publishQueued = true;
    QMetaObject::invokeMethod(
        this,
        [this, key = keyOf(entry.info.server, entry.info.taskId)] {
            if (Entry* e = m_entries.value(key)) {
                e->publishQueued = false;
                m_engine->updateFinishedCall(e->record);
            }
        },
        Qt::QueuedConnection);
}

void TaskTracker::note(Entry& entry, const QString& text)
{
    entry.record.events.append(CallEvent { QDateTime::currentMSecsSinceEpoch(), QStringLiteral("task"), text });
}

void TaskTracker::cancel(const QString& server, const QString& taskId, std::function<void(const CallRecord&)> done)
{
    Entry* entry = m_entries.value(keyOf(server, taskId));
    CallOptions options;
    if (entry && !entry->info.callId.isEmpty() && !entry->ended) {
        options = taskOptions(*entry);
        note(*entry, tr("Cancel requested"));
    }
    QPointer<TaskTracker> self(this);
    const QString key = keyOf(server, taskId);
    m_engine->call(server, QStringLiteral("tasks/cancel"), { { QStringLiteral("taskId"), taskId } }, options,
        [self, key, done = std::move(done)](const CallRecord& r) {
            Entry* entry = self ? self->m_entries.value(key) : nullptr;
            if (entry && r.outcome == CallOutcome::Success)
                self->apply(*entry, r.result.toObject());
            if (done)
                done(r);
        });
}

void TaskTracker::list(const QString& server, std::function<void(const CallRecord&)> done)
{
    if (const ServerConnection* c = m_engine->connection(server); c && c->session() && c->session()->isModern()) {
        // The tasks extension has no listing: what McpScope follows is all it knows of.
        CallRecord refused;
        refused.server = server;
        refused.method = QStringLiteral("tasks/list");
        refused.outcome = CallOutcome::NotDispatched;
        refused.error = { { QStringLiteral("message"),
            tr("Server '%1' speaks 2026-07-28, whose tasks extension has no tasks/list; the tasks shown are "
               "the ones McpScope follows.")
                .arg(server) } };
        if (done)
            done(refused);
        return;
    }
    QPointer<TaskTracker> self(this);
    m_engine->list(server, QStringLiteral("tasks/list"), QStringLiteral("tasks"), {},
        [self, server, done = std::move(done)](const CallRecord& r) {
            if (self && r.outcome == CallOutcome::Success) {
                const QJsonArray tasks = r.result.toObject().value(QLatin1String("tasks")).toArray();
                for (const QJsonValue& task : tasks) {
                    const QString id = task.toObject().value(QLatin1String("taskId")).toString();
                    if (id.isEmpty())
                        continue;
                    Entry* entry = self->entryFor(server, id);
                    // A followed task's polls are the fresher source; the listing only fills in the others.
                    if (entry->info.callId.isEmpty() || entry->ended)
                        self->apply(*entry, task.toObject());
                }
            }
            if (done)
                done(r);
        });
}

} // namespace mcpscope
