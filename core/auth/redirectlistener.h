#pragma once

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
/// else gets a 400/404 page and is not reported as a callback (a web page cannot forge one). After the
/// first good callback it stops listening. Answers the browser with a short page saying it can be closed.
///
/// Signals: callbackReceived once, with the whole query (code, state, iss, or error and error_description);
/// rejected for each refused request, with the reason in plain words (shown in the Auth steps).
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
    /// The state parameter of the authorization request in progress; callbacks with another are rejected.
    void expectState(const QString& state);
    void close();

    static QString callbackPath(); ///< "/mcpscope/oauth/callback"

Q_SIGNALS:
    void callbackReceived(const QUrlQuery& query);
    void rejected(const QString& reason);

private:
    void onConnection();
    void handle(QTcpSocket* socket);

    QTcpServer* m_server = nullptr;
    QString m_state;
    bool m_done = false;
};

} // namespace mcpscope
