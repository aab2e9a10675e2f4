#include "legacyssetransport.h"

#include "httpcommon.h"
#include "jsonrpc/jsonrpccodec.h"

#include <QDateTime>
#include <QNetworkReply>
#include <QTimer>
#include <QUrlQuery>

namespace mcpscope {

LegacySseTransport::LegacySseTransport(HttpTransportOptions options, QObject* parent)
    : Transport(parent)
    , m_options(std::move(options))
{ }

LegacySseTransport::~LegacySseTransport()
{
    if (m_stream) {
        m_stream->disconnect(this);
        m_stream->abort();
    }
}

void LegacySseTransport::open()
{
    QNetworkRequest request(m_options.url);
    HttpCommon::prepare(request, m_options);
    request.setRawHeader("Accept", "text/event-stream");
    m_stream = m_nam.get(request);
    connect(m_stream, &QNetworkReply::readyRead, this, &LegacySseTransport::onStreamData);
    connect(m_stream, &QNetworkReply::finished, this, &LegacySseTransport::onStreamFinished);
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
    if (!HttpCommon::isSuccess(m_stream)) {
        m_streamBody.append(m_stream->readAll().left(4096));
        return;
    }
    const QList<SseEvent> events = m_parser.feed(m_stream->readAll());
    if (m_parser.bufferedBytes() > m_options.maxResponseBytes) {
        TransportFailure failure;
        failure.kind = FailureKind::TransportLost;
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
    QNetworkReply* reply = m_stream;
    if (!reply || m_closing)
        return;
    reply->deleteLater();
    TransportFailure failure;
    if (!HttpCommon::isSuccess(reply) || reply->error() != QNetworkReply::NoError) {
        failure = HttpCommon::failureFor(
            reply, m_streamBody, m_opened, sessionId(), m_options.serverName, tr("the event stream GET"));
    } else {
        failure.kind = FailureKind::TransportLost;
        failure.message = tr("Legacy SSE server '%1' closed its event stream.").arg(m_options.serverName);
    }
    if (!m_opened)
        failure.kind = failure.kind == FailureKind::TransportLost ? FailureKind::NotSent : failure.kind;
    failAll(failure);
}

void LegacySseTransport::failAll(const TransportFailure& failure)
{
    auto inFlight = std::exchange(m_inFlight, {});
    for (InFlight& request : inFlight)
        settleWire(request, {});
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
            failure.kind = FailureKind::NotSent;
            failure.message = tr("Could not send %1 to legacy SSE server '%2': the event stream is not open.")
                                  .arg(what, m_options.serverName);
            Q_EMIT requestFailed(message.id, failure);
        }
        return;
    }
    const QByteArray body = JsonRpcCodec::encode(message);
    Q_EMIT traffic(WireDirection::Outgoing, body);
    QNetworkRequest request(m_endpoint);
    HttpCommon::prepare(request, m_options);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    std::optional<HttpExchange> wire;
    if (message.isRequest() && recordsExchanges())
        wire = HttpCommon::startExchange(QStringLiteral("POST"), request, &body);
    QNetworkReply* reply = m_nam.post(request, body);
    const QJsonValue id = message.id;
    const bool isRequest = message.isRequest();
    const QString sessionIdSent = sessionId();
    if (isRequest)
        m_inFlight.insert(idKey(id), { id, reply, std::move(wire) });
    connect(reply, &QNetworkReply::finished, this, [this, reply, id, isRequest, what, sessionIdSent] {
        reply->deleteLater();
        if (m_closing)
            return;
        const QByteArray body = reply->readAll();
        const auto it = isRequest ? m_inFlight.find(idKey(id)) : m_inFlight.end();
        if (it != m_inFlight.end() && it->wire) {
            HttpCommon::noteResponse(*it->wire, reply);
            it->wire->endedAt = QDateTime::currentMSecsSinceEpoch();
            it->wire->appendResponseBody(body);
            if (reply->error() != QNetworkReply::NoError)
                it->wire->error = reply->errorString();
        }
        if (HttpCommon::isSuccess(reply)) {
            if (isRequest)
                Q_EMIT requestWritten(id);
            return;
        }
        TransportFailure failure
            = HttpCommon::failureFor(reply, body, reply->error() != QNetworkReply::ConnectionRefusedError,
                sessionIdSent, m_options.serverName, QStringLiteral("POST ") + what);
        if (it != m_inFlight.end()) {
            InFlight failed = std::move(it.value());
            m_inFlight.erase(it);
            settleWire(failed, {});
            Q_EMIT requestFailed(id, failure);
        } else {
            Q_EMIT serverLog(failure.message);
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
        m_stream->deleteLater();
    }
    QTimer::singleShot(0, this, [this] { Q_EMIT closed(); });
}

void LegacySseTransport::abort()
{
    if (m_stream)
        m_stream->abort();
}

} // namespace mcpscope
