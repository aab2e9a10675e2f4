#pragma once

#include "authstep.h"
#include "dpop.h"
#include "transport/credentialprovider.h"
#include "transport/httpclient.h"
#include "transport/transportfailure.h"

#include <QJsonObject>
#include <QUrlQuery>

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QUrl>

#include <functional>

namespace mcpscope {

/// The parameters of a `WWW-Authenticate: Bearer …` (RFC 6750 §3, RFC 9728 §5.1) or `DPoP …` (RFC 9449
/// §7.1) challenge.
struct BearerChallenge
{
    bool isBearer = false;
    bool isDpop = false; ///< the server offered the DPoP scheme: it wants DPoP-bound tokens
    QString error; ///< "invalid_token", "insufficient_scope", "use_dpop_nonce", …
    QString scope; ///< space-separated, as the server sent it
    QUrl resourceMetadata;
    QStringList dpopAlgs; ///< the DPoP challenge's algs: the proof algorithms it takes (empty: not said)

    /// Reads the Bearer and DPoP challenges out of a header value that may hold several challenges; the
    /// parameters of both end up here (a server that offers both sends the same ones).
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

/// An OAuth 2.1 client for one MCP server over HTTP (MCP-NOTES "Authorization", issue 13): Protected
/// Resource Metadata (RFC 9728), authorization server metadata (RFC 8414 / OpenID), client registration
/// (pre-registered, Client ID Metadata Document or RFC 7591 with application_type), PKCE S256, state, the
/// RFC 9207 `iss` check, the RFC 8707 resource parameter, the token request, refresh with rotation,
/// RFC 7009 revocation, and the grants of the conformance extension scenarios (client_credentials with
/// client_secret_basic or private_key_jwt, and the cross-app ID-JAG token exchange).
///
/// The transports read the token through CredentialProvider on every request; it is given only for
/// requests to Options::serverUrl's origin and path. Secrets never reach log() or steps().
///
/// Browser::None performs the authorization request itself and reads the redirect's Location without
/// following it (the conformance mock and `--auth-browser none`); Browser::External emits browserNeeded
/// with the full URL and waits for completeAuthorization() with the query the RedirectListener received.
///
/// Signals:
/// - stateChanged on every state change, through setState() only.
/// - authorized when a new access token is available (after a flow or a refresh).
/// - failed with a message naming the server and the step that failed; the client may be asked again.
/// - expired when the authorization server itself refused the refresh token (invalid_grant): only the
///   user can authorize again. A network error while refreshing is failed(), never expired().
/// - browserNeeded (Browser::External) with the authorization URL to open.
/// - credentialsChanged when saveCredentials() would return something new: store it now.
/// - revoked when forgetTokens() finished (tokens are gone locally in any case).
/// - stepsChanged whenever steps() changed.
/// - log with one line per step for people (URLs, never secrets).
class OAuthClient : public QObject, public CredentialProvider
{
    Q_OBJECT
public:
    enum class State {
        Idle,
        DiscoveringResource,
        DiscoveringServer,
        Registering,
        Authorizing,
        WaitingForBrowser,
        RequestingToken,
        Refreshing,
        Revoking,
        Authorized,
        Expired, ///< the authorization server refused the refresh token: the user must authorize again
        Failed
    };
    Q_ENUM(State)

    enum class Grant {
        AuthorizationCode, ///< the default: a user authorizes in a browser (or the mock redirects at once)
        ClientCredentials, ///< machine to machine: client_secret_basic, or private_key_jwt with clientKeyPem
        CrossApp, ///< SEP-990: an IdP ID token exchanged for an ID-JAG (RFC 8693), then a jwt-bearer grant
        JwtBearer, ///< SEP-1933 workload identity: a given workload JWT as an RFC 7523 jwt-bearer grant
    };
    enum class Browser { None, External };

    struct Options
    {
        QString serverName;
        QUrl serverUrl; ///< the MCP endpoint the token is for
        QString clientId; ///< pre-registered credentials, preferred when set
        QString clientSecret;
        QByteArray clientKeyPem; ///< an EC P-256 private key (PEM) for private_key_jwt
        Grant grant = Grant::AuthorizationCode;
        Browser browser = Browser::None;
        /// For Grant::CrossApp: the conformance context's IdP fields (idp issuer/token endpoint, id token,
        /// the IdP client id and secret), as MCP_CONFORMANCE_CONTEXT gives them.
        QJsonObject crossApp;
        QString workloadJwt; ///< For Grant::JwtBearer: the workload identity assertion
        /// Ask for a DPoP-bound token (RFC 9449) whenever the authorization server offers ES256 in
        /// dpop_signing_alg_values_supported. Without it, DPoP is used only when the resource server's
        /// challenge names the DPoP scheme.
        bool preferDpop = false;
        QUrl clientMetadataUrl; ///< our Client ID Metadata Document, used when the server supports them
        QUrl redirectUri = QUrl(QStringLiteral("http://127.0.0.1/mcpscope/oauth/callback"));
        QString clientName = QStringLiteral("McpScope");
        bool tlsVerify = true;
        int requestTimeoutMs = 30000;
        /// Milliseconds since the epoch; injected by tests. Empty: the system clock.
        std::function<qint64()> clock;
    };

    explicit OAuthClient(Options options, QObject* parent = nullptr);
    ~OAuthClient() override;

    const Options& options() const { return m_options; }
    /// The redirect URI changes when the loopback listener gets another port: a dynamic registration made
    /// for the old one is dropped and made again on the next authorize().
    void setRedirectUri(const QUrl& uri);

    /// Starts a fresh authorization for the challenge in failure (a 401, or a 403 with insufficient_scope,
    /// whose headers it carries). Discovery and registration run only the first time. Any run in progress
    /// is abandoned.
    void authorize(const TransportFailure& failure);
    /// The same without a challenge (the user pressed Authorize): discovery starts at the well-known URLs.
    void authorize();
    /// Browser::External: the query of the redirect to redirectUri (code, state, iss or error).
    void completeAuthorization(const QUrlQuery& callback);
    /// A refresh_token grant (or, for client_credentials, a new token). Without a refresh token and with an
    /// authorization-code grant, this is authorize(). Rotation keeps the newest refresh token.
    void refresh();
    bool canRefresh() const;
    /// Revokes the access and refresh tokens at the revocation endpoint (RFC 7009) when the authorization
    /// server has one, then forgets them. Emits revoked() at the end either way.
    void forgetTokens();

    State state() const { return m_state; }
    bool hasToken() const { return !m_accessToken.isEmpty(); }
    /// When the access token expires, in ms since the epoch: issue time + expires_in (3600 s when the
    /// answer had none). 0 without a token.
    qint64 expiresAt() const { return m_expiresAt; }
    /// True from 60 s before expiresAt() on (RECOVERY.md §4: refresh starts then).
    bool isExpiring(qint64 marginMs = 60000) const;
    /// "Bearer <token>" or, for a DPoP-bound token, "DPoP <token>", for the Authorization header of
    /// requests to Options::serverUrl only.
    QByteArray authorizationHeader() const;
    QByteArray authorizationFor(const QUrl& url) const override;
    /// Authorization, plus a fresh DPoP proof (with ath and the origin's nonce) for a DPoP-bound token.
    Headers headersFor(const QUrl& credentialUrl, const QByteArray& method, const QUrl& requestUrl) const override;
    void noteNonce(const QUrl& requestUrl, const QByteArray& nonce) const override;
    /// Whether the access token is DPoP-bound (the token endpoint answered token_type "DPoP").
    bool isDpopBound() const { return m_dpopBound && hasToken(); }
    /// The public JWK of the client's DPoP key; empty until the first DPoP token request made one.
    const QJsonObject& dpopPublicJwk() const { return m_dpopJwk; }
    /// For a 401 with `DPoP error="use_dpop_nonce"` and a DPoP-Nonce header to a request that carried this
    /// client's DPoP-bound token (RFC 9449 §9): keeps the nonce and returns true. The token is still good, so
    /// the caller's one retry needs no new authorization. False for any other failure.
    bool takeNonceChallenge(const TransportFailure& failure);
    const OAuthRegistration& registration() const { return m_registration; }
    QString lastError() const { return m_lastError; }
    /// The authorization server's issuer once known (credentials are keyed by it).
    QString issuer() const;
    /// The steps of the last flow (or refresh, or revocation), secrets masked.
    const QList<AuthStep>& steps() const { return m_steps; }

    /// What the token store keeps for this server, as JSON: issuer, registration, endpoints, tokens,
    /// expiry and scope. Contains secrets: only ever for the TokenStore.
    QByteArray saveCredentials() const;
    /// Restores what saveCredentials() returned. Returns false (and changes nothing) for something that is
    /// not such a document or is for another resource.
    bool restoreCredentials(const QByteArray& saved);
    /// The token store key for this server's credentials: "oauth/<canonical resource>".
    QString credentialsKey() const;
    static QString credentialsKeyFor(const QUrl& serverUrl);
    /// The secret values in what saveCredentials() returned: the access and refresh tokens, the client
    /// secret of a dynamic registration and the DPoP private key (as stored and as PEM); empty for anything
    /// else. For a redactor, which must know
    /// every one of them wherever they were stored.
    static QStringList secretsIn(const QByteArray& saved);

    /// The RFC 8707 resource identifier for an MCP server URL: no fragment, no user info, no trailing slash.
    static QString canonicalResource(const QUrl& url);
    /// Whether a Protected Resource Metadata `resource` covers the server URL: same origin, and the
    /// server's path is the resource's path or below it.
    static bool resourceCovers(const QUrl& resource, const QUrl& serverUrl);

Q_SIGNALS:
    void stateChanged(mcpscope::OAuthClient::State state);
    void authorized();
    void failed(const QString& message);
    void expired(const QString& message);
    void browserNeeded(const QUrl& authorizationUrl);
    void credentialsChanged();
    void revoked();
    void stepsChanged();
    void log(const QString& line);

public:
    /// The candidate URLs of discovery, in the spec's order (MCP-NOTES "Authorization" §2 and §3).
    static QList<QUrl> resourceMetadataCandidates(const QUrl& serverUrl, const QUrl& fromChallenge);
    static QList<QUrl> serverMetadataCandidates(const QUrl& issuer);
    /// The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
    static QByteArray pkceChallenge(const QByteArray& verifier);

private:
    struct Response
    {
        int status = 0;
        QByteArray body;
        QUrl location; ///< resolved Location header of a redirect
        QString networkError;
        QJsonObject json; ///< body parsed as an object, when it is one
        QByteArray dpopNonce; ///< the DPoP-Nonce header (RFC 9449 §8), trimmed
    };
    using ResponseHandler = std::function<void(const Response&)>;
    using Form = QList<QPair<QString, QString>>;

    void setState(State state);
    void fail(const QString& message);
    qint64 now() const;
    void send(HttpRequest request, ResponseHandler handler);
    HttpRequest makeRequest(const QByteArray& method, const QUrl& url) const;
    void get(const QUrl& url, ResponseHandler handler, bool followRedirects = true);
    void postForm(const QUrl& url, const Form& form, const QByteArray& authorization, ResponseHandler handler,
        const QByteArray& dpopProof = {});
    void postJson(const QUrl& url, const QJsonObject& body, ResponseHandler handler);

    // The step list (the Auth view). Requests sent while a step runs are recorded in it.
    void beginFlow();
    void beginStep(AuthStep::Kind kind, const QString& title);
    void endStep(AuthStep::Status status, const QString& detail);
    void skipStep(AuthStep::Kind kind, const QString& title, const QString& detail);
    AuthStep* currentStep();

    void startFlow(const BearerChallenge& challenge, bool stepUp, const QString& why);
    void discoverResource(QList<QUrl> candidates);
    void discoverServer(QList<QUrl> candidates);
    void useFallbackEndpoints();
    void afterDiscovery();
    void registerClient();
    void startAuthorization();
    void handleCallback(const QUrlQuery& query);
    void requestToken(const QString& code);
    void requestClientCredentials();
    void requestCrossAppToken();
    void requestJwtBearer(const QString& assertion);
    /// A token endpoint's answer: the new tokens (authorized()), or failed() naming what.
    void takeTokens(const Response& response, const QString& what);
    /// Authenticates the client on form, adds a DPoP proof when wantsDpop(), posts it to the token endpoint
    /// and takes the answer. nonceRetry: this is the one retry after a use_dpop_nonce refusal.
    void postTokenRequest(const Form& form, const QString& what, bool nonceRetry = false);
    // DPoP (RFC 9449, core/auth/oauthdpop.cpp).
    /// Whether the next token request asks for a DPoP-bound token.
    bool wantsDpop() const;
    /// A proof for a POST to the token endpoint, with the authorization server's nonce; makes the key pair
    /// the first time. Empty on failure, with *error set.
    QByteArray tokenRequestProof(QString* error);
    /// An authorization server's "use_dpop_nonce" refusal with a nonce to use (RFC 9449 §8).
    static bool isNonceRefusal(const Response& response);
    /// Takes back the key saveCredentials() stored (base64url of the PEM); an unreadable one is dropped.
    void restoreDpopKey(const QString& stored);
    /// Adds the client authentication the registration uses to form, or returns the Basic header value.
    bool authenticateClient(Form& form, QByteArray* authorization, QString* error) const;
    void revokeNext(QStringList hints);

    QString chooseScope() const;
    QString chooseAuthMethod(bool hasSecret) const;
    QString metadataIssuer() const;
    /// The RFC 8707 resource parameter: the protected resource metadata's resource as published, else the
    /// canonical server URI.
    QString resourceIndicator() const;

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
    bool m_refreshing = false; ///< the token request in flight is a refresh

    // Discovered once.
    bool m_discovered = false;
    QUrl m_resourceMetadataUrl;
    QJsonObject m_resourceMetadata;
    bool m_legacy = false; ///< no Protected Resource Metadata: the 2025-03-26 rules apply
    QUrl m_authServer;
    QString m_authServerIssuer; ///< the authorization_servers entry as published, for the metadata issuer check
    QJsonObject m_serverMetadata; ///< empty when the 2025-03-26 fallback endpoints are used
    QUrl m_authorizationEndpoint;
    QUrl m_tokenEndpoint;
    QUrl m_registrationEndpoint;
    QUrl m_revocationEndpoint;
    OAuthRegistration m_registration;
    QUrl m_registeredRedirectUri; ///< the redirect URI a dynamic registration was made for
    QString m_restoredIssuer; ///< the issuer restored credentials belong to

    QString m_accessToken;
    QString m_refreshToken;
    QString m_grantedScope;
    qint64 m_expiresAt = 0;
    QList<AuthStep> m_steps;

    // DPoP: one key pair per client, kept (and stored) with the tokens it binds.
    QByteArray m_dpopKeyPem; ///< the EC P-256 private key; a secret like the tokens, never logged
    QJsonObject m_dpopJwk; ///< its public half, sent in every proof
    bool m_dpopBound = false; ///< the access token is DPoP-bound (token_type "DPoP")
    bool m_dpopRequested = false; ///< the token request in flight carried a proof
    mutable Dpop::NonceStore m_nonces; ///< servers' DPoP-Nonce values, per origin (noteNonce is const)
};

} // namespace mcpscope
