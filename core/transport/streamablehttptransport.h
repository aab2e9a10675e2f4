#pragma once

#include "credentialprovider.h"
#include "httpclient.h"
#include "sseparser.h"
#include "transport.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QPointer>
#include <QTimer>
#include <QUrl>

namespace mcpscope {

/// Options shared by the HTTP transports.
struct HttpTransportOptions
{
    QString serverName;
    QUrl url;
    QList<QPair<QString, QString>> headers;
    bool tlsVerify = true;
    qint64 maxResponseBytes = 64LL * 1024 * 1024;
    int maxResumeAttempts = 3;
    /// Read for every request (RECOVERY.md §4: a refreshed token needs no reconnect); may be null.
    const CredentialProvider* credentials = nullptr;
    QUrl credentialUrl; ///< the URL the credentials are for: the configured server, not a proxy in front of it
    int defaultRetryMs = 1000; ///< wait before resuming a stream when the server gave no retry:
};

/// MCP Streamable HTTP (2025-03-26 and later): one POST per message, answered with JSON or an SSE
/// stream; a GET stream for server-initiated messages; Mcp-Session-Id; resumption with Last-Event-ID.
///
/// It speaks through the engine's own HttpClient, which never sends a request twice. A failed request
/// is reported through requestFailed with its evidence (bytes written, whether a response began, the
/// status and headers); FailureClassifier turns that into the failure kind.
class StreamableHttpTransport final : public Transport
{
    Q_OBJECT
public:
    explicit StreamableHttpTransport(HttpTransportOptions options, QObject* parent = nullptr);
    ~StreamableHttpTransport() override;

    void open() override;
    void send(const JsonRpcMessage& message) override;
    void close() override;
    void abort() override;
    /// The Mcp-Session-Id, or for a server that issues none, an identity of this connection, so a
    /// reconnect is still recognisable as a new session.
    QString sessionId() const override { return m_sessionId.isEmpty() ? m_localIdentity : m_sessionId; }
    QString assignedSessionId() const override { return m_sessionId; }
    void setProtocolVersion(const QString& version) override;
    void setModern(bool modern, const QString& version, HeaderSource headers) override;
    bool dropRequest(const QJsonValue& id) override;
    void forgetSession() override { m_sessionId.clear(); }
    bool hasServerSession() const override { return true; }
    /// Asks the server to end the session (DELETE) without closing the transport.
    void terminateSession() override;

    /// Adds the configured headers, session id and protocol version. Credentials are read per request.
    /// How many times a request's stream was resumed with Last-Event-ID.
    int resumedStreams() const { return m_resumedStreams; }

private:
    struct Exchange
    {
        QPointer<HttpReply> reply;
        QJsonValue id; ///< request id, undefined for notifications and responses
        QString method;
        QString sessionIdSent;
        bool isRequest = false;
        bool uploaded = false;
        bool isSse = false;
        bool answered = false;
        bool resume = false; ///< a GET resuming this request's stream
        bool killed = false; ///< ended by abort(), the kill-transport action
        int resumeAttempts = 0;
        qint64 received = 0;
        QByteArray body;
        SseParser parser;
        bool recording = false; ///< someone listens to exchangeRecorded and this is a request
        QList<HttpExchange> wire; ///< the POST, then each GET that resumed its stream
    };

    HttpRequest makeRequest(const QByteArray& method) const;
    void watch(HttpReply* reply, std::shared_ptr<Exchange> exchange);
    void onReadyRead(const std::shared_ptr<Exchange>& exchange);
    void onFinished(const std::shared_ptr<Exchange>& exchange);
    void deliver(const std::shared_ptr<Exchange>& exchange, QByteArrayView json);
    void resumeStream(const std::shared_ptr<Exchange>& exchange);
    void failExchange(const std::shared_ptr<Exchange>& exchange, TransportFailure failure);
    void openGetStream();
    /// After close(): once no notification or response POST is left in flight, ends the session.
    void finishCloseWhenQuiet();
    bool notificationsInFlight() const;
    void sendDelete(qint64 timeoutMs, bool thenClosed);
    /// Emits exchangeRecorded for a request that is being settled.
    void settleWire(const std::shared_ptr<Exchange>& exchange);
    /// Modern era: a 4xx whose body is a JSON-RPC error answers the request (true when it did).
    bool deliverErrorBody(const std::shared_ptr<Exchange>& exchange, HttpReply* reply);

    HttpTransportOptions m_options;
    HttpClient m_http;
    QString m_sessionId;
    QString m_localIdentity;
    QString m_protocolVersion;
    /// A header value of every request in Latin-1, converted again only when the string changes.
    struct Latin1Memo
    {
        QString text;
        QByteArray bytes;
        const QByteArray& of(const QString& value)
        {
            if (!text.isSharedWith(value) && text != value) {
                text = value;
                bytes = value.toLatin1();
            }
            return bytes;
        }
    };
    mutable Latin1Memo m_sessionIdBytes;
    mutable Latin1Memo m_protocolVersionBytes;
    bool m_modern = false;
    HeaderSource m_modernHeaders;
    QList<std::shared_ptr<Exchange>> m_exchanges;
    std::shared_ptr<Exchange> m_getStream;
    int m_getStreamFailures = 0;
    int m_resumedStreams = 0;
    bool m_closing = false;
    bool m_closeFinishing = false;
    QTimer m_closeGrace; ///< bounds how long close() waits for notifications (a cancel) to get through
};

} // namespace mcpscope
