#pragma once

// The connection behind HttpClient: one TCP or TLS connection to one origin, carrying one request
// at a time. Private to core/transport (HttpClient and HttpReply are its only users).

#include "httpclient.h"

#include <QNetworkProxy>
#include <QTcpSocket>
#include <QTimer>

#include <optional>

namespace mcpscope {

namespace HttpUrl {
bool isHttps(const QUrl& url);
/// The URL's port, or the scheme's default.
quint16 portOf(const QUrl& url);
} // namespace HttpUrl

/// One TCP (or TLS) connection to one origin, carrying one request at a time.
class HttpConnection final : public QObject
{
public:
    HttpConnection(HttpClient* client, QString key, const QUrl& url, bool tlsVerify, const QNetworkProxy& proxy);
    ~HttpConnection() override;

    const QString& key() const { return m_key; }
    HttpReply* reply() const { return m_reply; }
    void setConnectTimeout(qint64 ms);
    /// Whether a request may go out on this idle connection now.
    bool reusable(qint64 at, qint64 maxIdleMs) const;
    void carry(HttpReply* reply, bool reused);
    /// The reply gives up (abort, deletion): the connection can never be trusted again.
    void drop();
    void closeIdle();

private:
    QByteArray serialize(const HttpReply& reply);
    /// "METHOD target HTTP/1.1", the Host line and the URL's Basic credentials: what a request's URL and
    /// method alone decide. A connection carries one session's requests, all to the same URL, so it
    /// keeps the last one.
    struct Head
    {
        QByteArray method;
        QUrl url;
        QByteArray lines; ///< request line and Host, each with its CRLF
        QByteArray basicAuthorization; ///< the whole header line, empty without a user name in the URL
    };
    const Head& headFor(const QByteArray& method, const QUrl& url);
    void onReady();
    void write();
    void onBytesWritten(qint64 bytes);
    /// What left for the kernel, also what Qt wrote but has not reported yet: whatever is no longer in
    /// its buffer may be on the wire, so it counts as written (the safe reading).
    void noteWritten();
    void onReadyRead();
    /// Hands what the reader has to the reply; finishes it when the response is complete.
    void deliver();
    QUrl redirectTarget(const HttpReply& reply) const;
    void complete();
    void onError(QAbstractSocket::SocketError error);
    void fail(HttpClientError error, const QString& text);

    HttpClient* m_client;
    QString m_key;
    QTcpSocket* m_socket = nullptr;
    QPointer<HttpReply> m_reply;
    HttpWire::MessageReader m_reader;
    QByteArray m_message;
    QByteArray m_proxyAuthorization;
    std::optional<Head> m_head;
    QUrl m_redirect;
    QTimer m_connectTimer;
    qint64 m_written = 0;
    qint64 m_idleSince = 0;
    qint64 m_keepAliveMs = -1;
    bool m_absoluteForm = false;
    /// A plain TCP socket of the kernel's (no TLS, no SOCKS engine): write() may hand bytes to it itself.
    bool m_plainTcp = false;
    bool m_ready = false;
    bool m_writeCalled = false;
    bool m_closeAfter = false;
    bool m_dead = false;
    bool m_failing = false;
};

} // namespace mcpscope
