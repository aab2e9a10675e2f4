#include "faultproxyconnection.h"

#include "jsonrpc/jsonrpccodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkProxy>
#include <QTimer>

#if QT_CONFIG(ssl)
#include <QSslSocket>
#endif

namespace mcpscope {

using FaultProxyWire::legacyStreamKey;
using FaultProxyWire::sessionNotFound;
using HttpWire::HeaderList;
using HttpWire::MessageReader;

namespace {
constexpr qint64 MaxRequestBodyBytes = 64LL * 1024 * 1024;
const QByteArray FaultHeader("X-McpScope-Fault");
const QString AttemptMetaKey = QStringLiteral("io.github.mcpscope/attempt");

bool isLoopbackHost(const QString& host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}
} // namespace

QString FaultProxyWire::legacyStreamKey(const QByteArray& targetOrUrl)
{
    const QUrl url = QUrl::fromEncoded(targetOrUrl.trimmed());
    QString key = url.path(QUrl::FullyEncoded);
    if (url.hasQuery())
        key += u'?' + url.query(QUrl::FullyEncoded);
    return key;
}

FaultProxyConnection::FaultProxyConnection(FaultProxy* proxy, QTcpSocket* client)
    : QObject(proxy)
    , m_proxy(proxy)
    , m_client(client)
{
    client->setParent(this);
    // Small answers must not wait for a delayed ACK (about 40 ms a reply otherwise).
    client->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(client, &QTcpSocket::readyRead, this, &FaultProxyConnection::onClientReadyRead);
    connect(client, &QTcpSocket::disconnected, this, [this] {
        dropUpstream();
        m_busy = true; // nothing more is read or answered
        deleteLater();
    });
    if (client->bytesAvailable() > 0)
        QTimer::singleShot(0, this, &FaultProxyConnection::onClientReadyRead);
}

FaultProxyConnection::~FaultProxyConnection()
{
    m_client->disconnect(this);
    dropUpstream();
}

void FaultProxyConnection::shutdown()
{
    m_busy = true;
    m_responseDone = true;
    dropUpstream();
    m_client->disconnect(this);
    m_client->abort();
    deleteLater();
}

void FaultProxyConnection::onClientReadyRead()
{
    m_input.append(m_client->readAll());
    processInput();
}

void FaultProxyConnection::processInput()
{
    if (m_busy)
        return;
    if (!m_request) {
        m_request = std::make_unique<MessageReader>(MessageReader::Kind::Request);
        m_requestBody.clear();
        m_continueSent = false;
        m_responseDone = false;
    }
    if (!m_input.isEmpty() && !m_request->feed(std::exchange(m_input, {}))) {
        m_busy = true;
        m_keepAlive = false;
        respond(400, { { "Content-Type", "text/plain" } },
            FaultProxy::tr("Bad request: %1\n").arg(m_request->error()).toUtf8(), true);
        return;
    }
    m_requestBody.append(m_request->takeBody());
    if (m_requestBody.size() > MaxRequestBodyBytes) {
        m_busy = true;
        respond(413, { { "Content-Type", "text/plain" } }, "Request body too large\n", true);
        return;
    }
    if (m_request->headComplete() && !m_request->complete() && !m_continueSent
        && HttpWire::header(m_request->headers, "Expect").compare("100-continue", Qt::CaseInsensitive) == 0) {
        m_continueSent = true;
        m_client->write("HTTP/1.1 100 Continue\r\n\r\n");
    }
    if (!m_request->complete())
        return;
    m_input = m_request->takeRemainder() + m_input;
    m_busy = true;
    handleRequest();
}

void FaultProxyConnection::handleRequest()
{
    ++m_generation;
    m_http11 = m_request->version == "HTTP/1.1";
    m_keepAlive = m_http11 && !HttpWire::headerHasToken(m_request->headers, "Connection", "close");
    m_rpcMethod.clear();
    m_rpcId = QJsonValue(QJsonValue::Undefined);
    m_fault.reset();
    m_faultDone = false;
    m_responseDone = false;
    m_withholdKey.clear();
    m_streamAnswerSeen = false;
    m_awaitingStreamAnswer = false;
    m_watchStream = false;

    // A web page whose own name resolves to 127.0.0.1 (DNS rebinding) must not reach the server behind
    // us: it shows in a Host that is not ours. The upstream gets its own Host either way.
    if (!FaultProxy::isOwnHost(HttpWire::header(m_request->headers, "Host"), m_proxy->port())) {
        m_keepAlive = false;
        respond(403, { { "Content-Type", "text/plain" } },
            FaultProxy::tr("The fault proxy answers only requests for Host 127.0.0.1:%1 or localhost:%1, not '%2'.\n")
                .arg(m_proxy->port())
                .arg(QString::fromUtf8(HttpWire::header(m_request->headers, "Host")))
                .toUtf8(),
            true);
        return;
    }

    QString callId;
    int attempt = 0;
    if (m_request->method == "POST") {
        const DecodeResult decoded = JsonRpcCodec::decode(m_requestBody);
        if (decoded && (decoded.message.isRequest() || decoded.message.isNotification())) {
            Q_EMIT m_proxy->requestSeen(decoded.message.method,
                decoded.message.isRequest() ? decoded.message.id : QJsonValue(QJsonValue::Undefined));
            if (decoded.message.isRequest()) {
                m_rpcMethod = decoded.message.method;
                m_rpcId = decoded.message.id;
                const bool isToolCall = m_rpcMethod == QLatin1String("tools/call");
                const QString tool
                    = isToolCall ? decoded.message.params.value(QLatin1String("name")).toString() : QString();
                if (isToolCall) {
                    const QJsonObject identity = decoded.message.params.value(QLatin1String("_meta"))
                                                     .toObject()
                                                     .value(AttemptMetaKey)
                                                     .toObject();
                    callId = identity.value(QLatin1String("callId")).toString();
                    attempt = identity.value(QLatin1String("attempt")).toInt();
                    // Checked before faults are matched: a re-sent copy must not use up a fault meant for a
                    // real attempt.
                    if (!callId.isEmpty() && m_proxy->duplicateCheck() && m_proxy->alreadyForwarded(callId, attempt))
                        return refuseDuplicate(callId, attempt);
                }
                m_fault = m_proxy->takeFault(m_rpcMethod, tool);
            }
        }
    }
    const bool legacyRequest = !HttpWire::header(m_request->headers, "Mcp-Session-Id").isEmpty()
        || m_rpcMethod == QLatin1String("initialize");
    const std::optional<FaultProxyWire::Refusal> refused
        = m_fault ? FaultProxyWire::refusal(m_fault->kind, m_rpcId, m_proxy->port(), legacyRequest) : std::nullopt;
    if (!refused && !callId.isEmpty())
        m_proxy->noteForwarded(callId, attempt);
    if (!m_fault)
        return forward(Mode::Pass);
    if (refused) {
        respondFault(m_fault->kind, refused->status, refused->headers, refused->body);
        return;
    }

    switch (m_fault->kind) {
    case FaultProxy::FaultKind::ExpireAfter:
    case FaultProxy::FaultKind::CutAfter:
    case FaultProxy::FaultKind::DropStream:
    case FaultProxy::FaultKind::DropResponseStream:
    case FaultProxy::FaultKind::CloseBeforeHead:
    case FaultProxy::FaultKind::RstBeforeHead:
        // A legacy server answers this POST with 202 and the response on the session's event stream,
        // which must not get it either. Registered before forwarding: the stream may carry the answer
        // before the 202 is through.
        m_withholdKey = legacyStreamKey(m_request->target) + u'\n' + idKey(m_rpcId).toString();
        m_proxy->withholdResponse(m_withholdKey, { this, m_generation, *m_fault, m_rpcMethod, m_rpcId });
        break;
    default:
        break;
    }

    switch (m_fault->kind) {
    case FaultProxy::FaultKind::ExpireBefore:
    case FaultProxy::FaultKind::Auth401:
    case FaultProxy::FaultKind::UnsupportedVersion:
    case FaultProxy::FaultKind::HeaderMismatch:
    case FaultProxy::FaultKind::EraFlip:
        return; // answered above, without forwarding
    case FaultProxy::FaultKind::Delay: {
        fire();
        const quint64 generation = m_generation;
        QTimer::singleShot(std::max(0, m_fault->delayMs), this, [this, generation] {
            if (live(generation))
                forward(Mode::Pass);
        });
        return;
    }
    case FaultProxy::FaultKind::ExpireAfter:
        return forward(Mode::ExpireAfter);
    case FaultProxy::FaultKind::CutAfter:
        return forward(Mode::CutAfter);
    case FaultProxy::FaultKind::DropStream:
    case FaultProxy::FaultKind::DropResponseStream:
        return forward(Mode::DropStream);
    case FaultProxy::FaultKind::CloseBeforeHead:
        return forward(Mode::CloseBeforeHead);
    case FaultProxy::FaultKind::RstBeforeHead:
        return forward(Mode::RstBeforeHead);
    }
}

void FaultProxyConnection::refuseDuplicate(const QString& callId, int attempt)
{
    const QJsonObject body { { QStringLiteral("error"), QStringLiteral("duplicate attempt") },
        { QStringLiteral("message"),
            FaultProxy::tr("McpScope fault proxy: attempt %1 of call %2 (%3) was already forwarded to %4; this "
                           "copy was refused and not sent upstream")
                .arg(attempt)
                .arg(callId, m_rpcMethod, m_proxy->upstream().toString()) },
        { QStringLiteral("callId"), callId }, { QStringLiteral("attempt"), attempt },
        { QStringLiteral("method"), m_rpcMethod }, { QStringLiteral("id"), m_rpcId } };
    const QJsonValue requestId = m_rpcId;
    respond(409, { { "Content-Type", "application/json" }, { FaultHeader, "duplicate" } },
        QJsonDocument(body).toJson(QJsonDocument::Compact));
    m_proxy->noteDuplicate(callId, attempt, requestId);
}

void FaultProxyConnection::forward(Mode mode)
{
    m_mode = mode;
    m_response = std::make_unique<MessageReader>(MessageReader::Kind::Response);
    if (m_request->method == "HEAD")
        m_response->setNoBody();
    m_headHandled = false;
    m_headSent = false;
    m_isSse = false;
    m_held.clear();
    m_scanPos = 0;
    m_lineStart = 0;
    m_sse = SseParser();
    m_watchStream = false;
    m_streamKey.clear();

    const QUrl upstream = m_proxy->upstream();
    const bool tls = upstream.scheme() == QLatin1String("https");
    QTcpSocket* socket = nullptr;
#if QT_CONFIG(ssl)
    if (tls)
        socket = new QSslSocket(this);
#endif
    if (!socket)
        socket = new QTcpSocket(this);
    if (isLoopbackHost(upstream.host()))
        socket->setProxy(QNetworkProxy::NoProxy);
    m_upstream = socket;
    connect(socket, &QTcpSocket::readyRead, this, &FaultProxyConnection::onUpstreamReadyRead);
    connect(socket, &QTcpSocket::disconnected, this, &FaultProxyConnection::onUpstreamDisconnected);
    connect(socket, &QTcpSocket::errorOccurred, this, &FaultProxyConnection::onUpstreamError);
    const quint16 port = quint16(upstream.port(tls ? 443 : 80));
#if QT_CONFIG(ssl)
    if (tls) {
        auto* ssl = static_cast<QSslSocket*>(socket);
        connect(ssl, &QSslSocket::encrypted, this, &FaultProxyConnection::writeUpstreamRequest);
        ssl->connectToHostEncrypted(upstream.host(), port);
        return;
    }
#endif
    if (tls) {
        upstreamBroken(FaultProxy::tr("this build of Qt has no TLS support"));
        return;
    }
    connect(socket, &QTcpSocket::connected, this, &FaultProxyConnection::writeUpstreamRequest);
    socket->connectToHost(upstream.host(), port);
}

void FaultProxyConnection::writeUpstreamRequest()
{
    if (!m_upstream)
        return;
    QByteArray target = m_request->target;
    if (!target.startsWith('/') && target != "*") {
        // An absolute-form target (a client that treats us as a forward proxy): keep path and query only.
        const QUrl absolute = QUrl::fromEncoded(target);
        target = absolute.path(QUrl::FullyEncoded).toLatin1();
        if (target.isEmpty())
            target = "/";
        if (absolute.hasQuery())
            target += '?' + absolute.query(QUrl::FullyEncoded).toLatin1();
    }
    QByteArray head = m_request->method + ' ' + target + " HTTP/1.1\r\nHost: "
        + m_proxy->upstream().adjusted(QUrl::RemoveUserInfo).authority(QUrl::FullyEncoded).toLatin1() + "\r\n";
    for (const auto& [name, value] : HttpWire::endToEndHeaders(m_request->headers)) {
        if (name.compare("Host", Qt::CaseInsensitive) == 0 || name.compare("Expect", Qt::CaseInsensitive) == 0)
            continue;
        head += name + ": " + value + "\r\n";
    }
    if (!m_requestBody.isEmpty() || m_request->method == "POST" || m_request->method == "PUT"
        || m_request->method == "PATCH")
        head += "Content-Length: " + QByteArray::number(m_requestBody.size()) + "\r\n";
    // One upstream connection per request: the upstream's end of the body is then always visible.
    head += "Connection: close\r\n\r\n";
    m_upstream->write(head + m_requestBody);
    ++m_proxy->m_forwarded;
}

void FaultProxyConnection::onUpstreamReadyRead()
{
    if (!m_upstream || !m_response)
        return;
    const quint64 generation = m_generation;
    if (!m_response->feed(m_upstream->readAll())) {
        upstreamBroken(FaultProxy::tr("malformed response: %1").arg(m_response->error()));
        return;
    }
    if (m_response->headComplete() && !m_headHandled) {
        m_headHandled = true;
        onUpstreamHead();
        if (!live(generation) || !m_upstream)
            return;
    }
    const QByteArray body = m_response->takeBody();
    if (!body.isEmpty()) {
        onUpstreamBody(body);
        if (!live(generation) || !m_upstream)
            return;
    }
    if (m_response->complete())
        onUpstreamComplete();
}

void FaultProxyConnection::onUpstreamDisconnected()
{
    if (!m_upstream || !m_response)
        return;
    if (m_upstream->bytesAvailable() > 0) {
        const quint64 generation = m_generation;
        onUpstreamReadyRead();
        if (!live(generation) || !m_upstream)
            return;
    }
    if (m_response->closeReceived()) {
        const QByteArray body = m_response->takeBody();
        const quint64 generation = m_generation;
        if (!body.isEmpty())
            onUpstreamBody(body);
        if (live(generation) && m_upstream)
            onUpstreamComplete();
        return;
    }
    upstreamBroken(FaultProxy::tr("the upstream closed the connection before the response was complete"));
}

void FaultProxyConnection::onUpstreamError(QAbstractSocket::SocketError error)
{
    // A close after the request went out is handled by disconnected(), which knows whether the body was complete.
    if (!m_upstream || error == QAbstractSocket::RemoteHostClosedError)
        return;
    upstreamBroken(m_upstream->errorString());
}

void FaultProxyConnection::upstreamBroken(const QString& reason)
{
    dropUpstream();
    if (!m_headSent) {
        m_keepAlive = false;
        respond(502, { { "Content-Type", "text/plain" } },
            FaultProxy::tr("McpScope fault proxy: upstream %1 failed: %2\n")
                .arg(m_proxy->upstream().toString(), reason)
                .toUtf8(),
            true);
        return;
    }
    // The client sees the same truncation the upstream produced.
    cutClient();
}

void FaultProxyConnection::onUpstreamHead()
{
    m_isSse = HttpWire::header(m_response->headers, "Content-Type").trimmed().toLower().startsWith("text/event-stream");
    const HeaderList headers = HttpWire::endToEndHeaders(m_response->headers);
    const Framing streamed = m_http11 ? Framing::Chunked : Framing::Close;
    if (!m_withholdKey.isEmpty() && m_response->status != 202) {
        // Not a legacy acknowledgement: the answer is in this response, not on an event stream.
        m_proxy->releaseWithheld(m_withholdKey);
        m_withholdKey.clear();
    }
    if (!m_withholdKey.isEmpty() && (m_mode == Mode::CutAfter || m_mode == Mode::DropStream)) {
        // Legacy: the answer travels on the session's event stream, so that is what these faults break
        // (takeWithheld); the acknowledgement goes through as it came.
        m_mode = Mode::Pass;
        m_withholdKey.clear();
    }
    switch (m_mode) {
    case Mode::Pass:
        switch (m_response->framing()) {
        case MessageReader::Framing::None: {
            HeaderList withLength = headers;
            const QByteArray length = HttpWire::header(m_response->headers, "Content-Length");
            if (!length.isEmpty())
                withLength.append({ "Content-Length", length });
            sendHead(m_response->status, m_response->reason, withLength, Framing::None);
            finishResponse();
            return;
        }
        case MessageReader::Framing::Length:
            sendHead(m_response->status, m_response->reason, headers, Framing::Length, m_response->contentLength());
            return;
        case MessageReader::Framing::Chunked:
        case MessageReader::Framing::UntilClose:
            // An event stream of its own (a legacy session's, or a standalone one) is relayed event by
            // event, so a withheld answer can be taken out whole.
            m_watchStream = m_isSse && m_request->method == "GET";
            sendHead(m_response->status, m_response->reason, headers, streamed);
            return;
        }
        return;
    case Mode::ExpireAfter:
    case Mode::CloseBeforeHead:
    case Mode::RstBeforeHead:
        return;
    case Mode::CutAfter:
    case Mode::DropStream:
        if (m_isSse && m_response->framing() != MessageReader::Framing::None)
            sendHead(m_response->status, m_response->reason, headers, streamed);
        return;
    }
}

void FaultProxyConnection::onUpstreamBody(const QByteArray& bytes)
{
    switch (m_mode) {
    case Mode::Pass:
        if (m_watchStream) {
            m_held.append(bytes);
            relayStreamEvents(false);
            return;
        }
        sendBody(bytes);
        return;
    case Mode::ExpireAfter:
    case Mode::CloseBeforeHead:
    case Mode::RstBeforeHead:
        if (m_isSse) {
            m_held.append(bytes);
            relaySseBlocks(false);
        }
        return;
    case Mode::CutAfter:
    case Mode::DropStream:
        m_held.append(bytes);
        if (m_isSse)
            relaySseBlocks(false);
        return;
    }
}

void FaultProxyConnection::sendHead(
    int status, const QByteArray& reason, const HeaderList& headers, Framing framing, qint64 contentLength)
{
    m_framing = framing;
    m_headSent = true;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' '
        + (reason.isEmpty() ? HttpWire::reasonPhrase(status) : reason) + "\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    if (framing == Framing::Length)
        head += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
    else if (framing == Framing::Chunked)
        head += "Transfer-Encoding: chunked\r\n";
    if (framing == Framing::Close)
        m_keepAlive = false;
    if (!m_keepAlive)
        head += "Connection: close\r\n";
    head += "\r\n";
    m_client->write(head);
}

void FaultProxyConnection::sendBody(QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_framing == Framing::Chunked)
        m_client->write(HttpWire::chunk(bytes));
    else
        m_client->write(bytes.data(), bytes.size());
}

void FaultProxyConnection::finishResponse(bool close)
{
    if (m_responseDone)
        return;
    m_responseDone = true;
    if (m_framing == Framing::Chunked)
        m_client->write(HttpWire::chunk({}));
    dropUpstream();
    if (close || !m_keepAlive) {
        m_busy = true;
        m_client->disconnectFromHost();
        return;
    }
    // Ready for the next request on this connection.
    ++m_generation;
    m_busy = false;
    m_request.reset();
    m_response.reset();
    if (!m_input.isEmpty())
        QTimer::singleShot(0, this, &FaultProxyConnection::processInput);
}

void FaultProxyConnection::respond(int status, const HeaderList& headers, const QByteArray& body, bool close)
{
    if (close)
        m_keepAlive = false;
    sendHead(status, {}, headers, Framing::Length, body.size());
    sendBody(body);
    finishResponse(close);
}

void FaultProxyConnection::respondFault(
    FaultProxy::FaultKind kind, int status, HeaderList headers, const QByteArray& body)
{
    headers.append({ FaultHeader, FaultProxy::kindName(kind).toLatin1() });
    respond(status, headers, body);
    fire();
}

void FaultProxyConnection::cutClient()
{
    dropUpstream();
    m_busy = true;
    m_responseDone = true;
    // What was written still goes out; then the connection ends mid-response.
    m_client->disconnectFromHost();
}

void FaultProxyConnection::dropUpstream()
{
    if (!m_upstream)
        return;
    QTcpSocket* socket = m_upstream;
    m_upstream.clear();
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
}

void FaultProxyConnection::fire()
{
    if (!m_fault || m_faultDone)
        return;
    m_faultDone = true;
    m_proxy->noteFired(*m_fault, m_rpcMethod, m_rpcId);
}
} // namespace mcpscope
