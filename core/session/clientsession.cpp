#include "clientsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMetaMethod>

namespace mcpscope {

namespace {

const QLatin1String Initialize("initialize");
const QLatin1String Ping("ping");
constexpr int MaxListPages = 10000; // a server that keeps returning cursors must not loop us forever
} // namespace

const QStringList& ClientSession::supportedProtocolVersions()
{
    static const QStringList versions { QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
        QStringLiteral("2025-03-26") };
    return versions;
}

QString Reply::describe() const
{
    switch (status) {
    case Status::Ok:
        return ClientSession::tr("%1 succeeded").arg(method);
    case Status::RpcError:
        return ClientSession::tr("the server answered %1 with error %2: %3")
            .arg(method)
            .arg(error.code)
            .arg(error.message);
    case Status::Failed:
    case Status::TimedOut:
        return failure.message;
    case Status::Cancelled:
        return failure.message.isEmpty() ? ClientSession::tr("%1 was cancelled").arg(method) : failure.message;
    }
    return {};
}

ClientSession::ClientSession(std::unique_ptr<Transport> transport, Options options, QObject* parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_transport(std::move(transport))
{
    m_transport->setParent(nullptr);
    Transport* t = m_transport.get();
    connect(t, &Transport::opened, this, &ClientSession::sendInitialize);
    connect(t, &Transport::messageReceived, this, &ClientSession::onMessage);
    connect(t, &Transport::requestWritten, this, [this](const QJsonValue& id) {
        const auto it = m_pending.find(idKey(id));
        if (it != m_pending.end())
            it->written = true;
    });
    connect(t, &Transport::requestFailed, this, &ClientSession::onRequestFailed);
    connect(t, &Transport::channelFailed, this, &ClientSession::onChannelFailed);
    connect(t, &Transport::malformedMessage, this, &ClientSession::onMalformed);
    connect(t, &Transport::serverLog, this, &ClientSession::serverLog);
    // traffic is forwarded only once someone listens (connectNotify): copying every line for
    // nobody is most of what an unwatched stdio round trip would cost.
    connect(t, &Transport::closed, this, [this] {
        setState(State::Closed);
        Q_EMIT closed();
    });
    connect(&m_tracker, &RequestTracker::timedOut, this, &ClientSession::onTimedOut);
    m_keepalive.setSingleShot(false);
    connect(&m_keepalive, &QTimer::timeout, this, &ClientSession::sendKeepalive);
}

ClientSession::~ClientSession()
{
    // Handlers may reach back into objects being torn down; nobody hears from a dead session.
    m_pending.clear();
    if (m_transport)
        m_transport->disconnect(this);
}

void ClientSession::connectNotify(const QMetaMethod& signal)
{
    static const QMetaMethod trafficSignal = QMetaMethod::fromSignal(&ClientSession::traffic);
    if (signal == trafficSignal && !m_trafficForwarded && m_transport) {
        m_trafficForwarded = true;
        connect(m_transport.get(), &Transport::traffic, this, &ClientSession::traffic);
    }
    QObject::connectNotify(signal);
}

QString ClientSession::sessionId() const
{
    return m_transport ? m_transport->sessionId() : QString();
}

void ClientSession::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ClientSession::start()
{
    if (m_state != State::Disconnected)
        return;
    setState(State::Connecting);
    m_transport->open();
}

void ClientSession::sendInitialize()
{
    if (m_state != State::Connecting)
        return;
    setState(State::Initializing);
    const QJsonObject params {
        { QStringLiteral("protocolVersion"), supportedProtocolVersions().first() },
        { QStringLiteral("capabilities"), m_responder ? m_responder->capabilities() : QJsonObject() },
        { QStringLiteral("clientInfo"),
            QJsonObject { { QStringLiteral("name"), m_options.clientName },
                { QStringLiteral("title"), m_options.clientTitle },
                { QStringLiteral("version"), QStringLiteral(MCPSCOPE_VERSION) } } },
    };
    const QJsonValue id = m_tracker.nextId();
    Pending pending;
    pending.method = Initialize;
    pending.done = [this](const Reply& reply) { onInitializeReply(reply); };
    m_pending.insert(idKey(id), std::move(pending));
    RequestOptions options;
    options.timeoutMs = m_options.requestTimeoutMs;
    dispatch(JsonRpcMessage::request(id, Initialize, params), options);
}

void ClientSession::onInitializeReply(const Reply& reply)
{
    if (!reply.ok()) {
        m_initializeFailure = reply.failure;
        fail(tr("Server '%1' failed to initialize: %2").arg(m_options.serverName, reply.describe()),
            reply.status == Reply::Status::TimedOut ? FailureKind::Timeout : reply.failure.kind());
        return;
    }
    const QJsonObject result = reply.resultObject();
    const QString version = result.value(QLatin1String("protocolVersion")).toString();
    if (!supportedProtocolVersions().contains(version)) {
        fail(tr("Server '%1' answered initialize with protocol version '%2', which McpScope does not speak "
                "(supported: %3).")
                 .arg(m_options.serverName, version, supportedProtocolVersions().join(QStringLiteral(", "))),
            FailureKind::ProtocolError);
        m_transport->close();
        return;
    }
    m_details.protocolVersion = version;
    m_details.capabilities = result.value(QLatin1String("capabilities")).toObject();
    m_details.serverInfo = result.value(QLatin1String("serverInfo")).toObject();
    m_details.instructions = result.value(QLatin1String("instructions")).toString();
    m_details.sessionId = m_transport->sessionId();
    m_transport->setProtocolVersion(version);
    notify(QStringLiteral("notifications/initialized"));
    setState(State::Ready);
    if (m_options.keepaliveIntervalSec > 0)
        m_keepalive.start(m_options.keepaliveIntervalSec * 1000);
    const QList<Queued> queued = std::exchange(m_queue, {});
    for (const Queued& q : queued)
        dispatch(q.message, q.options);
    Q_EMIT ready();
}

void ClientSession::fail(const QString& message, FailureKind kind)
{
    if (enterFailed(message, kind))
        Q_EMIT failed(message);
}

bool ClientSession::enterFailed(const QString& message, FailureKind kind)
{
    m_lastError = message;
    m_lastFailureKind = kind;
    m_keepalive.stop();
    const QList<Queued> queued = std::exchange(m_queue, {});
    for (const Queued& q : queued) {
        Reply reply;
        reply.status = Reply::Status::Failed;
        reply.id = q.message.id;
        reply.method = q.message.method;
        reply.failure.event = TransportEvent::NotSent;
        reply.failure.message = message;
        finish(idKey(q.message.id), reply);
    }
    if (m_state == State::Failed)
        return false;
    setState(State::Failed);
    return true;
}

QJsonValue ClientSession::request(const QString& method, const QJsonObject& params, const RequestOptions& options,
    ReplyHandler done, QObject* context)
{
    const QJsonValue id = m_tracker.nextId();
    QJsonObject fullParams = params;
    QJsonObject meta = options.meta;
    if (options.onProgress)
        meta.insert(QStringLiteral("progressToken"), m_tracker.nextProgressToken());
    if (!meta.isEmpty()) {
        QJsonObject merged = fullParams.value(QLatin1String("_meta")).toObject();
        for (auto it = meta.constBegin(); it != meta.constEnd(); ++it)
            merged.insert(it.key(), it.value());
        fullParams.insert(QStringLiteral("_meta"), merged);
    }
    Pending pending;
    pending.done = std::move(done);
    pending.onProgress = options.onProgress;
    pending.context = context;
    pending.hasContext = context != nullptr;
    pending.method = method;
    const QString key = idKey(id);
    m_pending.insert(key, std::move(pending));

    JsonRpcMessage message = JsonRpcMessage::request(id, method, fullParams);
    switch (m_state) {
    case State::Ready:
        dispatch(message, options);
        break;
    case State::Disconnected:
    case State::Connecting:
    case State::Initializing:
        // Only ping may precede the initialize reply (MCP lifecycle).
        if (method == Ping && m_state == State::Initializing)
            dispatch(message, options);
        else
            m_queue.append({ message, options });
        break;
    case State::Closing:
    case State::Closed:
    case State::Failed: {
        Reply reply;
        reply.status = Reply::Status::Failed;
        reply.id = id;
        reply.method = method;
        reply.failure.event = TransportEvent::NotSent;
        reply.failure.message = m_lastError.isEmpty()
            ? tr("Could not send %1: server '%2' is not connected.").arg(method, m_options.serverName)
            : tr("Could not send %1: %2").arg(method, m_lastError);
        finish(key, reply);
        break;
    }
    }
    return id;
}

void ClientSession::dispatch(const JsonRpcMessage& message, const RequestOptions& options)
{
    const qint64 maxTotal = options.maxTotalMs > 0 ? options.maxTotalMs : options.timeoutMs * 10;
    const QJsonValue token
        = message.params.value(QLatin1String("_meta")).toObject().value(QLatin1String("progressToken"));
    m_tracker.track(message.id, message.method, options.timeoutMs, maxTotal, token);
    m_transport->send(message);
}

void ClientSession::notify(const QString& method, const QJsonObject& params)
{
    if (m_transport && m_state != State::Closed && m_state != State::Failed)
        m_transport->send(JsonRpcMessage::notification(method, params));
}

bool ClientSession::cancel(const QJsonValue& id, const QString& reason)
{
    const QString key = idKey(id);
    if (!m_pending.contains(key))
        return false;
    const bool wasDispatched = m_tracker.abandon(id).has_value();
    if (!wasDispatched) {
        for (qsizetype i = 0; i < m_queue.size(); ++i) {
            if (idKey(m_queue.at(i).message.id) == key) {
                m_queue.removeAt(i);
                break;
            }
        }
    } else if (m_state == State::Ready) {
        notify(QStringLiteral("notifications/cancelled"),
            { { QStringLiteral("requestId"), id }, { QStringLiteral("reason"), reason } });
    }
    Reply reply;
    reply.status = Reply::Status::Cancelled;
    reply.id = id;
    reply.method = m_pending.value(key).method;
    reply.written = m_pending.value(key).written;
    reply.failure.message = reason;
    finish(key, reply);
    return true;
}

void ClientSession::finish(const QString& key, Reply reply)
{
    auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    Pending pending = std::move(it.value());
    m_pending.erase(it);
    if (reply.method.isEmpty())
        reply.method = pending.method;
    reply.written = reply.written || pending.written;
    if (!(pending.hasContext && !pending.context) && pending.done)
        pending.done(reply);
    if (m_pending.isEmpty())
        Q_EMIT idle();
}

void ClientSession::onMessage(const JsonRpcMessage& message)
{
    switch (message.type) {
    case JsonRpcMessage::Type::Response:
    case JsonRpcMessage::Type::ErrorResponse:
        onReply(message);
        break;
    case JsonRpcMessage::Type::Request:
        onServerRequest(message);
        break;
    case JsonRpcMessage::Type::Notification:
        onNotification(message);
        break;
    }
}

void ClientSession::onReply(const JsonRpcMessage& message)
{
    const auto entry = m_tracker.complete(message.id);
    if (!entry) {
        // A late answer to a request we gave up on is expected and ignored (MCP lifecycle).
        if (m_tracker.wasAbandoned(message.id))
            ++m_lateResponses;
        else
            Q_EMIT protocolWarning(
                tr("Server '%1' sent a response to unknown request id %2.")
                    .arg(m_options.serverName,
                        QString::fromUtf8(QJsonDocument(QJsonArray { message.id }).toJson(QJsonDocument::Compact))));
        return;
    }
    Reply reply;
    reply.id = message.id;
    reply.method = entry->method;
    reply.written = true;
    reply.elapsedMs = m_tracker.now() - entry->startedAt;
    if (message.type == JsonRpcMessage::Type::Response) {
        reply.status = Reply::Status::Ok;
        reply.result = message.result;
    } else {
        reply.status = Reply::Status::RpcError;
        reply.error = message.error;
        reply.failure.requestWritten = true;
        reply.failure.message = tr("Server '%1' answered %2 with error %3: %4")
                                    .arg(m_options.serverName, entry->method)
                                    .arg(message.error.code)
                                    .arg(message.error.message);
    }
    finish(idKey(message.id), reply);
}

void ClientSession::onServerRequest(const JsonRpcMessage& message)
{
    const QJsonValue id = message.id;
    auto send = [session = QPointer<ClientSession>(this), id](
                    const QJsonValue& result, const std::optional<JsonRpcError>& error) {
        if (!session || !session->m_transport || session->m_state == State::Closed || session->m_state == State::Failed)
            return;
        session->m_transport->send(
            error ? JsonRpcMessage::errorResponse(id, *error) : JsonRpcMessage::response(id, result));
    };
    if (message.method == Ping) {
        send(QJsonObject(), std::nullopt);
        return;
    }
    QString capability;
    if (message.method == QLatin1String("roots/list"))
        capability = QStringLiteral("roots");
    else if (message.method == QLatin1String("sampling/createMessage"))
        capability = QStringLiteral("sampling");
    else if (message.method == QLatin1String("elicitation/create"))
        capability = QStringLiteral("elicitation");
    if (!capability.isEmpty() && m_responder && m_responder->capabilities().contains(capability)) {
        m_responder->respond(message, send);
        return;
    }
    send({},
        JsonRpcError { ErrorCode::MethodNotFound,
            capability.isEmpty() ? tr("Method not found: %1").arg(message.method)
                                 : tr("Method not found: the client did not declare the %1 capability").arg(capability),
            {} });
}

void ClientSession::onNotification(const JsonRpcMessage& message)
{
    const QString& method = message.method;
    if (method == QLatin1String("notifications/progress")) {
        const QJsonValue token = message.params.value(QLatin1String("progressToken"));
        const double value = message.params.value(QLatin1String("progress")).toDouble();
        if (const auto entry = m_tracker.progress(token, value)) {
            const auto it = m_pending.constFind(idKey(entry->id));
            if (it != m_pending.constEnd() && it->onProgress && (!it->hasContext || it->context)) {
                ProgressUpdate update;
                update.progress = value;
                const QJsonValue total = message.params.value(QLatin1String("total"));
                if (total.isDouble())
                    update.total = total.toDouble();
                update.message = message.params.value(QLatin1String("message")).toString();
                it->onProgress(update);
            }
        }
    } else if (method == QLatin1String("notifications/message")) {
        Q_EMIT logMessage(message.params.value(QLatin1String("level")).toString(),
            message.params.value(QLatin1String("logger")).toString(), message.params.value(QLatin1String("data")));
    } else if (method == QLatin1String("notifications/tools/list_changed")) {
        // server-everything sends this even before answering initialize. A list already on its way
        // may predate the change, so it is listed again once that one lands.
        if (m_toolsListsInFlight > 0)
            m_toolsDirty = true;
        else if (m_toolsListed && m_state == State::Ready)
            listTools(nullptr);
    }
    Q_EMIT notificationReceived(message);
}

void ClientSession::onRequestFailed(const QJsonValue& id, const TransportFailure& failure)
{
    const QString key = idKey(id);
    if (!m_pending.contains(key))
        return;
    const auto entry = m_tracker.abandon(id);
    Reply reply;
    reply.status = Reply::Status::Failed;
    reply.id = id;
    reply.failure = failure;
    reply.written = failure.requestWritten || m_pending.value(key).written;
    reply.failure.requestWritten = reply.written;
    if (entry)
        reply.elapsedMs = m_tracker.now() - entry->startedAt;
    finish(key, reply);
}

void ClientSession::onChannelFailed(const TransportFailure& failure)
{
    if (m_state == State::Closing || m_state == State::Closed)
        return;
    // Failed first: callers woken by abandonAll() must not see a session that still looks ready.
    QString message = failure.message;
    if (m_state == State::Connecting || m_state == State::Initializing) {
        m_initializeFailure = failure;
        message = tr("Server '%1' failed to initialize: %2").arg(m_options.serverName, failure.message);
    }
    // Failed before abandonAll(): the callers it wakes must not see a session that still looks ready.
    // failed() only after it: whoever hears failed() may close the session (the CLI quits on it), and
    // a close would end the requests still in flight as cancelled instead of by the failure's own kind,
    // which is what R4/R5 decide on (RECOVERY.md §3, stdio).
    const bool announce = enterFailed(message, failure.kind());
    abandonAll(failure);
    if (announce)
        Q_EMIT failed(message);
}

void ClientSession::abandonAll(const TransportFailure& failure)
{
    // Both taken before any handler runs: a handler that closes the session must not turn the queued
    // requests into cancelled ones.
    const QList<RequestTracker::Entry> entries = m_tracker.abandonAll();
    const QList<Queued> queued = std::exchange(m_queue, {});
    for (const RequestTracker::Entry& entry : entries) {
        const QString key = idKey(entry.id);
        Reply reply;
        reply.status = Reply::Status::Failed;
        reply.id = entry.id;
        reply.failure = failure;
        // Whether this request's bytes had left is the session's evidence, not the channel's: the
        // classifier reads a lost channel with nothing written as NotSent (RECOVERY.md §3, stdio).
        reply.written = m_pending.value(key).written;
        reply.failure.requestWritten = reply.written;
        reply.elapsedMs = m_tracker.now() - entry.startedAt;
        finish(key, reply);
    }
    for (const Queued& q : queued) {
        Reply reply;
        reply.status = Reply::Status::Failed;
        reply.id = q.message.id;
        reply.failure = failure;
        reply.failure.event = TransportEvent::NotSent;
        reply.failure.requestWritten = false;
        finish(idKey(q.message.id), reply);
    }
}

void ClientSession::onTimedOut(const RequestTracker::Entry& entry)
{
    const QString key = idKey(entry.id);
    if (entry.method != Initialize) {
        notify(QStringLiteral("notifications/cancelled"),
            { { QStringLiteral("requestId"), entry.id },
                { QStringLiteral("reason"), tr("timed out after %1 ms").arg(entry.timeoutMs) } });
    }
    Reply reply;
    reply.status = Reply::Status::TimedOut;
    reply.id = entry.id;
    reply.method = entry.method;
    reply.elapsedMs = m_tracker.now() - entry.startedAt;
    reply.failure.event = TransportEvent::TimedOut;
    reply.failure.message = tr("Server '%1' did not answer %2 within %3 s.")
                                .arg(m_options.serverName, entry.method)
                                .arg(double(entry.timeoutMs) / 1000.0);
    if (m_malformedLines > 0) {
        reply.failure.message += QLatin1Char(' ')
            + tr("It wrote %1 line(s) that are not JSON-RPC messages; the last began: %2")
                  .arg(m_malformedLines)
                  .arg(m_lastMalformed);
    }
    finish(key, reply);
    if (entry.method == Initialize)
        m_transport->close();
}

void ClientSession::onMalformed(const QString& reason, const QByteArray& excerpt, const QJsonValue& id)
{
    ++m_malformedLines;
    m_lastMalformed = QString::fromUtf8(excerpt.left(120));
    Q_EMIT protocolWarning(reason);
    if (id.isUndefined() || id.isNull() || !m_tracker.isPending(id))
        return;
    const auto entry = m_tracker.abandon(id);
    Reply reply;
    reply.status = Reply::Status::Failed;
    reply.id = id;
    reply.written = true;
    reply.failure.event = TransportEvent::Malformed;
    reply.failure.requestWritten = true;
    reply.failure.message = reason;
    if (entry)
        reply.elapsedMs = m_tracker.now() - entry->startedAt;
    finish(idKey(id), reply);
}

void ClientSession::close()
{
    if (m_state == State::Closing || m_state == State::Closed)
        return;
    m_keepalive.stop();
    const State previous = m_state;
    setState(State::Closing);
    const QList<RequestTracker::Entry> entries = m_tracker.abandonAll();
    for (const RequestTracker::Entry& entry : entries) {
        Reply reply;
        reply.status = Reply::Status::Cancelled;
        reply.id = entry.id;
        reply.failure.message
            = tr("%1 was cancelled because the session with '%2' was closed.").arg(entry.method, m_options.serverName);
        finish(idKey(entry.id), reply);
    }
    const QList<Queued> queued = std::exchange(m_queue, {});
    for (const Queued& q : queued) {
        Reply reply;
        reply.status = Reply::Status::Cancelled;
        reply.id = q.message.id;
        reply.failure.message = tr("%1 was cancelled because the session with '%2' was closed.")
                                    .arg(q.message.method, m_options.serverName);
        finish(idKey(q.message.id), reply);
    }
    if (previous == State::Disconnected) {
        setState(State::Closed);
        Q_EMIT closed();
        return;
    }
    m_transport->close();
}

void ClientSession::abort()
{
    if (m_transport)
        m_transport->abort();
}

void ClientSession::sendKeepalive()
{
    // Never while a request is in flight: its answer already proves the peer is alive.
    if (m_state != State::Ready || m_tracker.pendingCount() > 0)
        return;
    RequestOptions options;
    options.timeoutMs = std::min<qint64>(m_options.requestTimeoutMs, qint64(m_options.keepaliveIntervalSec) * 1000);
    request(
        Ping, {}, options,
        [this](const Reply& reply) {
            if (!reply.ok() && reply.status != Reply::Status::Cancelled)
                Q_EMIT keepaliveFailed(reply);
        },
        this);
}

void ClientSession::listAll(const QString& method, const QString& key, ReplyHandler done, QObject* context)
{
    QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    listPage(method, key, QString(), std::make_shared<QJsonArray>(),
        [done = std::move(done), guard, hasContext](const Reply& reply) {
            if (hasContext && !guard)
                return;
            if (done)
                done(reply);
        });
}

void ClientSession::listPage(const QString& method, const QString& key, const QString& cursor,
    std::shared_ptr<QJsonArray> items, std::function<void(const Reply&)> done)
{
    QJsonObject params;
    if (!cursor.isNull())
        params.insert(QStringLiteral("cursor"), cursor);
    RequestOptions options;
    options.timeoutMs = m_options.requestTimeoutMs;
    request(
        method, params, options,
        [this, method, key, items, done = std::move(done)](const Reply& reply) mutable {
            if (!reply.ok()) {
                done(reply);
                return;
            }
            const QJsonObject result = reply.resultObject();
            for (const QJsonValue& item : result.value(key).toArray())
                items->append(item);
            const QJsonValue next = result.value(QLatin1String("nextCursor"));
            if (next.isString() && !next.toString().isEmpty() && items->size() < MaxListPages * 1000) {
                listPage(method, key, next.toString(), items, std::move(done));
                return;
            }
            Reply all = reply;
            QJsonObject merged = result;
            merged.insert(key, *items);
            merged.remove(QStringLiteral("nextCursor"));
            all.result = merged;
            done(all);
        },
        this);
}

void ClientSession::listTools(ReplyHandler done, QObject* context)
{
    QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    ++m_toolsListsInFlight;
    listAll(
        QStringLiteral("tools/list"), QStringLiteral("tools"),
        [this, done = std::move(done), guard, hasContext](const Reply& reply) {
            --m_toolsListsInFlight;
            if (m_toolsDirty && m_toolsListsInFlight == 0 && m_state == State::Ready) {
                m_toolsDirty = false;
                listTools(nullptr);
            }
            if (reply.ok()) {
                // Marks names listed more than once: they are write-capable (RECOVERY.md §2).
                m_tools = ToolInfo::listFromJson(reply.resultObject().value(QLatin1String("tools")).toArray());
                m_toolsListed = true;
                Q_EMIT toolsChanged();
            }
            if (hasContext && !guard)
                return;
            if (done)
                done(reply);
        },
        this);
}

QJsonValue ClientSession::callTool(const QString& name, const QJsonObject& arguments, const RequestOptions& options,
    ReplyHandler done, QObject* context)
{
    return request(QStringLiteral("tools/call"),
        { { QStringLiteral("name"), name }, { QStringLiteral("arguments"), arguments } }, options, std::move(done),
        context);
}

const ToolInfo* ClientSession::tool(const QString& name) const
{
    for (const ToolInfo& tool : m_tools) {
        if (tool.name == name)
            return &tool;
    }
    return nullptr;
}

ToolListing ClientSession::listing(const QString& name) const
{
    // No listing yet says nothing about the tool: not listed, so write-capable.
    return m_toolsListed ? ToolListing::of(m_tools, name) : ToolListing {};
}

} // namespace mcpscope
