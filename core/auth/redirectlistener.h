#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QUrl>
#include <QUrlQuery>

class QTcpServer;
class QTcpSocket;

namespace mcpscope {

/// The loopback listener an authorization-code flow in the system browser redirects back to (RFC 8252
/// §7.3): 127.0.0.1 on a random port, path /mcpscope/oauth/callback. It answers only a GET for that path
/// whose Host is 127.0.0.1:<port> or localhost:<port> and whose `state` is the one expected; anything
/// else gets a 400/404/405 page and is not reported as a callback (a web page cannot forge one). After the
/// first good callback it stops listening. Answers the browser with a short page saying it can be closed.
///
/// Each connection carries one request (the answer says Connection: close). A request head over 8 KiB is
/// refused; a connection that has not sent a whole head within readTimeoutMs() is closed, so a silent or
/// slow client never holds the flow up. At most 16 connections are open at once.
///
/// Signals:
/// - callbackReceived once, with the whole query (code, state, iss, or error and error_description),
///   after the browser's page has been written and the listener has stopped listening;
/// - rejected for each refused request, with the reason in plain words (shown in the Auth steps). The
///   reason never contains the query, so never a code. A browser's /favicon.ico request and a connection
///   that closes or times out without sending anything are not reported.
///
/// A slot connected to either signal may delete the listener only with deleteLater().
class RedirectListener : public QObject
{
    Q_OBJECT
public:
    explicit RedirectListener(QObject* parent = nullptr);
    ~RedirectListener() override;

    /// Binds 127.0.0.1:0. On failure returns false and sets *error.
    bool listen(QString* error = nullptr);
    /// Tries preferredPort first (a registration made for its redirect URI stays valid), then any port.
    bool listen(quint16 preferredPort, QString* error);
    bool isListening() const;
    /// http://127.0.0.1:<port>/mcpscope/oauth/callback; invalid before listen().
    QUrl redirectUri() const;
    // preferredPort 0 is a random port. redirectUri() stays valid after the listener stopped (the token
    // request sends the same redirect_uri); a new listen(port()) takes the same port back when it is free.

    /// The port bound by the last successful listen(); 0 before.
    quint16 port() const { return m_port; }
    /// The state parameter of the authorization request in progress; callbacks with another are rejected.
    void expectState(const QString& state);
    /// Stops listening and drops the connections still open.
    void close();

    /// How long a connection may take to send its request head (10 s by default).
    void setReadTimeoutMs(int ms) { m_readTimeoutMs = ms; }
    int readTimeoutMs() const { return m_readTimeoutMs; }

    static QString callbackPath(); ///< "/mcpscope/oauth/callback"
    static constexpr qsizetype MaxHeadBytes = 8 * 1024;
    static constexpr int MaxConnections = 16;

Q_SIGNALS:
    void callbackReceived(const QUrlQuery& query);
    void rejected(const QString& reason);

private:
    void onConnection();
    void handle(QTcpSocket* socket);
    void refuse(QTcpSocket* socket, int status, const QString& reason, bool report = true);
    static void answer(QTcpSocket* socket, int status, const QByteArray& contentType, const QByteArray& body,
        const QByteArray& extraHeaders = {});

    QTcpServer* m_server = nullptr;
    QString m_state;
    quint16 m_port = 0;
    int m_readTimeoutMs = 10000;
    bool m_done = false;
};

} // namespace mcpscope
