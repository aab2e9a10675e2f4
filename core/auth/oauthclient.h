#pragma once

#include "transport/httpclient.h"
#include "transport/transportfailure.h"

#include <QJsonObject>

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QUrl>

#include <functional>

namespace mcpscope {

/// The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1).
struct BearerChallenge
{
    bool isBearer = false;
    QString error; ///< "invalid_token", "insufficient_scope", …
    QString scope; ///< space-separated, as the server sent it
    QUrl resourceMetadata;

    /// Reads the Bearer challenge out of a header value that may hold several challenges.
    static BearerChallenge parse(const QByteArray& header);
};

/// How the client is known to the authorization server.
struct OAuthRegistration
{
    enum class Source { None, PreRegistered, MetadataDocument, Dynamic };

    Source source = Source::None;
    QString clientId;
    QString clientSecret;
    QString tokenEndpointAuthMethod; ///< client_secret_basic, client_secret_post or none

    bool isValid() const { return !clientId.isEmpty(); }
};

/// An OAuth 2.1 authorization-code client for one MCP server over HTTP (MCP-NOTES "Authorization"):
/// Protected Resource Metadata (RFC 9728), authorization server metadata (RFC 8414 / OpenID), client
/// registration (pre-registered, Client ID Metadata Document or RFC 7591), PKCE S256, state, the RFC 8707
/// resource parameter and the token request.
///
/// The authorization endpoint is called without a browser: its redirect to the redirect URI is read, not
/// followed, so this works only with servers that redirect at once (the conformance suite's mock does);
/// otherwise failed() says a browser is needed. Tokens are kept in memory only and never logged.
///
/// Signals:
/// - stateChanged on every state change, through setState() only.
/// - authorized when a new access token is available (authorizationHeader()).
/// - failed with a message naming the server and the step that failed; the client may be asked again.
/// - log with one line per step for people (URLs, never secrets).
class OAuthClient : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Idle,
        DiscoveringResource,
        DiscoveringServer,
        Registering,
        Authorizing,
        RequestingToken,
        Authorized,
        Failed
    };
    Q_ENUM(State)

    struct Options
    {
        QString serverName;
        QUrl serverUrl; ///< the MCP endpoint the token is for
        QString clientId; ///< pre-registered credentials, preferred when set
        QString clientSecret;
        QUrl clientMetadataUrl; ///< our Client ID Metadata Document, used when the server supports them
        QUrl redirectUri = QUrl(QStringLiteral("http://127.0.0.1/mcpscope/oauth/callback"));
        QString clientName = QStringLiteral("McpScope");
        bool tlsVerify = true;
        int requestTimeoutMs = 30000;
    };

    explicit OAuthClient(Options options, QObject* parent = nullptr);
    ~OAuthClient() override;

    /// Starts a fresh authorization for the challenge in failure (a 401, or a 403 with insufficient_scope,
    /// whose headers it carries). Discovery and registration run only the first time. Any run in progress
    /// is abandoned.
    void authorize(const TransportFailure& failure);

    State state() const { return m_state; }
    bool hasToken() const { return !m_accessToken.isEmpty(); }
    /// "Bearer <token>", for the Authorization header of requests to Options::serverUrl only.
    QByteArray authorizationHeader() const;
    const OAuthRegistration& registration() const { return m_registration; }
    QString lastError() const { return m_lastError; }

    /// The RFC 8707 resource identifier for an MCP server URL: no fragment, no user info, no trailing slash.
    static QString canonicalResource(const QUrl& url);
    /// Whether a Protected Resource Metadata `resource` covers the server URL: same origin, and the
    /// server's path is the resource's path or below it.
    static bool resourceCovers(const QUrl& resource, const QUrl& serverUrl);

Q_SIGNALS:
    void stateChanged(mcpscope::OAuthClient::State state);
    void authorized();
    void failed(const QString& message);
    void log(const QString& line);

private:
    struct Response
    {
        int status = 0;
        QByteArray body;
        QUrl location; ///< resolved Location header of a redirect
        QString networkError;
        QJsonObject json; ///< body parsed as an object, when it is one
    };
    using ResponseHandler = std::function<void(const Response&)>;

    void setState(State state);
    void fail(const QString& message);
    void send(HttpRequest request, ResponseHandler handler);
    HttpRequest makeRequest(const QByteArray& method, const QUrl& url) const;
    void get(const QUrl& url, ResponseHandler handler, bool followRedirects = true);
    void postForm(const QUrl& url, const QList<QPair<QString, QString>>& form, const QByteArray& authorization,
        ResponseHandler handler);
    void postJson(const QUrl& url, const QJsonObject& body, ResponseHandler handler);

    void discoverResource(QList<QUrl> candidates);
    void discoverServer(QList<QUrl> candidates);
    void useFallbackEndpoints();
    void registerClient();
    void startAuthorization();
    void requestToken(const QString& code);

    QString chooseScope() const;
    QString chooseAuthMethod(bool hasSecret) const;
    QList<QUrl> serverMetadataCandidates(const QUrl& issuer) const;

    Options m_options;
    HttpClient m_http; ///< never re-sends: a token request must not be replayed by a library either
    QList<QPointer<HttpReply>> m_replies;
    quint64 m_generation = 0;
    State m_state = State::Idle;
    QString m_lastError;

    // Per authorization attempt.
    BearerChallenge m_challenge;
    bool m_stepUp = false;
    QString m_requestedScope;
    QByteArray m_codeVerifier;
    QString m_oauthState; ///< the OAuth `state` parameter of the attempt in progress

    // Discovered once.
    bool m_discovered = false;
    QUrl m_resourceMetadataUrl;
    QJsonObject m_resourceMetadata;
    bool m_legacy = false; ///< no Protected Resource Metadata: the 2025-03-26 rules apply
    QUrl m_authServer;
    QJsonObject m_serverMetadata; ///< empty when the 2025-03-26 fallback endpoints are used
    QUrl m_authorizationEndpoint;
    QUrl m_tokenEndpoint;
    QUrl m_registrationEndpoint;
    OAuthRegistration m_registration;

    QString m_accessToken;
    QString m_refreshToken;
};

} // namespace mcpscope
