#include "faultproxy.h"

#include "jsonrpc/jsonrpccodec.h"
#include "socketreset.h"
#include "transport/httpwire.h"
#include "transport/sseparser.h"

#include <QJsonDocument>
#include <QNetworkProxy>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#if QT_CONFIG(ssl)
#include <QSslSocket>
#endif

#include <memory>

namespace mcpscope {

using HttpWire::HeaderList;
using HttpWire::MessageReader;

namespace {
constexpr qint64 MaxRequestBodyBytes = 64LL * 1024 * 1024;
/// How long a fault waits for a legacy server's answer on its event stream after the POST's 202.
constexpr int StreamAnswerWaitMs = 30000;
const QByteArray FaultHeader("X-McpScope-Fault");
const QString AttemptMetaKey = QStringLiteral("io.github.mcpscope/attempt");

const struct
{
    FaultProxy::FaultKind kind;
    const char* name;
} KindNames[] = {
    { FaultProxy::FaultKind::ExpireBefore, "expire-before" },
    { FaultProxy::FaultKind::ExpireAfter, "expire-after" },
    { FaultProxy::FaultKind::CutAfter, "cut-after" },
    { FaultProxy::FaultKind::Auth401, "auth-401" },
    { FaultProxy::FaultKind::Delay, "delay" },
    { FaultProxy::FaultKind::DropStream, "drop-stream" },
    { FaultProxy::FaultKind::CloseBeforeHead, "close-before-head" },
    { FaultProxy::FaultKind::RstBeforeHead, "rst-before-head" },
};

QByteArray sessionNotFound(const QJsonValue& id)
{
    // What the TypeScript SDK server answers for a session it does not know.
    const QJsonObject error { { QStringLiteral("jsonrpc"), QStringLiteral("2.0") },
        { QStringLiteral("error"),
            QJsonObject { { QStringLiteral("code"), -32001 },
                { QStringLiteral("message"), QStringLiteral("Session not found") } } },
        { QStringLiteral("id"), id.isUndefined() ? QJsonValue(QJsonValue::Null) : id } };
    return QJsonDocument(error).toJson(QJsonDocument::Compact);
}

/// What ties a legacy POST to its event stream: the path and query of the POST endpoint, which carries the
/// session (the SDK's "/messages?sessionId=…"). Works for a target and for an endpoint event's URL alike.
QString legacyStreamKey(const QByteArray& targetOrUrl)
{
    const QUrl url = QUrl::fromEncoded(targetOrUrl.trimmed());
    QString key = url.path(QUrl::FullyEncoded);
    if (url.hasQuery())
        key += u'?' + url.query(QUrl::FullyEncoded);
    return key;
}

QString attemptKey(const QString& callId, int attempt)
{
    return callId + u'\n' + QString::number(attempt);
}

bool isLoopbackHost(const QString& host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}
} // namespace

/// One client connection: reads its requests one after another and answers each through its own
/// upstream connection, applying the fault the request matched, if any.
class FaultProxyConnection : public QObject
{
    Q_OBJECT
public:
    FaultProxyConnection(FaultProxy* proxy, QTcpSocket* client);
    ~FaultProxyConnection() override;
    /// Drops both connections now (the proxy is closing).
    void shutdown();
    /// The event stream of this request's legacy session carried its (withheld) answer.
    void onWithheldAnswerSeen(quint64 generation);

private:
    /// How the upstream answer travels to the client.
    enum class Mode { Pass, ExpireAfter, CutAfter, DropStream, CloseBeforeHead, RstBeforeHead };
    /// The framing of the response the client is receiving.
    enum class Framing { None, Length, Chunked, Close };

    void onClientReadyRead();
    void processInput();
    void handleRequest();
    void forward(Mode mode);
    void writeUpstreamRequest();
    void onUpstreamReadyRead();
    void onUpstreamDisconnected();
    void onUpstreamError(QAbstractSocket::SocketError error);
    void onUpstreamHead();
    void onUpstreamBody(const QByteArray& bytes);
    void onUpstreamComplete();
    void completeFault();
    void upstreamBroken(const QString& reason);
    void relaySseBlocks(bool atEnd);
    /// A passed-through GET event stream: relayed event by event, watched for a legacy endpoint and for
    /// answers a fault withholds.
    void relayStreamEvents(bool atEnd);
    /// Answers 409 to a duplicate attempt without forwarding it.
    void refuseDuplicate(const QString& callId, int attempt);
    /// close-before-head and rst-before-head: the connection ends with no byte of the response.
    void endWithoutHead();
    /// Whether this mode keeps every byte of the answer back until the fault decides what the client gets.
    bool holdsHead() const
    {
        return m_mode == Mode::ExpireAfter || m_mode == Mode::CloseBeforeHead || m_mode == Mode::RstBeforeHead;
    }
    bool isResponseEvent(const QByteArray& block);
    QByteArray takeSseBlock(bool atEnd);

    void sendHead(
        int status, const QByteArray& reason, const HeaderList& headers, Framing framing, qint64 contentLength = -1);
    void sendBody(QByteArrayView bytes);
    void finishResponse(bool close = false);
    void respond(int status, const HeaderList& headers, const QByteArray& body, bool close = false);
    void respondFault(FaultProxy::FaultKind kind, int status, HeaderList headers, const QByteArray& body);
    void cutClient();
    void dropUpstream();
    void fire();
    /// Whether the exchange that was current at generation still awaits its response's end.
    bool live(quint64 generation) const { return generation == m_generation && m_busy && !m_responseDone; }

    FaultProxy* m_proxy;
    QTcpSocket* m_client;
    QByteArray m_input;
    std::unique_ptr<MessageReader> m_request;
    QByteArray m_requestBody;
    bool m_busy = false;
    bool m_continueSent = false;
    bool m_keepAlive = true;
    bool m_http11 = true;
    quint64 m_generation = 0;

    // The exchange in progress.
    QString m_rpcMethod;
    QJsonValue m_rpcId;
    std::optional<FaultProxy::Fault> m_fault;
    Mode m_mode = Mode::Pass;
    QPointer<QTcpSocket> m_upstream;
    std::unique_ptr<MessageReader> m_response;
    bool m_headHandled = false;
    bool m_headSent = false;
    bool m_isSse = false;
    bool m_faultDone = false;
    bool m_responseDone = false;
    bool m_watchStream = false; ///< a passed-through GET event stream
    QString m_streamKey; ///< that stream's legacy endpoint key, once its endpoint event went by
    QString m_withholdKey; ///< this POST's answer, kept off its legacy event stream
    bool m_streamAnswerSeen = false;
    bool m_awaitingStreamAnswer = false;
    Framing m_framing = Framing::None;
    QByteArray m_held;
    qsizetype m_scanPos = 0;
    qsizetype m_lineStart = 0;
    SseParser m_sse;
};

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
    const bool forwards = !m_fault
        || (m_fault->kind != FaultProxy::FaultKind::ExpireBefore && m_fault->kind != FaultProxy::FaultKind::Auth401);
    if (forwards && !callId.isEmpty())
        m_proxy->noteForwarded(callId, attempt);
    if (!m_fault)
        return forward(Mode::Pass);

    switch (m_fault->kind) {
    case FaultProxy::FaultKind::ExpireAfter:
    case FaultProxy::FaultKind::CutAfter:
    case FaultProxy::FaultKind::DropStream:
    case FaultProxy::FaultKind::CloseBeforeHead:
    case FaultProxy::FaultKind::RstBeforeHead:
        // A legacy server answers this POST with 202 and the response on the session's event stream,
        // which must not get it either. Registered before forwarding: the stream may carry the answer
        // before the 202 is through.
        m_withholdKey = legacyStreamKey(m_request->target) + u'\n' + idKey(m_rpcId);
        m_proxy->withholdResponse(m_withholdKey, { this, m_generation, *m_fault, m_rpcMethod, m_rpcId });
        break;
    default:
        break;
    }

    switch (m_fault->kind) {
    case FaultProxy::FaultKind::ExpireBefore:
        respondFault(m_fault->kind, 404, { { "Content-Type", "application/json" } }, sessionNotFound(m_rpcId));
        return;
    case FaultProxy::FaultKind::Auth401: {
        const QByteArray challenge = "Bearer resource_metadata=\"http://127.0.0.1:"
            + QByteArray::number(m_proxy->port()) + "/.well-known/oauth-protected-resource\"";
        const QJsonObject error { { QStringLiteral("error"), QStringLiteral("invalid_token") },
            { QStringLiteral("error_description"),
                QStringLiteral("Authorization required (injected by the McpScope fault proxy)") } };
        respondFault(m_fault->kind, 401, { { "Content-Type", "application/json" }, { "WWW-Authenticate", challenge } },
            QJsonDocument(error).toJson(QJsonDocument::Compact));
        return;
    }
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

QByteArray FaultProxyConnection::takeSseBlock(bool atEnd)
{
    // An event ends at an empty line; lines end in CRLF, LF or CR. A CR at the end of the buffer may be
    // the first half of a CRLF, so it is only judged once the next byte (or the end of the stream) is there.
    const qsizetype size = m_held.size();
    qsizetype i = m_scanPos;
    while (i < size) {
        const char c = m_held.at(i);
        if (c != '\n' && c != '\r') {
            ++i;
            continue;
        }
        if (c == '\r' && i + 1 == size && !atEnd)
            break;
        qsizetype end = i + 1;
        if (c == '\r' && end < size && m_held.at(end) == '\n')
            ++end;
        if (i == m_lineStart) {
            const QByteArray block = m_held.left(end);
            m_held.remove(0, end);
            m_scanPos = 0;
            m_lineStart = 0;
            return block;
        }
        m_lineStart = end;
        i = end;
    }
    m_scanPos = i;
    if (atEnd && !m_held.isEmpty()) {
        m_scanPos = 0;
        m_lineStart = 0;
        return std::exchange(m_held, {});
    }
    return {};
}

bool FaultProxyConnection::isResponseEvent(const QByteArray& block)
{
    const QList<SseEvent> events = m_sse.feed(block);
    for (const SseEvent& event : events) {
        if (event.type != "message")
            continue;
        const DecodeResult decoded = JsonRpcCodec::decode(event.data);
        if (decoded && decoded.message.isReply() && idKey(decoded.message.id) == idKey(m_rpcId))
            return true;
    }
    return false;
}

void FaultProxyConnection::relaySseBlocks(bool atEnd)
{
    const quint64 generation = m_generation;
    for (;;) {
        const QByteArray block = takeSseBlock(atEnd);
        if (block.isEmpty())
            return;
        if (!isResponseEvent(block)) {
            if (!holdsHead())
                sendBody(block);
            continue;
        }
        switch (m_mode) {
        case Mode::Pass:
            sendBody(block);
            continue;
        case Mode::ExpireAfter:
            // The server has answered: the client gets a 404 instead.
            dropUpstream();
            respondFault(FaultProxy::FaultKind::ExpireAfter, 404, { { "Content-Type", "application/json" } },
                sessionNotFound(m_rpcId));
            return;
        case Mode::CutAfter:
            sendBody(QByteArrayView(block).first(block.size() / 2));
            fire();
            if (live(generation))
                cutClient();
            return;
        case Mode::DropStream:
            dropUpstream();
            fire();
            if (live(generation))
                finishResponse(true);
            return;
        case Mode::CloseBeforeHead:
        case Mode::RstBeforeHead:
            endWithoutHead();
            return;
        }
    }
}

void FaultProxyConnection::relayStreamEvents(bool atEnd)
{
    for (;;) {
        QByteArray block = takeSseBlock(atEnd);
        if (block.isEmpty())
            return;
        bool withheld = false;
        const QList<SseEvent> events = m_sse.feed(block);
        for (const SseEvent& event : events) {
            if (event.type == "endpoint") {
                const QByteArray endpoint = event.data.trimmed();
                const QUrl url = QUrl::fromEncoded(endpoint);
                const QUrl upstream = m_proxy->upstream();
                if (!url.isRelative() && url.host() == upstream.host()
                    && url.port(url.scheme() == QLatin1String("https") ? 443 : 80)
                        == upstream.port(upstream.scheme() == QLatin1String("https") ? 443 : 80)) {
                    // An absolute endpoint on the upstream would take the client's POSTs past the proxy.
                    QUrl proxied = url;
                    proxied.setScheme(QStringLiteral("http"));
                    proxied.setHost(QStringLiteral("127.0.0.1"));
                    proxied.setPort(m_proxy->port());
                    block.replace(endpoint, proxied.toEncoded());
                }
                m_streamKey = legacyStreamKey(endpoint);
                continue;
            }
            if (event.type != "message" || m_streamKey.isEmpty())
                continue;
            const DecodeResult decoded = JsonRpcCodec::decode(event.data);
            if (!decoded || !decoded.message.isReply())
                continue;
            const auto taken = m_proxy->takeWithheld(m_streamKey + u'\n' + idKey(decoded.message.id));
            if (!taken)
                continue;
            withheld = true;
            const FaultProxy::FaultKind kind = taken->fault.kind;
            if (kind != FaultProxy::FaultKind::CutAfter && kind != FaultProxy::FaultKind::DropStream)
                continue;
            // The session's stream breaks where the answer would be: halfway through it, or cleanly before it.
            if (kind == FaultProxy::FaultKind::CutAfter)
                sendBody(QByteArrayView(block).first(block.size() / 2));
            m_proxy->noteFired(taken->fault, taken->method, taken->requestId);
            if (kind == FaultProxy::FaultKind::CutAfter)
                cutClient();
            else
                finishResponse(true);
            return;
        }
        if (!withheld)
            sendBody(block);
    }
}

void FaultProxyConnection::onUpstreamComplete()
{
    const quint64 generation = m_generation;
    dropUpstream();
    if (m_mode == Mode::Pass) {
        if (m_watchStream) {
            relayStreamEvents(true);
            if (!live(generation))
                return;
        }
        finishResponse();
        return;
    }
    if (!m_withholdKey.isEmpty() && !m_streamAnswerSeen) {
        // A legacy server has only accepted the request; it has run it once its answer is on the event
        // stream. The fault waits for that (bounded, in case the stream does not pass through the proxy).
        m_awaitingStreamAnswer = true;
        QTimer::singleShot(StreamAnswerWaitMs, this, [this, generation] {
            if (live(generation) && std::exchange(m_awaitingStreamAnswer, false))
                completeFault();
        });
        return;
    }
    completeFault();
}

void FaultProxyConnection::onWithheldAnswerSeen(quint64 generation)
{
    if (generation != m_generation)
        return; // a later exchange on this connection
    m_streamAnswerSeen = true;
    if (m_busy && !m_responseDone && std::exchange(m_awaitingStreamAnswer, false))
        completeFault();
}

void FaultProxyConnection::endWithoutHead()
{
    const quint64 generation = m_generation;
    const bool reset = m_mode == Mode::RstBeforeHead;
    dropUpstream();
    fire();
    if (!live(generation))
        return;
    m_busy = true;
    m_responseDone = true;
    if (reset) {
        resetConnection(m_client);
        return;
    }
    m_client->disconnectFromHost();
}

void FaultProxyConnection::completeFault()
{
    const quint64 generation = m_generation;
    switch (m_mode) {
    case Mode::Pass:
        finishResponse();
        return;
    case Mode::CloseBeforeHead:
    case Mode::RstBeforeHead:
        endWithoutHead();
        return;
    case Mode::ExpireAfter:
        respondFault(FaultProxy::FaultKind::ExpireAfter, 404, { { "Content-Type", "application/json" } },
            sessionNotFound(m_rpcId));
        return;
    case Mode::CutAfter:
        if (m_isSse && m_headSent) {
            relaySseBlocks(true);
            if (!live(generation))
                return;
            // The stream ended without the response: everything went through, then the end is cut off.
            fire();
            if (live(generation))
                cutClient();
            return;
        }
        if (m_held.isEmpty()) {
            fire();
            if (live(generation))
                cutClient();
            return;
        }
        sendHead(m_response->status, m_response->reason, HttpWire::endToEndHeaders(m_response->headers),
            Framing::Length, m_held.size());
        sendBody(QByteArrayView(m_held).first(m_held.size() / 2));
        fire();
        if (live(generation))
            cutClient();
        return;
    case Mode::DropStream:
        if (m_isSse && m_headSent) {
            relaySseBlocks(true);
            if (!live(generation))
                return;
        } else {
            sendHead(m_response->status, m_response->reason, HttpWire::endToEndHeaders(m_response->headers),
                Framing::Length, 0);
        }
        fire();
        if (live(generation))
            finishResponse(true);
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

FaultProxy::FaultProxy(QUrl upstream, QObject* parent)
    : QObject(parent)
    , m_upstream(std::move(upstream))
    , m_server(new QTcpServer(this))
{
    m_server->setProxy(QNetworkProxy::NoProxy);
    connect(m_server, &QTcpServer::newConnection, this, &FaultProxy::onNewConnection);
}

FaultProxy::~FaultProxy() = default;

bool FaultProxy::listen(quint16 port, QString* error)
{
    if (m_server->isListening()) {
        if (error)
            *error = tr("the fault proxy is already listening on port %1").arg(m_server->serverPort());
        return false;
    }
    if (!m_server->listen(QHostAddress::LocalHost, port)) {
        if (error)
            *error = tr("the fault proxy cannot listen on 127.0.0.1:%1: %2").arg(port).arg(m_server->errorString());
        return false;
    }
    return true;
}

void FaultProxy::close()
{
    m_server->close();
    const auto connections = findChildren<FaultProxyConnection*>(Qt::FindDirectChildrenOnly);
    for (FaultProxyConnection* connection : connections)
        connection->shutdown();
}

bool FaultProxy::isListening() const
{
    return m_server->isListening();
}

QUrl FaultProxy::url() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(port());
    url.setPath(m_upstream.path().isEmpty() ? QStringLiteral("/") : m_upstream.path());
    if (m_upstream.hasQuery())
        url.setQuery(m_upstream.query(QUrl::FullyEncoded), QUrl::StrictMode);
    return url;
}

quint16 FaultProxy::port() const
{
    return m_server->serverPort();
}

QHostAddress FaultProxy::serverAddress() const
{
    return m_server->serverAddress();
}

void FaultProxy::onNewConnection()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection())
        new FaultProxyConnection(this, socket);
}

quint64 FaultProxy::arm(const Fault& fault)
{
    Fault armed = fault;
    armed.count = std::max(1, fault.count);
    armed.delayMs = std::max(0, fault.delayMs);
    armed.id = m_nextId++;
    m_faults.append(armed);
    Q_EMIT armedChanged();
    return armed.id;
}

void FaultProxy::disarm(quint64 id)
{
    const auto removed = m_faults.removeIf([id](const Fault& fault) { return fault.id == id; });
    if (removed > 0)
        Q_EMIT armedChanged();
}

void FaultProxy::clear()
{
    if (m_faults.isEmpty())
        return;
    m_faults.clear();
    Q_EMIT armedChanged();
}

std::optional<FaultProxy::Fault> FaultProxy::takeFault(const QString& method, const QString& tool)
{
    for (qsizetype i = 0; i < m_faults.size(); ++i) {
        Fault& fault = m_faults[i];
        if (!fault.method.isEmpty() && fault.method != method)
            continue;
        if (!fault.tool.isEmpty() && (method != QLatin1String("tools/call") || fault.tool != tool))
            continue;
        Fault taken = fault;
        taken.count = --fault.count;
        if (fault.count <= 0)
            m_faults.removeAt(i);
        Q_EMIT armedChanged();
        return taken;
    }
    return std::nullopt;
}

void FaultProxy::noteFired(const Fault& fault, const QString& method, const QJsonValue& requestId)
{
    ++m_faultsFired;
    Q_EMIT faultFired(fault, method, requestId);
}

bool FaultProxy::alreadyForwarded(const QString& callId, int attempt) const
{
    return m_forwardedAttempts.contains(attemptKey(callId, attempt));
}

void FaultProxy::noteForwarded(const QString& callId, int attempt)
{
    m_forwardedAttempts.insert(attemptKey(callId, attempt));
}

void FaultProxy::noteDuplicate(const QString& callId, int attempt, const QJsonValue& requestId)
{
    ++m_duplicatesRefused;
    Q_EMIT duplicateRefused(callId, attempt, requestId);
}

void FaultProxy::withholdResponse(const QString& key, const Withheld& withheld)
{
    m_withheld.insert(key, withheld);
}

void FaultProxy::releaseWithheld(const QString& key)
{
    m_withheld.remove(key);
}

std::optional<FaultProxy::Withheld> FaultProxy::takeWithheld(const QString& key)
{
    const auto it = m_withheld.find(key);
    if (it == m_withheld.end())
        return std::nullopt;
    Withheld taken = it.value();
    m_withheld.erase(it);
    // Queued: the stream that found the answer is still relaying its own events.
    if (taken.waiter) {
        const quint64 generation = taken.generation;
        QMetaObject::invokeMethod(
            taken.waiter,
            [waiter = taken.waiter, generation] {
                if (waiter)
                    waiter->onWithheldAnswerSeen(generation);
            },
            Qt::QueuedConnection);
    }
    return taken;
}

std::optional<FaultProxy::FaultKind> FaultProxy::kindFromName(QStringView name)
{
    for (const auto& entry : KindNames) {
        if (name == QLatin1String(entry.name))
            return entry.kind;
    }
    return std::nullopt;
}

QString FaultProxy::kindName(FaultKind kind)
{
    for (const auto& entry : KindNames) {
        if (entry.kind == kind)
            return QLatin1String(entry.name);
    }
    return {};
}

QJsonObject FaultProxy::faultToJson(const Fault& fault)
{
    QJsonObject object { { QStringLiteral("id"), qint64(fault.id) }, { QStringLiteral("kind"), kindName(fault.kind) },
        { QStringLiteral("count"), fault.count } };
    if (!fault.method.isEmpty())
        object.insert(QStringLiteral("method"), fault.method);
    if (!fault.tool.isEmpty())
        object.insert(QStringLiteral("tool"), fault.tool);
    if (fault.kind == FaultKind::Delay)
        object.insert(QStringLiteral("delayMs"), fault.delayMs);
    return object;
}

std::optional<FaultProxy::Fault> FaultProxy::faultFromJson(const QJsonObject& object, QString* error)
{
    const auto failWith = [error](const QString& message) -> std::optional<Fault> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    Fault fault;
    const auto kind = kindFromName(object.value(QLatin1String("kind")).toString());
    if (!kind) {
        QStringList names;
        for (const auto& entry : KindNames)
            names.append(QLatin1String(entry.name));
        return failWith(tr("\"kind\" must be one of %1").arg(names.join(QStringLiteral(", "))));
    }
    fault.kind = *kind;
    const QJsonValue count = object.value(QLatin1String("count"));
    if (!count.isUndefined() && !count.isNull()) {
        if (!count.isDouble() || count.toDouble() != double(count.toInt()) || count.toInt() < 1)
            return failWith(tr("\"count\" must be a positive integer"));
        fault.count = count.toInt();
    }
    for (const auto& [key, target] :
        { std::pair { QLatin1String("method"), &fault.method }, std::pair { QLatin1String("tool"), &fault.tool } }) {
        const QJsonValue value = object.value(key);
        if (value.isUndefined() || value.isNull())
            continue;
        if (!value.isString())
            return failWith(tr("\"%1\" must be a string").arg(key));
        *target = value.toString();
    }
    const QJsonValue delay = object.value(QLatin1String("delayMs"));
    if (!delay.isUndefined() && !delay.isNull()) {
        if (!delay.isDouble() || delay.toDouble() < 0 || delay.toDouble() > 3600.0 * 1000)
            return failWith(tr("\"delayMs\" must be a number of milliseconds between 0 and 3600000"));
        fault.delayMs = int(delay.toDouble());
    }
    if (fault.kind == FaultKind::Delay && fault.delayMs <= 0)
        return failWith(tr("a delay fault needs \"delayMs\" above 0"));
    return fault;
}

} // namespace mcpscope

#include "faultproxy.moc"
