#include "streamablehttptransport.h"

#include "httpcommon.h"
#include "jsonrpc/jsonrpccodec.h"

#include <QDateTime>
#include <QNetworkReply>
#include <QTimer>

namespace mcpscope {

namespace {
const QByteArray SessionHeader("Mcp-Session-Id");
const QByteArray ProtocolHeader("MCP-Protocol-Version");
constexpr int MaxGetStreamFailures = 3;
constexpr qsizetype ErrorBodyCap = 64 * 1024;

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
}

StreamableHttpTransport::~StreamableHttpTransport()
{
    for (const auto& exchange : std::as_const(m_exchanges)) {
        if (exchange->reply) {
            exchange->reply->disconnect(this);
            exchange->reply->abort();
        }
    }
}

void StreamableHttpTransport::open()
{
    // HTTP has no channel to open; the first POST (initialize) is the real test.
    QTimer::singleShot(0, this, [this] { Q_EMIT opened(); });
}

QNetworkRequest StreamableHttpTransport::makeRequest(const QUrl& url) const
{
    QNetworkRequest request(url);
    HttpCommon::prepare(request, m_options);
    if (!m_sessionId.isEmpty())
        request.setRawHeader(SessionHeader, m_sessionId.toLatin1());
    if (!m_protocolVersion.isEmpty())
        request.setRawHeader(ProtocolHeader, m_protocolVersion.toLatin1());
    if (!m_authorization.isEmpty())
        request.setRawHeader("Authorization", m_authorization);
    return request;
}

void StreamableHttpTransport::setProtocolVersion(const QString& version)
{
    m_protocolVersion = version;
    // The server→client stream is opened once the session is established.
    QTimer::singleShot(0, this, &StreamableHttpTransport::openGetStream);
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
        failure.kind = FailureKind::NotSent;
        failure.message = tr("Could not send %1 to HTTP server '%2': the transport is closing.")
                              .arg(exchange->method, m_options.serverName);
        failExchange(exchange, failure);
        return;
    }
    const QByteArray body = JsonRpcCodec::encode(message);
    Q_EMIT traffic(WireDirection::Outgoing, body);
    QNetworkRequest request = makeRequest(m_options.url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    if (exchange->isRequest && recordsExchanges()) {
        exchange->recording = true;
        exchange->wire.append(HttpCommon::startExchange(QStringLiteral("POST"), request, &body));
    }
    QNetworkReply* reply = m_nam.post(request, body);
    connect(reply, &QNetworkReply::uploadProgress, this, [this, exchange](qint64 sent, qint64 total) {
        if (exchange->uploaded || total <= 0 || sent < total)
            return;
        exchange->uploaded = true;
        if (exchange->isRequest)
            Q_EMIT requestWritten(exchange->id);
    });
    watch(reply, exchange);
}

void StreamableHttpTransport::watch(QNetworkReply* reply, std::shared_ptr<Exchange> exchange)
{
    exchange->reply = reply;
    m_exchanges.append(exchange);
    connect(reply, &QNetworkReply::readyRead, this, [this, exchange] { onReadyRead(exchange); });
    connect(reply, &QNetworkReply::finished, this, [this, exchange] { onFinished(exchange); });
}

void StreamableHttpTransport::onReadyRead(const std::shared_ptr<Exchange>& exchange)
{
    QNetworkReply* reply = exchange->reply;
    if (!reply)
        return;
    if (!exchange->uploaded) {
        exchange->uploaded = true; // an answer is arriving, so the whole body went out
        if (exchange->isRequest)
            Q_EMIT requestWritten(exchange->id);
    }
    if (exchange->method == QLatin1String("initialize") && m_sessionId.isEmpty()) {
        const QByteArray id = reply->rawHeader(SessionHeader);
        if (isVisibleAscii(id))
            m_sessionId = QString::fromLatin1(id);
    }
    const QByteArray bytes = reply->readAll();
    exchange->received += bytes.size();
    if (exchange->recording && !exchange->wire.isEmpty()) {
        HttpCommon::noteResponse(exchange->wire.last(), reply);
        exchange->wire.last().appendResponseBody(bytes);
    }
    if (!HttpCommon::isSuccess(reply)) {
        if (exchange->body.size() < ErrorBodyCap)
            exchange->body.append(bytes.left(ErrorBodyCap - exchange->body.size()));
        return;
    }
    const bool overCap
        = exchange->received > m_options.maxResponseBytes && !exchange->resume && exchange.get() != m_getStream.get();
    if (overCap || exchange->parser.bufferedBytes() > m_options.maxResponseBytes) {
        TransportFailure failure;
        failure.kind = FailureKind::ProtocolError;
        failure.requestWritten = true;
        failure.httpStatus = HttpCommon::status(reply);
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
    QNetworkReply* reply = exchange->reply;
    m_exchanges.removeOne(exchange);
    if (!reply)
        return;
    reply->deleteLater();
    if (m_closing)
        return;
    if (exchange->method == QLatin1String("initialize") && m_sessionId.isEmpty()) {
        const QByteArray id = reply->rawHeader(SessionHeader);
        if (isVisibleAscii(id))
            m_sessionId = QString::fromLatin1(id);
    }
    const bool isGetStream = exchange.get() == m_getStream.get();
    if (reply->bytesAvailable() > 0)
        onReadyRead(exchange);
    if (exchange->recording && !exchange->wire.isEmpty()) {
        HttpExchange& wire = exchange->wire.last();
        HttpCommon::noteResponse(wire, reply);
        wire.endedAt = QDateTime::currentMSecsSinceEpoch();
        if (reply->error() != QNetworkReply::NoError)
            wire.error = reply->errorString();
    }

    if (isGetStream) {
        m_getStream.reset();
        const int status = HttpCommon::status(reply);
        if (status >= 400 && status < 500) {
            // 405 (or another 4xx) means the server offers no GET stream; that is not a failure.
            Q_EMIT serverLog(tr("HTTP server '%1' offers no server-to-client stream (GET answered %2).")
                                 .arg(m_options.serverName)
                                 .arg(status));
            return;
        }
        const bool ok = HttpCommon::isSuccess(reply);
        m_getStreamFailures = ok ? 0 : m_getStreamFailures + 1;
        if (m_getStreamFailures < MaxGetStreamFailures && !m_protocolVersion.isEmpty()) {
            const int delay = exchange->parser.retryMs() >= 0 ? exchange->parser.retryMs() : m_options.defaultRetryMs;
            QTimer::singleShot(delay, this, &StreamableHttpTransport::openGetStream);
        }
        return;
    }

    if (!HttpCommon::isSuccess(reply)) {
        const QString what = exchange->resume ? tr("the resumed stream of %1").arg(exchange->method)
                                              : QStringLiteral("POST ") + exchange->method;
        TransportFailure failure = HttpCommon::failureFor(
            reply, exchange->body, exchange->uploaded, exchange->sessionIdSent, m_options.serverName, what);
        if (exchange->resume && failure.kind != FailureKind::SessionExpired) {
            // The original POST was delivered; its answer is what got lost.
            failure.kind = FailureKind::TransportLost;
            failure.requestWritten = true;
        }
        failExchange(exchange, failure);
        return;
    }
    // A stream cut before its first byte is still a stream: it may be resumable.
    exchange->isSse = exchange->isSse || HttpCommon::isEventStream(reply);
    // A 200 whose connection broke mid-body: what arrived is a fragment, not a malformed answer.
    const bool cutShort = reply->error() != QNetworkReply::NoError;
    if (!exchange->isSse && !exchange->body.isEmpty() && !cutShort)
        deliver(exchange, exchange->body);
    if (!exchange->isRequest || exchange->answered)
        return;
    if (exchange->isSse) {
        resumeStream(exchange);
        return;
    }
    if (cutShort) {
        TransportFailure failure = HttpCommon::failureFor(
            reply, {}, true, exchange->sessionIdSent, m_options.serverName, QStringLiteral("POST ") + exchange->method);
        failure.kind = FailureKind::TransportLost;
        failure.requestWritten = true;
        failure.message = tr("HTTP server '%1': the response to %2 was cut off after %3 bytes (%4).")
                              .arg(m_options.serverName, exchange->method)
                              .arg(exchange->received)
                              .arg(reply->errorString());
        failExchange(exchange, failure);
        return;
    }
    TransportFailure failure;
    failure.kind = FailureKind::ProtocolError;
    failure.requestWritten = true;
    failure.httpStatus = HttpCommon::status(reply);
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
        failure.kind = FailureKind::TransportLost;
        failure.requestWritten = true;
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
    QTimer::singleShot(delay, this, [this, exchange] {
        if (m_closing)
            return;
        exchange->resume = true;
        ++m_resumedStreams;
        exchange->parser.reset();
        exchange->body.clear();
        QNetworkRequest request = makeRequest(m_options.url);
        request.setRawHeader("Accept", "text/event-stream");
        request.setRawHeader("Last-Event-ID", exchange->parser.lastEventId());
        if (exchange->recording)
            exchange->wire.append(HttpCommon::startExchange(QStringLiteral("GET"), request, nullptr));
        watch(m_nam.get(request), exchange);
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
    Q_EMIT serverLog(failure.message);
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
    QNetworkRequest request = makeRequest(m_options.url);
    request.setRawHeader("Accept", "text/event-stream");
    watch(m_nam.get(request), exchange);
}

void StreamableHttpTransport::terminateSession()
{
    if (m_sessionId.isEmpty())
        return;
    QNetworkRequest request = makeRequest(m_options.url);
    request.setTransferTimeout(5000);
    QNetworkReply* reply = m_nam.deleteResource(request);
    connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
}

void StreamableHttpTransport::close()
{
    if (m_closing)
        return;
    m_closing = true;
    const auto exchanges = std::exchange(m_exchanges, {});
    for (const auto& exchange : exchanges) {
        if (exchange->reply) {
            exchange->reply->disconnect(this);
            exchange->reply->abort();
            exchange->reply->deleteLater();
        }
    }
    m_getStream.reset();
    if (m_sessionId.isEmpty()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT closed(); });
        return;
    }
    // End the session on the server; 405 is an allowed answer, and nothing it says stops the close.
    QNetworkRequest request = makeRequest(m_options.url);
    request.setTransferTimeout(2000);
    QNetworkReply* reply = m_nam.deleteResource(request);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        Q_EMIT closed();
    });
}

void StreamableHttpTransport::abort()
{
    const auto exchanges = m_exchanges;
    for (const auto& exchange : exchanges) {
        if (exchange->reply)
            exchange->reply->abort();
    }
}

} // namespace mcpscope
