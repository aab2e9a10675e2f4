#include "streamablehttptransport.h"

#include "httpcommon.h"
#include "jsonrpc/jsonrpccodec.h"

#include <QDateTime>
#include <QList>
#include <QPair>
#include <QScopeGuard>
#include <QTimer>

namespace mcpscope {

namespace {
const QByteArray SessionHeader("Mcp-Session-Id");
const QByteArray ProtocolHeader("MCP-Protocol-Version");
constexpr int MaxGetStreamFailures = 3;
constexpr qsizetype ErrorBodyCap = 64 * 1024;
/// How long close() lets notifications already on their way (a timed-out call's cancel) get through.
constexpr int CloseGraceMs = 5000;
constexpr qint64 DeleteTimeoutMs = 2000;
constexpr qint64 TerminateTimeoutMs = 5000;

bool isVisibleAscii(const QByteArray& value)
{
    if (value.isEmpty())
        return false;
    return std::all_of(value.cbegin(), value.cend(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}
} // namespace

StreamableHttpTransport::StreamableHttpTransport(HttpTransportOptions options, QObject* parent)
    : Transport(parent)
    , m_options(std::move(options))
{
    static quint64 connections = 0;
    m_localIdentity = QStringLiteral("connection:") + QString::number(++connections);
    m_closeGrace.setSingleShot(true);
    connect(&m_closeGrace, &QTimer::timeout, this, [this] {
        // The grace is over: whatever notification is still on its way is given up.
        for (const auto& exchange : std::as_const(m_exchanges)) {
            if (exchange->reply && !exchange->isRequest)
                exchange->reply->disconnect(this);
        }
        m_exchanges.erase(std::remove_if(m_exchanges.begin(), m_exchanges.end(),
                              [](const std::shared_ptr<Exchange>& exchange) {
                                  if (exchange->isRequest || !exchange->reply)
                                      return false;
                                  exchange->reply->abort();
                                  return true;
                              }),
            m_exchanges.end());
        finishCloseWhenQuiet();
    });
}

StreamableHttpTransport::~StreamableHttpTransport()
{
    for (const auto& exchange : std::as_const(m_exchanges)) {
        if (exchange->reply)
            exchange->reply->disconnect(this);
    }
}

void StreamableHttpTransport::open()
{
    // HTTP has no channel to open; the first POST (initialize) is the real test.
    QTimer::singleShot(0, this, [this] { Q_EMIT opened(); });
}

HttpRequest StreamableHttpTransport::makeRequest(const QByteArray& method) const
{
    HttpRequest request = HttpCommon::makeRequest(method, m_options.url, m_options);
    if (!m_sessionId.isEmpty() && !m_modern)
        request.headers.append({ SessionHeader, m_sessionIdBytes.of(m_sessionId) });
    if (!m_protocolVersion.isEmpty())
        request.headers.append({ ProtocolHeader, m_protocolVersionBytes.of(m_protocolVersion) });
    return request;
}

void StreamableHttpTransport::setProtocolVersion(const QString& version)
{
    m_protocolVersion = version;
    if (m_modern)
        return;
    // The server→client stream opens now, before notifications/initialized goes out: a server that
    // answers initialized with notifications (tools/list_changed after registering tools for the
    // client's capabilities) sends them on this stream, and drops them while it is not open.
    openGetStream();
}

void StreamableHttpTransport::setModern(bool modern, const QString& version, HeaderSource headers)
{
    m_modern = modern;
    m_protocolVersion = modern ? version : QString();
    m_modernHeaders = modern ? std::move(headers) : HeaderSource();
    if (modern)
        m_sessionId.clear();
}

bool StreamableHttpTransport::dropRequest(const QJsonValue& id)
{
    if (!m_modern)
        return false;
    const IdKey key = idKey(id);
    for (const auto& listed : std::as_const(m_exchanges)) {
        if (!listed->isRequest || listed->answered || idKey(listed->id) != key)
            continue;
        // A copy: removeOne() below destroys the list's own pointer, which may be the last one.
        const std::shared_ptr<Exchange> exchange = listed;
        // Closing the response stream is the revision's cancellation; nothing of it is reported.
        exchange->answered = true;
        m_exchanges.removeOne(exchange);
        if (exchange->reply) {
            exchange->reply->disconnect(this);
            exchange->reply->abort();
            exchange->reply->deleteLater();
        }
        return true;
    }
    return true;
}

bool StreamableHttpTransport::deliverErrorBody(const std::shared_ptr<Exchange>& exchange, HttpReply* reply)
{
    const int status = reply->status();
    if (!m_modern || !exchange->isRequest || exchange->answered || status < 400 || status >= 500 || status == 401
        || status == 403 || exchange->body.isEmpty())
        return false;
    // A legacy server's session gate answering this sessionless request stays HTTP evidence: it says which era
    // the server speaks (RECOVERY.md §9, EraMismatch), not what the request did.
    if (isLegacySessionGateBody(exchange->body))
        return false;
    DecodeResult decoded = JsonRpcCodec::decode(exchange->body);
    if (!decoded || decoded.message.type != JsonRpcMessage::Type::ErrorResponse)
        return false;
    // The revision answers a request it refused with an id-less error at times: it is this request's.
    if (decoded.message.id.isNull() || decoded.message.id.isUndefined())
        decoded.message.id = exchange->id;
    if (idKey(decoded.message.id) != idKey(exchange->id))
        return false;
    Q_EMIT traffic(WireDirection::Incoming, exchange->body);
    settleWire(exchange);
    exchange->answered = true;
    Q_EMIT messageReceived(decoded.message);
    return true;
}

void StreamableHttpTransport::send(const JsonRpcMessage& message)
{
    auto exchange = std::make_shared<Exchange>();
    exchange->isRequest = message.isRequest();
    exchange->id = message.id;
    exchange->method = message.isReply() ? QStringLiteral("response") : message.method;
    exchange->sessionIdSent = m_sessionId;
    if (m_closing) {
        TransportFailure failure;
        failure.event = TransportEvent::NotSent;
        failure.message = tr("Could not send %1 to HTTP server '%2': the transport is closing.")
                              .arg(exchange->method, m_options.serverName);
        failExchange(exchange, failure);
        return;
    }
    HttpRequest request = makeRequest(QByteArrayLiteral("POST"));
    request.body = JsonRpcCodec::encode(message);
    Q_EMIT traffic(WireDirection::Outgoing, request.body);
    request.headers.append({ QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json") });
    request.headers.append({ QByteArrayLiteral("Accept"), QByteArrayLiteral("application/json, text/event-stream") });
    if (m_modern && m_modernHeaders)
        request.headers.append(m_modernHeaders(message));
    if (exchange->isRequest && recordsExchanges()) {
        exchange->recording = true;
        exchange->wire.append(HttpCommon::startExchange(request));
    }
    HttpReply* reply = m_http.send(std::move(request));
    reply->whenRequestWritten(this, [this, exchange] {
        if (std::exchange(exchange->uploaded, true))
            return;
        if (exchange->isRequest)
            Q_EMIT requestWritten(exchange->id);
    });
    watch(reply, exchange);
}

void StreamableHttpTransport::watch(HttpReply* reply, std::shared_ptr<Exchange> exchange)
{
    exchange->reply = reply;
    m_exchanges.append(exchange);
    connect(reply, &HttpReply::headReceived, this, [this, exchange] {
        if (exchange->method == QLatin1String("initialize") && m_sessionId.isEmpty() && exchange->reply && !m_modern) {
            const QByteArray id = exchange->reply->header(SessionHeader);
            if (isVisibleAscii(id))
                m_sessionId = QString::fromLatin1(id);
        }
        HttpCommon::noteNonce(m_options, exchange->reply);
        if (exchange->recording && !exchange->wire.isEmpty())
            HttpCommon::noteResponse(exchange->wire.last(), exchange->reply);
    });
    connect(reply, &HttpReply::readyRead, this, [this, exchange] { onReadyRead(exchange); });
    connect(reply, &HttpReply::finished, this, [this, exchange] { onFinished(exchange); });
}

void StreamableHttpTransport::onReadyRead(const std::shared_ptr<Exchange>& exchange)
{
    HttpReply* reply = exchange->reply;
    if (!reply)
        return;
    const QByteArray bytes = reply->readAll();
    exchange->received += bytes.size();
    if (exchange->recording && !exchange->wire.isEmpty())
        exchange->wire.last().appendResponseBody(bytes);
    if (!reply->isSuccess()) {
        if (exchange->body.size() < ErrorBodyCap)
            exchange->body.append(bytes.left(ErrorBodyCap - exchange->body.size()));
        return;
    }
    const bool overCap
        = exchange->received > m_options.maxResponseBytes && !exchange->resume && exchange.get() != m_getStream.get();
    if (overCap || exchange->parser.bufferedBytes() > m_options.maxResponseBytes) {
        TransportFailure failure;
        failure.event = TransportEvent::Oversize;
        failure.requestWritten = true;
        failure.responseStarted = true;
        failure.httpStatus = reply->status();
        failure.sessionId = exchange->sessionIdSent;
        failure.message = tr("HTTP server '%1' sent a response to %2 larger than the %3-byte limit; it was cut off.")
                              .arg(m_options.serverName, exchange->method)
                              .arg(m_options.maxResponseBytes);
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
        m_exchanges.removeOne(exchange);
        failExchange(exchange, failure);
        return;
    }
    if (HttpCommon::isEventStream(reply)) {
        exchange->isSse = true;
        const QList<SseEvent> events = exchange->parser.feed(bytes);
        for (const SseEvent& event : events) {
            if (event.type == "message")
                deliver(exchange, event.data);
        }
    } else {
        exchange->body.append(bytes);
    }
}

void StreamableHttpTransport::deliver(const std::shared_ptr<Exchange>& exchange, QByteArrayView json)
{
    // Some event stores replay other streams' priming events as "{}" on resume: noise, not an answer.
    if (json.trimmed().isEmpty() || json.trimmed() == "{}")
        return;
    Q_EMIT traffic(WireDirection::Incoming, json.toByteArray());
    DecodeResult decoded = JsonRpcCodec::decode(json);
    if (!decoded) {
        if (exchange->isRequest && !exchange->answered
            && (decoded.id.isUndefined() || idKey(decoded.id) == idKey(exchange->id)))
            settleWire(exchange);
        Q_EMIT malformedMessage(tr("HTTP server '%1' sent something that is not a JSON-RPC message in answer to "
                                   "%2: %3")
                                    .arg(m_options.serverName, exchange->method, decoded.error),
            json.first(std::min<qsizetype>(json.size(), 256)).toByteArray(),
            exchange->isRequest && !exchange->answered ? exchange->id : decoded.id);
        if (exchange->isRequest && (decoded.id.isUndefined() || idKey(decoded.id) == idKey(exchange->id)))
            exchange->answered = true;
        return;
    }
    if (decoded.message.isReply() && exchange->isRequest && !exchange->answered
        && idKey(decoded.message.id) == idKey(exchange->id)) {
        settleWire(exchange);
        exchange->answered = true;
    }
    Q_EMIT messageReceived(decoded.message);
}

void StreamableHttpTransport::onFinished(const std::shared_ptr<Exchange>& exchange)
{
    HttpReply* reply = exchange->reply;
    m_exchanges.removeOne(exchange);
    if (!reply)
        return;
    // Deleted as this returns, not by deleteLater: a posted event wakes the event loop, an eventfd write,
    // a poll and a read that were a third of an HTTP call's syscalls. This runs in the reply's finished
    // signal, which HttpClient emits last, touching the reply no more. The QPointer: what this emits may
    // end the transport, and its replies with it.
    const auto deleteReply = qScopeGuard([reply = QPointer<HttpReply>(reply)] { delete reply.data(); });
    if (m_closing) {
        // A notification that got through while closing; the close goes on once none is left.
        finishCloseWhenQuiet();
        return;
    }
    const bool isGetStream = exchange.get() == m_getStream.get();
    if (reply->bytesAvailable() > 0)
        onReadyRead(exchange);
    if (exchange->recording && !exchange->wire.isEmpty()) {
        HttpExchange& wire = exchange->wire.last();
        HttpCommon::noteResponse(wire, reply);
        wire.endedAt = QDateTime::currentMSecsSinceEpoch();
        if (reply->error() != HttpClientError::None)
            wire.error = reply->errorString();
    }
    const HttpEvidence& evidence = reply->evidence();
    const bool broken = reply->error() != HttpClientError::None;

    if (isGetStream) {
        m_getStream.reset();
        const int status = reply->status();
        if (status >= 400 && status < 500) {
            // 405 (or another 4xx) means the server offers no GET stream; that is not a failure.
            Q_EMIT notice(tr("HTTP server '%1' offers no server-to-client stream (GET answered %2).")
                              .arg(m_options.serverName)
                              .arg(status));
            return;
        }
        const bool ok = reply->isSuccess() && !exchange->killed;
        m_getStreamFailures = ok ? 0 : m_getStreamFailures + 1;
        if (m_getStreamFailures < MaxGetStreamFailures && !m_protocolVersion.isEmpty() && !exchange->killed) {
            const int delay = exchange->parser.retryMs() >= 0 ? exchange->parser.retryMs() : m_options.defaultRetryMs;
            QTimer::singleShot(delay, this, &StreamableHttpTransport::openGetStream);
        }
        return;
    }

    const QString what = exchange->resume ? tr("the resumed stream of %1").arg(exchange->method)
                                          : QStringLiteral("POST ") + exchange->method;
    if (exchange->killed) {
        TransportFailure failure
            = HttpCommon::failureFor(reply, exchange->body, exchange->sessionIdSent, m_options.serverName, what);
        failure.event = TransportEvent::Killed;
        // A resumed stream's POST was delivered long ago: its answer is what got lost.
        failure.requestWritten = failure.requestWritten || exchange->resume || exchange->uploaded;
        failure.message = tr("HTTP server '%1': %2 was dropped by the kill-transport action (%3).")
                              .arg(m_options.serverName, what,
                                  failure.requestWritten ? tr("the request had been sent")
                                                         : tr("nothing of the request had been sent"));
        failExchange(exchange, failure);
        return;
    }
    if (!reply->isSuccess() && !broken && deliverErrorBody(exchange, reply))
        return;
    if (!reply->isSuccess() || (broken && evidence.status == 0)) {
        TransportFailure failure
            = HttpCommon::failureFor(reply, exchange->body, exchange->sessionIdSent, m_options.serverName, what);
        if (exchange->resume && !failure.sessionRefused()) {
            // The original POST was delivered; its answer is what got lost.
            failure.event = TransportEvent::ConnectionLost;
            failure.requestWritten = true;
        }
        failExchange(exchange, failure);
        return;
    }
    // A stream cut before its first byte is still a stream: it may be resumable.
    exchange->isSse = exchange->isSse || HttpCommon::isEventStream(reply);
    // A 200 whose connection broke mid-body: what arrived is a fragment, not a malformed answer.
    if (!exchange->isSse && !exchange->body.isEmpty() && !broken)
        deliver(exchange, exchange->body);
    if (!exchange->isRequest || exchange->answered)
        return;
    if (exchange->isSse && !m_modern) {
        resumeStream(exchange);
        return;
    }
    if (broken) {
        TransportFailure failure
            = HttpCommon::failureFor(reply, {}, exchange->sessionIdSent, m_options.serverName, what);
        failure.event = TransportEvent::ConnectionLost;
        failure.requestWritten = true;
        failure.message = tr("HTTP server '%1': the response to %2 was cut off after %3 bytes (%4).")
                              .arg(m_options.serverName, exchange->method)
                              .arg(exchange->received)
                              .arg(reply->errorString());
        failExchange(exchange, failure);
        return;
    }
    TransportFailure failure;
    failure.event = TransportEvent::NoAnswer;
    failure.requestWritten = true;
    failure.responseStarted = true;
    failure.httpStatus = reply->status();
    failure.sessionId = exchange->sessionIdSent;
    failure.message = tr("HTTP server '%1' answered POST %2 with status %3 but no JSON-RPC response.")
                          .arg(m_options.serverName, exchange->method)
                          .arg(failure.httpStatus);
    failExchange(exchange, failure);
}

void StreamableHttpTransport::resumeStream(const std::shared_ptr<Exchange>& exchange)
{
    if (!exchange->parser.hasLastEventId() || exchange->resumeAttempts >= m_options.maxResumeAttempts) {
        TransportFailure failure;
        failure.event = TransportEvent::ConnectionLost;
        failure.requestWritten = true;
        failure.responseStarted = true;
        failure.sessionId = exchange->sessionIdSent;
        failure.message = exchange->parser.hasLastEventId()
            ? tr("HTTP server '%1': the event stream of %2 ended before the response, and %3 attempts to resume it "
                 "failed.")
                  .arg(m_options.serverName, exchange->method)
                  .arg(exchange->resumeAttempts)
            : tr("HTTP server '%1': the event stream of %2 ended before the response and carried no event id to "
                 "resume from.")
                  .arg(m_options.serverName, exchange->method);
        failExchange(exchange, failure);
        return;
    }
    const int delay = exchange->parser.retryMs() >= 0 ? exchange->parser.retryMs() : m_options.defaultRetryMs;
    ++exchange->resumeAttempts;
    // Waiting to resume is still in flight: kill and close must find it (with no reply of its own).
    exchange->reply = nullptr;
    m_exchanges.append(exchange);
    QTimer::singleShot(delay, this, [this, exchange] {
        if (m_closing || exchange->answered || !m_exchanges.contains(exchange))
            return;
        m_exchanges.removeOne(exchange);
        exchange->resume = true;
        ++m_resumedStreams;
        exchange->parser.reset();
        exchange->body.clear();
        // Resuming is a GET for the rest of the stream (MCP resumability), never the POST again.
        HttpRequest request = makeRequest(QByteArrayLiteral("GET"));
        request.headers.append({ QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream") });
        request.headers.append({ QByteArrayLiteral("Last-Event-ID"), exchange->parser.lastEventId() });
        if (exchange->recording)
            exchange->wire.append(HttpCommon::startExchange(request));
        watch(m_http.send(std::move(request)), exchange);
    });
}

void StreamableHttpTransport::failExchange(const std::shared_ptr<Exchange>& exchange, TransportFailure failure)
{
    if (exchange->isRequest) {
        if (exchange->answered)
            return;
        settleWire(exchange);
        exchange->answered = true;
        Q_EMIT requestFailed(exchange->id, failure);
        return;
    }
    Q_EMIT notice(failure.message);
}

void StreamableHttpTransport::settleWire(const std::shared_ptr<Exchange>& exchange)
{
    if (!exchange->recording || exchange->wire.isEmpty())
        return;
    HttpExchange& last = exchange->wire.last();
    HttpCommon::noteResponse(last, exchange->reply);
    // An answer on a stream that stays open settles the request now; the rest of the stream is not its.
    if (last.endedAt == 0)
        last.endedAt = QDateTime::currentMSecsSinceEpoch();
    WireExchange wire;
    wire.http = exchange->wire;
    Q_EMIT exchangeRecorded(exchange->id, wire);
}

void StreamableHttpTransport::openGetStream()
{
    if (m_closing || m_getStream)
        return;
    auto exchange = std::make_shared<Exchange>();
    exchange->method = QStringLiteral("GET stream");
    exchange->sessionIdSent = m_sessionId;
    exchange->uploaded = true;
    m_getStream = exchange;
    HttpRequest request = makeRequest(QByteArrayLiteral("GET"));
    request.headers.append({ QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream") });
    watch(m_http.send(std::move(request)), exchange);
}

void StreamableHttpTransport::sendDelete(qint64 timeoutMs, bool thenClosed)
{
    HttpRequest request = makeRequest(QByteArrayLiteral("DELETE"));
    request.timeoutMs = timeoutMs;
    HttpReply* reply = m_http.send(std::move(request));
    connect(reply, &HttpReply::finished, this, [this, reply, thenClosed] {
        reply->deleteLater();
        if (thenClosed)
            Q_EMIT closed();
    });
}

void StreamableHttpTransport::terminateSession()
{
    if (m_sessionId.isEmpty())
        return;
    sendDelete(TerminateTimeoutMs, false);
}

void StreamableHttpTransport::close()
{
    if (m_closing)
        return;
    m_closing = true;
    // Notifications and responses already on their way (a timed-out call's notifications/cancelled
    // above all) reach the server first, for a moment; only then do the requests' streams end: a
    // server that sees the request's connection close first drops it, and the cancel finds nothing.
    if (notificationsInFlight())
        m_closeGrace.start(CloseGraceMs);
    finishCloseWhenQuiet();
}

bool StreamableHttpTransport::notificationsInFlight() const
{
    return std::any_of(m_exchanges.cbegin(), m_exchanges.cend(), [this](const std::shared_ptr<Exchange>& exchange) {
        return !exchange->isRequest && exchange.get() != m_getStream.get() && exchange->reply
            && !exchange->reply->isFinished();
    });
}

void StreamableHttpTransport::finishCloseWhenQuiet()
{
    if (notificationsInFlight() || std::exchange(m_closeFinishing, true))
        return;
    m_closeGrace.stop();
    for (const auto& exchange : std::exchange(m_exchanges, {})) {
        if (exchange->reply) {
            exchange->reply->disconnect(this);
            exchange->reply->abort();
            exchange->reply->deleteLater();
        }
    }
    m_getStream.reset();
    if (m_sessionId.isEmpty() || m_modern) {
        QTimer::singleShot(0, this, [this] { Q_EMIT closed(); });
        return;
    }
    // End the session on the server; 405 is an allowed answer, and nothing it says stops the close.
    sendDelete(DeleteTimeoutMs, true);
}

void StreamableHttpTransport::abort()
{
    // The kill-transport action: every request in flight ends now, as lost after whatever was written.
    const auto exchanges = m_exchanges;
    for (const auto& exchange : exchanges) {
        exchange->killed = true;
        if (exchange->reply) {
            exchange->reply->abort();
        } else if (exchange->isRequest && !exchange->answered) {
            // Between a dropped stream and its resumption: nothing on the wire to abort.
            m_exchanges.removeOne(exchange);
            TransportFailure failure;
            failure.event = TransportEvent::Killed;
            failure.requestWritten = true;
            failure.sessionId = exchange->sessionIdSent;
            failure.message = tr("HTTP server '%1': the stream of %2 was dropped by the kill-transport action.")
                                  .arg(m_options.serverName, exchange->method);
            failExchange(exchange, failure);
        }
    }
}

} // namespace mcpscope
