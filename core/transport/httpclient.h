#pragma once

#include "httpwire.h"
#include "wireexchange.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QNetworkProxy>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <memory>
#include <optional>

namespace mcpscope {

class HttpConnection;
class HttpClient;

/// One HTTP/1.1 request as the engine sends it. Host, Content-Length and the proxy headers are the
/// client's own; everything in headers goes out as given.
struct HttpRequest
{
    QByteArray method = QByteArrayLiteral("GET");
    QUrl url;
    WireHeaders headers;
    QByteArray body;
    bool tlsVerify = true; ///< false only when the user turned verification off for this server
    enum class Redirects {
        Manual, ///< a 3xx is the answer
        SameOrigin, ///< follow within the origin only: another origin would get our headers (credentials)
        NoLessSafe, ///< follow anywhere but from https to http (metadata lookups that carry no secret)
    };
    Redirects redirects = Redirects::SameOrigin;
    qint64 timeoutMs = 0; ///< the whole exchange, head and body; 0: none
};

/// How a request ended, in the transport's terms. The failure classifier, not the client, decides
/// what that means for recovery.
enum class HttpClientError {
    None,
    ConnectionRefused, ///< nothing written
    HostNotFound, ///< nothing written
    TlsFailed, ///< handshake failed: nothing written
    ProxyFailed, ///< the proxy refused or failed: nothing written
    ConnectTimeout, ///< nothing written
    ConnectionClosed, ///< the peer closed or reset the connection before the response was complete
    Timeout, ///< HttpRequest::timeoutMs ran out
    Aborted, ///< HttpReply::abort() or the client was closed
    MalformedResponse, ///< the bytes that came back are not HTTP/1.1
    SocketError, ///< any other socket error
};

/// What the wire showed for one request: the evidence that recovery is decided from (RECOVERY.md §1).
/// The client never sends a request again, so these facts are about the one send there was.
struct HttpEvidence
{
    bool connectionReused = false; ///< it went out on a kept-alive connection that had carried a request
    qint64 requestBytes = 0; ///< the whole request message, head and body
    qint64 requestBytesWritten = 0; ///< how much of it was handed to the operating system
    bool responseStarted = false; ///< any byte of a response arrived
    bool responseComplete = false; ///< the whole response arrived, as its framing says
    int status = 0; ///< 0: no status line arrived
    QByteArray reason;
    QByteArray httpVersion;
    WireHeaders headers;
    qint64 startedAt = 0; ///< ms since the epoch
    qint64 connectedAt = 0; ///< the connection was ready (reused: = startedAt)
    qint64 firstByteAt = 0;
    qint64 endedAt = 0;
    int redirects = 0; ///< same-origin redirects followed; the evidence is the last hop's
    HttpClientError error = HttpClientError::None;
    QString errorString; ///< the socket's or parser's words, for people

    bool anyRequestByteWritten() const { return requestBytesWritten > 0; }
    bool wholeRequestWritten() const { return requestBytes > 0 && requestBytesWritten >= requestBytes; }
    QByteArray header(QByteArrayView name) const { return HttpWire::header(headers, name); }
};

/// One request in flight and its response. Created by HttpClient::send(); the caller owns it and
/// calls deleteLater() once it is finished (deleting it earlier aborts it).
///
/// Signals:
/// - requestWritten once every byte of the request was handed to the operating system, perhaps before
///   HttpClient::send returned (whenRequestWritten);
/// - headReceived once the status line and headers of the final response arrived;
/// - readyRead whenever decoded body bytes are available (readAll());
/// - finished exactly once, when the response is complete or the request failed (error() says how).
///   abort() emits it from the event loop, never from inside the call.
class HttpReply final : public QObject
{
    Q_OBJECT
public:
    ~HttpReply() override;

    const HttpRequest& request() const { return m_request; }
    /// The URL of the last hop (after same-origin redirects).
    const QUrl& url() const { return m_url; }
    const HttpEvidence& evidence() const { return m_evidence; }
    int status() const { return m_evidence.status; }
    bool isSuccess() const { return m_evidence.status >= 200 && m_evidence.status < 300; }
    QByteArray header(QByteArrayView name) const { return m_evidence.header(name); }
    const WireHeaders& headers() const { return m_evidence.headers; }
    HttpClientError error() const { return m_evidence.error; }
    QString errorString() const { return m_evidence.errorString; }
    bool isFinished() const { return m_finished; }
    qint64 bytesAvailable() const { return m_body.size(); }
    /// Body bytes (de-chunked) received since the last call.
    QByteArray readAll() { return std::exchange(m_body, {}); }
    /// Stops the request now: the connection it used is closed, never reused. finished follows.
    void abort();
    /// Calls f once every byte of the request is with the operating system. A reused connection writes
    /// before HttpClient::send returns, so requestWritten may already be behind: then f runs now.
    template <typename Functor> void whenRequestWritten(const QObject* context, Functor f)
    {
        if (m_evidence.wholeRequestWritten())
            f();
        else
            connect(this, &HttpReply::requestWritten, context, std::move(f));
    }

Q_SIGNALS:
    void requestWritten();
    void headReceived();
    void readyRead();
    void finished();

private:
    friend class HttpClient;
    friend class HttpConnection;
    HttpReply(HttpClient* client, HttpRequest request);

    void finish(HttpClientError error, const QString& errorString);

    QPointer<HttpClient> m_client;
    HttpRequest m_request;
    QUrl m_url;
    HttpEvidence m_evidence;
    QByteArray m_body;
    HttpConnection* m_connection = nullptr; ///< while a connection carries it
    bool m_finished = false;
    bool m_headAnnounced = false;
    bool m_freshRetried = false; ///< moved once off a pooled connection found closed before any byte left
};

/// The engine's HTTP/1.1 client for MCP and OAuth traffic, on QTcpSocket/QSslSocket. It exists because
/// Qt's network access manager (QNAM) re-sends a POST by itself when the server closes or resets the connection
/// before the response head: exactly when the server may already have run it (RECOVERY.md §1).
///
/// It never sends a request twice, at any layer: a request that fails is reported with its evidence.
/// - A keep-alive pool per origin (scheme, host, port, TLS choice, proxy), with no cap on connections
///   in flight, so concurrent requests really run concurrently.
/// - Before a request goes out on a pooled connection the client checks that the server has not closed
///   it (and drops connections idle longer than the server's Keep-Alive timeout allows), so a server's
///   keep-alive timeout cannot turn a write into an uncertain outcome.
/// - Bodies in Content-Length, chunked or until-close framing, handed out as they arrive (SSE).
/// - TLS with the system CAs; HttpRequest::tlsVerify turns verification off for one server.
/// - HTTP(S)_PROXY and NO_PROXY from the environment (Qt's system proxy lookup), same-origin redirects.
class HttpClient final : public QObject
{
    Q_OBJECT
public:
    explicit HttpClient(QObject* parent = nullptr);
    ~HttpClient() override;

    HttpReply* send(HttpRequest request);
    /// Aborts every request in flight and closes every connection.
    void abortAll();

    /// Connections opened since construction, and those idle in the pool now (for tests and benchmarks).
    int connectionsOpened() const { return m_connectionsOpened; }
    int idleConnections() const;
    /// Idle connections never outlive this, whatever the server allows.
    void setMaxIdleMs(qint64 ms) { m_maxIdleMs = ms; }
    void setConnectTimeoutMs(qint64 ms) { m_connectTimeoutMs = ms; }

private:
    friend class HttpConnection;
    friend class HttpReply;

    void start(HttpReply* reply);
    void release(HttpConnection* connection);
    void discard(HttpConnection* connection);

    QHash<QString, QList<HttpConnection*>> m_idle; ///< by origin key
    QHash<QString, QNetworkProxy> m_proxies; ///< by scheme, host and port
    /// The last request's URL and TLS choice with the proxy and origin key they map to: a session posts to
    /// one endpoint, and building the two keys cost more than the rest of picking its connection.
    struct LastOrigin
    {
        QUrl url;
        bool tlsVerify = true;
        QNetworkProxy proxy;
        QString key;
    };
    std::optional<LastOrigin> m_lastOrigin;
    QList<HttpConnection*> m_busy;
    int m_connectionsOpened = 0;
    /// Below Node's default 5 s keep-alive timeout (undici uses 4 s too): a server that sends no
    /// Keep-Alive hint may close an idle connection just as a request goes out on it, and once bytes
    /// are written that loss can no longer be told apart from one after the server read them.
    qint64 m_maxIdleMs = 4000;
    qint64 m_connectTimeoutMs = 30000;
};

} // namespace mcpscope
