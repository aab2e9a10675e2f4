#include "httpconnection.h"

#include "jsonrpc/translation.h"
#include "sockethealth.h"

#include <QDateTime>
#include <QSslSocket>

#include <climits>

namespace mcpscope {

bool HttpUrl::isHttps(const QUrl& url)
{
    return url.scheme() == QLatin1String("https");
}

quint16 HttpUrl::portOf(const QUrl& url)
{
    return quint16(url.port(isHttps(url) ? 443 : 80));
}

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

constexpr int MaxRedirects = 5;

bool sameOrigin(const QUrl& a, const QUrl& b)
{
    return a.scheme() == b.scheme() && a.host().compare(b.host(), Qt::CaseInsensitive) == 0
        && HttpUrl::portOf(a) == HttpUrl::portOf(b);
}

/// The timeout=N of a Keep-Alive header, in ms; -1 when absent.
qint64 keepAliveHintMs(const WireHeaders& headers)
{
    const QByteArray value = HttpWire::header(headers, "Keep-Alive");
    for (const QByteArray& part : value.split(',')) {
        const QByteArray item = part.trimmed();
        if (item.startsWith("timeout=")) {
            bool ok = false;
            const qint64 seconds = item.mid(8).toLongLong(&ok);
            if (ok && seconds >= 0)
                return seconds * 1000;
        }
    }
    return -1;
}

HttpClientError errorFor(QAbstractSocket::SocketError error, bool connected)
{
    switch (error) {
    case QAbstractSocket::ConnectionRefusedError:
        return HttpClientError::ConnectionRefused;
    case QAbstractSocket::HostNotFoundError:
        return HttpClientError::HostNotFound;
    case QAbstractSocket::SslHandshakeFailedError:
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        return connected ? HttpClientError::SocketError : HttpClientError::TlsFailed;
    case QAbstractSocket::ProxyAuthenticationRequiredError:
    case QAbstractSocket::ProxyConnectionRefusedError:
    case QAbstractSocket::ProxyConnectionClosedError:
    case QAbstractSocket::ProxyConnectionTimeoutError:
    case QAbstractSocket::ProxyNotFoundError:
    case QAbstractSocket::ProxyProtocolError:
        return HttpClientError::ProxyFailed;
    case QAbstractSocket::SocketTimeoutError:
        return connected ? HttpClientError::SocketError : HttpClientError::ConnectTimeout;
    case QAbstractSocket::RemoteHostClosedError:
        return connected ? HttpClientError::ConnectionClosed : HttpClientError::SocketError;
    default:
        return HttpClientError::SocketError;
    }
}

/// Headers serialize() writes itself, whatever the request says: compared by length first, as nearly
/// every request header differs from all of them in length.
bool isFramingHeader(const QByteArray& name)
{
    const auto is = [&name](QByteArrayView header) {
        return name.size() == header.size() && name.compare(header, Qt::CaseInsensitive) == 0;
    };
    return is("Host") || is("Content-Length") || is("Transfer-Encoding") || is("Connection");
}

} // namespace

HttpConnection::HttpConnection(
    HttpClient* client, QString key, const QUrl& url, bool tlsVerify, const QNetworkProxy& proxy)
    : QObject(client)
    , m_client(client)
    , m_key(std::move(key))
    , m_reader(HttpWire::MessageReader::Kind::Response)
{
    const bool https = HttpUrl::isHttps(url);
    // Plain HTTP through an HTTP proxy uses the absolute form on a connection to the proxy; HTTPS
    // tunnels through it with CONNECT, which Qt's socket does itself.
    m_absoluteForm = !https && proxy.type() == QNetworkProxy::HttpProxy;
    if (m_absoluteForm) {
        m_proxyAuthorization = proxy.user().isEmpty()
            ? QByteArray()
            : "Basic " + (proxy.user() + QLatin1Char(':') + proxy.password()).toUtf8().toBase64();
    }
    if (https) {
        auto* ssl = new QSslSocket(this);
        ssl->setPeerVerifyMode(tlsVerify ? QSslSocket::VerifyPeer : QSslSocket::VerifyNone);
        if (!tlsVerify)
            connect(ssl, &QSslSocket::sslErrors, ssl, [ssl] { ssl->ignoreSslErrors(); });
        connect(ssl, &QSslSocket::encrypted, this, &HttpConnection::onReady);
        m_socket = ssl;
    } else {
        m_socket = new QTcpSocket(this);
        connect(m_socket, &QTcpSocket::connected, this, &HttpConnection::onReady);
    }
    m_socket->setProxy(m_absoluteForm ? QNetworkProxy(QNetworkProxy::NoProxy) : proxy);
    m_plainTcp = !https && (m_absoluteForm || proxy.type() == QNetworkProxy::NoProxy);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesWritten);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(m_socket, &QTcpSocket::errorOccurred, this, &HttpConnection::onError);
    connect(m_socket, &QTcpSocket::disconnected, this, [this] { onError(QAbstractSocket::RemoteHostClosedError); });
    m_connectTimer.setSingleShot(true);
    connect(&m_connectTimer, &QTimer::timeout, this, [this] {
        m_socket->abort();
        fail(HttpClientError::ConnectTimeout,
            McpScope::tr("no connection within %1 s").arg(m_connectTimer.interval() / 1000));
    });

    if (m_absoluteForm) {
        m_socket->connectToHost(proxy.hostName(), proxy.port());
    } else if (https) {
        static_cast<QSslSocket*>(m_socket)->connectToHostEncrypted(url.host(), HttpUrl::portOf(url));
    } else {
        m_socket->connectToHost(url.host(), HttpUrl::portOf(url));
    }
}

HttpConnection::~HttpConnection()
{
    m_socket->disconnect(this);
    if (m_reply)
        m_reply->m_connection = nullptr;
}

void HttpConnection::setConnectTimeout(qint64 ms)
{
    if (!m_ready)
        m_connectTimer.start(int(std::min<qint64>(ms, INT_MAX)));
}

bool HttpConnection::reusable(qint64 at, qint64 maxIdleMs) const
{
    if (!m_ready || m_dead || m_socket->state() != QAbstractSocket::ConnectedState || m_socket->bytesAvailable() > 0)
        return false;
    qint64 limit = maxIdleMs;
    if (m_keepAliveMs >= 0)
        limit = std::min(limit, std::max(m_keepAliveMs - 1000, m_keepAliveMs / 2));
    if (at - m_idleSince >= limit)
        return false;
    return !SocketHealth::idlePeerGone(m_socket->socketDescriptor());
}

void HttpConnection::carry(HttpReply* reply, bool reused)
{
    m_reply = reply;
    reply->m_connection = this;
    m_reader = HttpWire::MessageReader(HttpWire::MessageReader::Kind::Response);
    m_written = 0;
    m_writeCalled = false;
    m_closeAfter = false;
    HttpEvidence& e = reply->m_evidence;
    e.connectionReused = reused;
    m_message = serialize(*reply);
    e.requestBytes = m_message.size();
    if (m_ready) {
        e.connectedAt = now();
        write();
    }
}

void HttpConnection::drop()
{
    if (m_reply) {
        noteWritten();
        m_reply->m_connection = nullptr;
        m_reply = nullptr;
    }
    m_dead = true;
    m_socket->abort();
    m_client->discard(this);
}

void HttpConnection::closeIdle()
{
    m_dead = true;
    m_socket->abort();
}

const HttpConnection::Head& HttpConnection::headFor(const QByteArray& method, const QUrl& url)
{
    if (m_head && m_head->method == method && m_head->url == url)
        return *m_head;
    QByteArray target = m_absoluteForm
        ? url.toEncoded(QUrl::RemoveUserInfo | QUrl::RemoveFragment)
        : url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment);
    if (target.isEmpty())
        target = "/";
    QByteArray host = url.host(QUrl::FullyEncoded).toUtf8();
    if (host.contains(':'))
        host = '[' + host + ']';
    if (url.port() != -1 && url.port() != (HttpUrl::isHttps(url) ? 443 : 80))
        host += ':' + QByteArray::number(url.port());
    Head head { method, url, method + ' ' + target + " HTTP/1.1\r\nHost: " + host + "\r\n", {} };
    if (!url.userName().isEmpty())
        head.basicAuthorization = "Authorization: Basic "
            + (url.userName() + QLatin1Char(':') + url.password()).toUtf8().toBase64() + "\r\n";
    m_head = std::move(head);
    return *m_head;
}

QByteArray HttpConnection::serialize(const HttpReply& reply)
{
    const HttpRequest& request = reply.m_request;
    const Head& head = headFor(request.method, reply.m_url);
    QByteArray out;
    out.reserve(256 + request.body.size());
    out += head.lines;
    bool hasAuthorization = false;
    for (const auto& [name, value] : request.headers) {
        if (isFramingHeader(name))
            continue;
        hasAuthorization
            = hasAuthorization || (name.size() == 13 && name.compare("Authorization", Qt::CaseInsensitive) == 0);
        out += name + ": " + value + "\r\n";
    }
    if (!hasAuthorization)
        out += head.basicAuthorization;
    if (!m_proxyAuthorization.isEmpty())
        out += "Proxy-Authorization: " + m_proxyAuthorization + "\r\n";
    if (!request.body.isEmpty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH")
        out += "Content-Length: " + HttpWire::decimal(request.body.size()) + "\r\n";
    out += "\r\n";
    out += request.body;
    return out;
}

void HttpConnection::onReady()
{
    m_connectTimer.stop();
    m_ready = true;
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    if (m_reply) {
        m_reply->m_evidence.connectedAt = now();
        write();
    }
}

void HttpConnection::write()
{
    m_writeCalled = true;
    const QByteArray message = std::exchange(m_message, {});
    // QTcpSocket::write only buffers: it turns the write notifier on and off around the send, and each
    // turn wakes the event loop (two eventfd writes, a poll and a read, a third of an HTTP call's
    // syscalls). On a plain TCP socket with nothing queued the bytes go to the kernel here, once; what
    // it does not take, or a socket that failed, is left to Qt's write, which reports the error.
    qint64 sent = 0;
    if (m_plainTcp && m_socket->bytesToWrite() == 0)
        sent = std::max<qint64>(
            0, SocketHealth::sendNow(m_socket->socketDescriptor(), message.constData(), message.size()));
    const qint64 rest = message.size() - sent;
    if (rest > 0 && m_socket->write(message.constData() + sent, rest) != rest) {
        m_written += sent;
        noteWritten();
        fail(HttpClientError::SocketError, m_socket->errorString());
        return;
    }
    // Before send() returns on a reused connection: HttpReply::whenRequestWritten.
    if (sent > 0)
        onBytesWritten(sent);
}

void HttpConnection::onBytesWritten(qint64 bytes)
{
    if (!m_reply)
        return;
    m_written += bytes;
    HttpEvidence& e = m_reply->m_evidence;
    const bool before = e.wholeRequestWritten();
    e.requestBytesWritten = std::min(m_written, e.requestBytes);
    if (!before && e.wholeRequestWritten())
        Q_EMIT m_reply->requestWritten();
}

void HttpConnection::noteWritten()
{
    if (!m_reply || !m_writeCalled)
        return;
    HttpEvidence& e = m_reply->m_evidence;
    const qint64 left = m_socket->bytesToWrite();
    e.requestBytesWritten = std::max(e.requestBytesWritten, std::max<qint64>(0, e.requestBytes - left));
}

void HttpConnection::onReadyRead()
{
    const QByteArray bytes = m_socket->readAll();
    if (bytes.isEmpty())
        return;
    if (!m_reply) {
        // Nothing may arrive on an idle connection; whatever it is, the connection is not ours to reuse.
        m_dead = true;
        m_socket->abort();
        return;
    }
    QPointer<HttpReply> reply = m_reply;
    HttpEvidence& e = reply->m_evidence;
    if (!e.responseStarted) {
        e.responseStarted = true;
        e.firstByteAt = now();
    }
    if (!m_reader.feed(bytes)) {
        fail(HttpClientError::MalformedResponse, McpScope::tr("malformed HTTP response: %1").arg(m_reader.error()));
        return;
    }
    deliver();
}

void HttpConnection::deliver()
{
    QPointer<HttpReply> reply = m_reply;
    HttpEvidence& e = reply->m_evidence;
    if (m_reader.headComplete() && e.status == 0) {
        e.status = m_reader.status;
        e.reason = m_reader.reason;
        e.httpVersion = m_reader.version;
        e.headers = m_reader.headers;
        m_keepAliveMs = keepAliveHintMs(e.headers);
        m_closeAfter = HttpWire::headerHasToken(e.headers, "Connection", "close")
            || (e.httpVersion == "HTTP/1.0" && !HttpWire::headerHasToken(e.headers, "Connection", "keep-alive"))
            || m_reader.framing() == HttpWire::MessageReader::Framing::UntilClose;
        m_redirect = redirectTarget(*reply);
        if (!m_redirect.isValid()) {
            reply->m_headAnnounced = true;
            Q_EMIT reply->headReceived();
            if (!reply || m_reply != reply)
                return;
        }
    }
    QByteArray body = m_reader.takeBody();
    if (!body.isEmpty() && !m_redirect.isValid()) {
        reply->m_body.append(body);
        Q_EMIT reply->readyRead();
        if (!reply || m_reply != reply)
            return;
    }
    if (m_reader.complete())
        complete();
}

QUrl HttpConnection::redirectTarget(const HttpReply& reply) const
{
    const int status = reply.m_evidence.status;
    const HttpRequest::Redirects policy = reply.m_request.redirects;
    if (policy == HttpRequest::Redirects::Manual || reply.m_evidence.redirects >= MaxRedirects
        || (status != 301 && status != 302 && status != 303 && status != 307 && status != 308))
        return {};
    const QByteArray location = reply.m_evidence.header("Location");
    if (location.isEmpty())
        return {};
    const QUrl target = reply.m_url.resolved(QUrl::fromEncoded(location));
    if (policy == HttpRequest::Redirects::NoLessSafe)
        return HttpUrl::isHttps(reply.m_url) && !HttpUrl::isHttps(target) ? QUrl() : target;
    // Another origin would receive our headers, credentials among them.
    return sameOrigin(target, reply.m_url) ? target : QUrl();
}

void HttpConnection::complete()
{
    HttpReply* reply = std::exchange(m_reply, nullptr);
    reply->m_connection = nullptr;
    reply->m_evidence.responseComplete = true;
    const bool reuse = !m_closeAfter && m_reader.takeRemainder().isEmpty() && !m_dead;
    const QUrl redirect = std::exchange(m_redirect, {});
    if (reuse) {
        m_idleSince = now();
        m_client->release(this);
    } else {
        m_dead = true;
        m_socket->disconnect(this);
        m_socket->abort();
        m_client->discard(this);
    }
    if (redirect.isValid()) {
        HttpEvidence& e = reply->m_evidence;
        const int status = e.status;
        const int redirects = e.redirects + 1;
        const qint64 startedAt = e.startedAt;
        e = HttpEvidence();
        e.startedAt = startedAt;
        e.redirects = redirects;
        reply->m_url = redirect;
        if (status == 303 || ((status == 301 || status == 302) && reply->m_request.method == "POST")) {
            reply->m_request.method = "GET";
            reply->m_request.body.clear();
        }
        m_client->start(reply);
        return;
    }
    reply->finish(HttpClientError::None, QString());
}

void HttpConnection::onError(QAbstractSocket::SocketError error)
{
    if (m_failing)
        return;
    if (!m_reply) {
        // An idle connection the server closed: drop it from the pool now.
        if (!m_dead) {
            m_dead = true;
            m_client->discard(this);
        }
        return;
    }
    if (error == QAbstractSocket::RemoteHostClosedError) {
        // Bytes that came with the close are still ours to read.
        if (m_socket->bytesAvailable() > 0)
            onReadyRead();
        if (!m_reply)
            return;
        if (m_reader.headComplete() && m_reader.closeReceived()) {
            m_closeAfter = true;
            deliver();
            return;
        }
    }
    noteWritten();
    // A kept-alive connection the server closed just as we picked it (its keep-alive timer won the
    // race with our check): while nothing of the request has left this process it was never sent,
    // so it goes out once on a fresh connection instead of failing.
    if (HttpReply* reply = m_reply; reply && reply->m_evidence.connectionReused && !reply->m_freshRetried
        && !reply->m_evidence.anyRequestByteWritten() && !reply->m_evidence.responseStarted) {
        m_failing = true;
        m_dead = true;
        m_socket->disconnect(this);
        m_socket->abort();
        m_reply = nullptr;
        reply->m_connection = nullptr;
        reply->m_freshRetried = true;
        m_client->discard(this);
        m_client->start(reply);
        return;
    }
    const HttpClientError kind = errorFor(error, m_ready);
    QString text = m_socket->errorString();
    if (kind == HttpClientError::ConnectionClosed)
        text = m_reply->m_evidence.responseStarted
            ? McpScope::tr("the connection closed before the response was complete")
            : McpScope::tr("the connection closed before any response byte");
    fail(kind, text);
}

void HttpConnection::fail(HttpClientError error, const QString& text)
{
    m_failing = true;
    m_dead = true;
    m_connectTimer.stop();
    m_socket->disconnect(this);
    m_socket->abort();
    HttpReply* reply = std::exchange(m_reply, nullptr);
    m_client->discard(this);
    if (reply) {
        reply->m_connection = nullptr;
        reply->finish(error, text);
    }
}

} // namespace mcpscope
