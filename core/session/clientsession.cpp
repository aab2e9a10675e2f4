#include "clientsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMetaMethod>

namespace mcpscope {

namespace {
const QLatin1String Initialize("initialize");
const QLatin1String Ping("ping");
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
    // Until a failure says otherwise, a session that ended reads as lost after its requests went out.
    m_lastFailure.requestWritten = true;
    Transport* t = m_transport.get();
    connect(t, &Transport::opened, this, &ClientSession::onOpened);
    connect(t, &Transport::messageReceived, this, &ClientSession::onMessage);
    connect(t, &Transport::requestWritten, this, [this](const QJsonValue& id) {
        const auto it = m_pending.find(idKey(id));
        if (it != m_pending.end())
            it->written = true;
    });
    if (m_options.recordExchanges)
        connect(t, &Transport::exchangeRecorded, this, &ClientSession::onExchangeRecorded);
    connect(t, &Transport::requestFailed, this, &ClientSession::onRequestFailed);
    connect(t, &Transport::channelFailed, this, &ClientSession::onChannelFailed);
    connect(t, &Transport::malformedMessage, this, &ClientSession::onMalformed);
    connect(t, &Transport::serverLog, this, &ClientSession::serverLog);
    connect(t, &Transport::notice, this, &ClientSession::notice);
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

void ClientSession::setRecordExchanges(bool on)
{
    if (std::exchange(m_options.recordExchanges, on) == on || !m_transport)
        return;
    // The transport records only while someone listens (Transport::recordsExchanges).
    if (on)
        connect(m_transport.get(), &Transport::exchangeRecorded, this, &ClientSession::onExchangeRecorded);
    else
        disconnect(m_transport.get(), &Transport::exchangeRecorded, this, &ClientSession::onExchangeRecorded);
}

void ClientSession::onExchangeRecorded(const QJsonValue& id, const WireExchange& exchange)
{
    // Reported right before the signal that settles the request, so its Reply takes it along.
    const auto it = m_pending.find(idKey(id));
    if (it != m_pending.end())
        it->exchange = exchange;
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
    // After a server/discover probe that found a legacy server, the session is initializing already.
    if (m_state != State::Connecting && !(m_state == State::Initializing && !m_probing && !m_modern))
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
        if (refusedAsModern(reply))
            return;
        m_initializeFailure = reply.failure;
        // A timed-out reply carries TimedOut evidence, an error reply its written request.
        fail(tr("Server '%1' failed to initialize: %2").arg(m_options.serverName, reply.describe()), reply.failure);
        return;
    }
    const QJsonObject result = reply.resultObject();
    const QString version = result.value(QLatin1String("protocolVersion")).toString();
    if (!supportedProtocolVersions().contains(version)) {
        // An answer McpScope cannot use: the request was handled, the session is not.
        TransportFailure unusable;
        unusable.event = TransportEvent::Malformed;
        unusable.requestWritten = true;
        unusable.message
            = tr("Server '%1' answered initialize with protocol version '%2', which McpScope does not "
                 "speak (supported: %3).")
                  .arg(m_options.serverName, version, supportedProtocolVersions().join(QStringLiteral(", ")));
        fail(unusable.message, unusable);
        m_transport->close();
        return;
    }
    m_details.protocolVersion = version;
    m_details.capabilities = result.value(QLatin1String("capabilities")).toObject();
    m_details.serverInfo = result.value(QLatin1String("serverInfo")).toObject();
    m_details.instructions = result.value(QLatin1String("instructions")).toString();
    m_details.sessionId = m_transport->sessionId();
    m_details.era = ProtocolEra::Legacy;
    if (m_details.eraReason.isEmpty())
        m_details.eraReason = m_options.era == ProtocolEra::Legacy ? tr("set to legacy for this server")
                                                                   : tr("known from an earlier probe");
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

void ClientSession::fail(const QString& message, const TransportFailure& evidence)
{
    if (enterFailed(message, evidence))
        Q_EMIT failed(message);
}

bool ClientSession::enterFailed(const QString& message, const TransportFailure& evidence)
{
    m_lastError = message;
    m_lastFailure = evidence;
    m_keepalive.stop();
    answerListenWaiting(message);
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
        // Without a _meta of the caller's, ours goes in as it is: one insert instead of one per key (each
        // costs Qt 6.4 some 3,000 instructions, on every call).
        const auto own = fullParams.constFind(QLatin1String("_meta"));
        if (own == fullParams.constEnd() || !own->isObject()) {
            fullParams.insert(QStringLiteral("_meta"), meta);
        } else {
            QJsonObject merged = own->toObject();
            for (auto it = meta.constBegin(); it != meta.constEnd(); ++it)
                merged.insert(it.key(), it.value());
            fullParams.insert(QStringLiteral("_meta"), merged);
        }
    }
    Pending pending;
    pending.done = std::move(done);
    pending.onProgress = options.onProgress;
    pending.context = context;
    pending.hasContext = context != nullptr;
    pending.method = method;
    const IdKey key = idKey(id);
    m_pending.insert(key, std::move(pending));

    JsonRpcMessage message = JsonRpcMessage::request(id, method, fullParams);
    message.rawMeta = options.rawMeta;
    if (m_modern && handledLocally(message))
        return id;
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
    if (m_modern || m_probing) {
        JsonRpcMessage modern = message;
        modern.params = withModernMeta(message.params);
        m_transport->send(modern);
        return;
    }
    m_transport->send(message);
}

void ClientSession::notify(const QString& method, const QJsonObject& params)
{
    if (m_transport && m_state != State::Closed && m_state != State::Failed)
        m_transport->send(JsonRpcMessage::notification(method, params));
}

bool ClientSession::cancel(const QJsonValue& id, const QString& reason)
{
    const IdKey key = idKey(id);
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
    } else if (m_modern && m_transport->dropRequest(id)) {
        // HTTP in the 2026-07-28 revision: closing the response stream is the cancellation.
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

void ClientSession::finish(const IdKey& key, Reply reply)
{
    auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    Pending pending = std::move(it.value());
    m_pending.erase(it);
    if (reply.method.isEmpty())
        reply.method = pending.method;
    reply.written = reply.written || pending.written;
    reply.exchange = std::move(pending.exchange);
    if (!(pending.hasContext && !pending.context) && pending.done)
        pending.done(reply);
    if (m_pending.size() == m_listen.open())
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
    const QString problem
        = message.type == JsonRpcMessage::Type::Response ? resultTypeProblem(entry->method, message.result) : QString();
    if (!problem.isEmpty()) {
        reply.status = Reply::Status::Failed;
        reply.failure.event = TransportEvent::Malformed;
        reply.failure.requestWritten = true;
        reply.failure.responseStarted = true;
        reply.failure.message = problem;
    } else if (message.type == JsonRpcMessage::Type::Response) {
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

void ClientSession::onRequestFailed(const QJsonValue& id, const TransportFailure& failure)
{
    const IdKey key = idKey(id);
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
    const bool announce = enterFailed(message, failure);
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
        const IdKey key = idKey(entry.id);
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
    const IdKey key = idKey(entry.id);
    if (entry.method == Modern::Discover) {
        // A probe is not a call: a legacy server that ignores it hears nothing more of it.
    } else if (m_modern && m_transport->dropRequest(entry.id)) {
        // HTTP in the 2026-07-28 revision: closing the response stream is the cancellation.
    } else if (entry.method != Initialize) {
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
    answerListenWaiting(tr("the session with '%1' was closed").arg(m_options.serverName));
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

} // namespace mcpscope
