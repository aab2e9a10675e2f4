#include "legacyssetransport.h"

#include "httpcommon.h"
#include "jsonrpc/jsonrpccodec.h"

#include <QDateTime>
#include <QTimer>
#include <QUrlQuery>

namespace mcpscope {

LegacySseTransport::LegacySseTransport(HttpTransportOptions options, QObject* parent)
    : Transport(parent)
    , m_options(std::move(options))
{ }

LegacySseTransport::~LegacySseTransport()
{
    if (m_stream)
        m_stream->disconnect(this);
    for (const InFlight& request : std::as_const(m_inFlight)) {
        if (request.post)
            request.post->disconnect(this);
    }
}

void LegacySseTransport::open()
{
    HttpRequest request = HttpCommon::makeRequest(QByteArrayLiteral("GET"), m_options.url, m_options);
    request.headers.append({ QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream") });
    m_stream = m_http.send(std::move(request));
    connect(m_stream, &HttpReply::readyRead, this, &LegacySseTransport::onStreamData);
    connect(m_stream, &HttpReply::finished, this, &LegacySseTransport::onStreamFinished);
}

QString LegacySseTransport::sessionId() const
{
    if (m_endpoint.isEmpty())
        return {};
    const QString id = QUrlQuery(m_endpoint).queryItemValue(QStringLiteral("sessionId"));
    return id.isEmpty() ? m_endpoint.path() : id;
}

void LegacySseTransport::onStreamData()
{
    if (!m_stream->isSuccess()) {
        if (m_streamBody.size() < 4096)
            m_streamBody.append(m_stream->readAll().left(4096 - m_streamBody.size()));
        else
            m_stream->readAll();
        return;
    }
    const QList<SseEvent> events = m_parser.feed(m_stream->readAll());
    if (m_parser.bufferedBytes() > m_options.maxResponseBytes) {
        TransportFailure failure;
        failure.event = TransportEvent::Oversize;
        failure.message = tr("Legacy SSE server '%1' sent an event larger than the %2-byte limit.")
                              .arg(m_options.serverName)
                              .arg(m_options.maxResponseBytes);
        m_stream->disconnect(this);
        m_stream->abort();
        failAll(failure);
        return;
    }
    for (const SseEvent& event : events) {
        if (event.type == "endpoint") {
            m_endpoint = m_options.url.resolved(QUrl(QString::fromUtf8(event.data.trimmed())));
            if (!m_opened) {
                m_opened = true;
                Q_EMIT opened();
            }
            continue;
        }
        if (event.type != "message")
            continue;
        Q_EMIT traffic(WireDirection::Incoming, event.data);
        DecodeResult decoded = JsonRpcCodec::decode(event.data);
        if (!decoded) {
            Q_EMIT malformedMessage(tr("Legacy SSE server '%1' sent an event that is not a JSON-RPC message: %2")
                                        .arg(m_options.serverName, decoded.error),
                event.data.left(256), decoded.id);
            continue;
        }
        if (decoded.message.isReply()) {
            auto it = m_inFlight.find(idKey(decoded.message.id));
            if (it != m_inFlight.end()) {
                InFlight request = std::move(it.value());
                m_inFlight.erase(it);
                settleWire(request, event.data);
            }
        }
        Q_EMIT messageReceived(decoded.message);
    }
}

void LegacySseTransport::onStreamFinished()
{
    HttpReply* reply = m_stream;
    if (!reply || m_closing)
        return;
    reply->deleteLater();
    if (reply->bytesAvailable() > 0)
        onStreamData();
    TransportFailure failure;
    if (!reply->isSuccess() || reply->error() != HttpClientError::None) {
        failure = HttpCommon::failureFor(
            reply, m_streamBody, sessionId(), m_options.serverName, tr("the event stream GET"));
    } else {
        failure.event = TransportEvent::ConnectionLost;
        failure.message = tr("Legacy SSE server '%1' closed its event stream.").arg(m_options.serverName);
    }
    // Before the endpoint event no request can have gone out on this channel.
    if (!m_opened && failure.event == TransportEvent::ConnectionLost)
        failure.event = TransportEvent::NotSent;
    if (m_killed) {
        failure.event = TransportEvent::Killed;
        failure.message = tr("Legacy SSE server '%1': the event stream was dropped by the kill-transport action.")
                              .arg(m_options.serverName);
    }
    // Whether each request's POST had left is the session's to say (requestWritten); the channel's
    // loss is the evidence for all of them.
    failure.requestWritten = false;
    failAll(failure);
}

void LegacySseTransport::failAll(const TransportFailure& failure)
{
    auto inFlight = std::exchange(m_inFlight, {});
    for (InFlight& request : inFlight) {
        if (request.post) {
            request.post->disconnect(this);
            request.post->abort();
            request.post->deleteLater();
        }
        settleWire(request, {});
    }
    Q_EMIT channelFailed(failure);
}

void LegacySseTransport::settleWire(InFlight& request, const QByteArray& answer)
{
    if (!request.wire)
        return;
    HttpExchange& wire = *request.wire;
    // The server may answer on the stream before its 202 to the POST is through.
    HttpCommon::noteResponse(wire, request.post);
    if (wire.endedAt == 0)
        wire.endedAt = QDateTime::currentMSecsSinceEpoch();
    wire.answerOnStream = cutUtf8(answer, WireBodyCap);
    wire.truncated = wire.truncated || answer.size() > WireBodyCap;
    WireExchange exchange;
    exchange.http = { wire };
    Q_EMIT exchangeRecorded(request.id, exchange);
}

void LegacySseTransport::send(const JsonRpcMessage& message)
{
    const QString what = message.isReply() ? QStringLiteral("response") : message.method;
    if (!m_opened || m_closing || !m_stream) {
        if (message.isRequest()) {
            TransportFailure failure;
            failure.event = TransportEvent::NotSent;
            failure.message = tr("Could not send %1 to legacy SSE server '%2': the event stream is not open.")
                                  .arg(what, m_options.serverName);
            Q_EMIT requestFailed(message.id, failure);
        }
        return;
    }
    HttpRequest request = HttpCommon::makeRequest(QByteArrayLiteral("POST"), m_endpoint, m_options);
    request.body = JsonRpcCodec::encode(message);
    Q_EMIT traffic(WireDirection::Outgoing, request.body);
    request.headers.append({ QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json") });
    std::optional<HttpExchange> wire;
    if (message.isRequest() && recordsExchanges())
        wire = HttpCommon::startExchange(request);
    HttpReply* reply = m_http.send(std::move(request));
    const QJsonValue id = message.id;
    const bool isRequest = message.isRequest();
    const QString sessionIdSent = sessionId();
    if (isRequest) {
        m_inFlight.insert(idKey(id), { id, reply, std::move(wire) });
        reply->whenRequestWritten(this, [this, id] { Q_EMIT requestWritten(id); });
    } else {
        m_notifications.removeAll(nullptr);
        m_notifications.append(reply);
    }
    connect(reply, &HttpReply::finished, this, [this, reply, id, isRequest, what, sessionIdSent] {
        reply->deleteLater();
        if (!isRequest)
            m_notifications.removeAll(reply);
        if (m_closing) {
            closeWhenQuiet();
            return;
        }
        HttpCommon::noteNonce(m_options, reply);
        const QByteArray body = reply->readAll();
        const auto it = isRequest ? m_inFlight.find(idKey(id)) : m_inFlight.end();
        if (it != m_inFlight.end() && it->wire) {
            HttpCommon::noteResponse(*it->wire, reply);
            it->wire->endedAt = QDateTime::currentMSecsSinceEpoch();
            it->wire->appendResponseBody(body);
            if (reply->error() != HttpClientError::None)
                it->wire->error = reply->errorString();
        }
        if (reply->isSuccess() && reply->error() == HttpClientError::None)
            return; // 202: the answer comes on the event stream
        TransportFailure failure
            = HttpCommon::failureFor(reply, body, sessionIdSent, m_options.serverName, QStringLiteral("POST ") + what);
        if (m_killed) {
            failure.event = TransportEvent::Killed;
            failure.message = tr("Legacy SSE server '%1': POST %2 was dropped by the kill-transport action.")
                                  .arg(m_options.serverName, what);
        }
        if (it != m_inFlight.end()) {
            InFlight failed = std::move(it.value());
            m_inFlight.erase(it);
            settleWire(failed, {});
            Q_EMIT requestFailed(id, failure);
        } else {
            Q_EMIT notice(failure.message);
        }
    });
}

void LegacySseTransport::close()
{
    if (m_closing)
        return;
    m_closing = true;
    if (m_stream) {
        m_stream->disconnect(this);
        m_stream->abort();
    }
    for (const InFlight& request : std::as_const(m_inFlight)) {
        if (request.post) {
            request.post->disconnect(this);
            request.post->abort();
        }
    }
    m_inFlight.clear();
    m_notifications.removeAll(nullptr);
    // Whatever notification is still on its way after a moment is given up.
    QTimer::singleShot(m_notifications.isEmpty() ? 0 : 5000, this, [this] {
        m_http.abortAll();
        m_notifications.clear();
        closeWhenQuiet();
    });
}

void LegacySseTransport::closeWhenQuiet()
{
    m_notifications.removeAll(nullptr);
    if (!m_notifications.isEmpty() || std::exchange(m_closed, true))
        return;
    QTimer::singleShot(0, this, [this] { Q_EMIT closed(); });
}

void LegacySseTransport::abort()
{
    m_killed = true;
    m_http.abortAll();
}

} // namespace mcpscope
