// OAuthClient's token side: the grants (authorization code, refresh, client credentials, cross-app
// token exchange + jwt-bearer), client authentication, revocation and what the token store keeps.

#include "jwt.h"
#include "oauthclient.h"
#include "oauthwire.h"

#include <QJsonDocument>

namespace mcpscope {

using OAuthWire::isHttpUrl;
using OAuthWire::oauthErrorText;
using OAuthWire::stringArray;

namespace {
constexpr qint64 DefaultExpiresInSeconds = 3600; // RECOVERY.md §4 (cloudflare-os)
constexpr int CredentialsVersion = 1;

const QString TokenExchangeGrant = QStringLiteral("urn:ietf:params:oauth:grant-type:token-exchange");
const QString JwtBearerGrant = QStringLiteral("urn:ietf:params:oauth:grant-type:jwt-bearer");
const QString JwtBearerAssertionType = QStringLiteral("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");

QString statusText(int status, const QString& networkError)
{
    return status ? QString::number(status) : networkError;
}

/// The authorization server itself refused (RFC 6749 §5.2): a 400 or 401 with an OAuth error code. Only
/// that ends credentials; a network error or a 5xx says nothing about them (RECOVERY.md §4).
bool isVerdict(int status, const QJsonObject& json)
{
    return (status == 400 || status == 401) && json.value(QLatin1String("error")).isString();
}
} // namespace

QString OAuthClient::metadataIssuer() const
{
    const QString issuer = m_serverMetadata.value(QLatin1String("issuer")).toString();
    return issuer.isEmpty() ? m_authServer.toString() : issuer;
}

QString OAuthClient::resourceIndicator() const
{
    // RFC 8707 with RFC 9728 §3.3: the identifier exactly as the protected resource metadata publishes it
    // (a pathless "https://host" stays without "/"); without such metadata, the server's canonical URI.
    const QJsonValue published = m_resourceMetadata.value(QLatin1String("resource"));
    if (!m_legacy && published.isString() && !published.toString().isEmpty())
        return published.toString();
    return canonicalResource(m_options.serverUrl);
}

QString OAuthClient::issuer() const
{
    return m_discovered ? metadataIssuer() : m_restoredIssuer;
}

bool OAuthClient::authenticateClient(Form& form, QByteArray* authorization, QString* error) const
{
    const QString& clientId = m_registration.clientId;
    if (!m_options.clientKeyPem.isEmpty() && m_options.grant == Grant::ClientCredentials) {
        // private_key_jwt (RFC 7523 §2.2): a short-lived assertion signed with the client's key.
        const QByteArray assertion
            = Jwt::clientAssertion(clientId, metadataIssuer(), m_options.clientKeyPem, now() / 1000, error);
        if (assertion.isEmpty())
            return false;
        form.append({ QStringLiteral("client_id"), clientId });
        form.append({ QStringLiteral("client_assertion_type"), JwtBearerAssertionType });
        form.append({ QStringLiteral("client_assertion"), QString::fromLatin1(assertion) });
        return true;
    }
    const QString& method = m_registration.tokenEndpointAuthMethod;
    const QString& secret = m_registration.clientSecret;
    if (method == QLatin1String("client_secret_basic") && !secret.isEmpty()) {
        // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
        const QByteArray credentials = QUrl::toPercentEncoding(clientId) + ':' + QUrl::toPercentEncoding(secret);
        *authorization = QByteArrayLiteral("Basic ") + credentials.toBase64();
        return true;
    }
    form.append({ QStringLiteral("client_id"), clientId });
    if (method == QLatin1String("client_secret_post") && !secret.isEmpty())
        form.append({ QStringLiteral("client_secret"), secret });
    return true;
}

void OAuthClient::postTokenRequest(const Form& form, const QString& what, bool nonceRetry)
{
    // Authenticated afresh on every send: a private_key_jwt assertion's jti must not be sent twice.
    Form sent = form;
    QByteArray authorization;
    QString error;
    if (!authenticateClient(sent, &authorization, &error)) {
        fail(tr("Server '%1': %2").arg(m_options.serverName, error));
        return;
    }
    m_dpopRequested = wantsDpop();
    QByteArray proof;
    if (m_dpopRequested) {
        proof = tokenRequestProof(&error);
        if (proof.isEmpty()) {
            fail(tr("Server '%1': no DPoP proof for the token request: %2").arg(m_options.serverName, error));
            return;
        }
    }
    postForm(
        m_tokenEndpoint, sent, authorization,
        [this, form, what, nonceRetry](const Response& response) {
            // RFC 9449 §8: the authorization server refused the request before running the grant (the code
            // is not spent) and named the nonce the proof must carry. This is a bounded protocol retry,
            // once, of a request the server did not run; a second refusal is the answer.
            if (!nonceRetry && m_dpopRequested && isNonceRefusal(response)) {
                Q_EMIT log(tr("The token endpoint %1 asks for a DPoP nonce; sending the token request again with "
                              "it.")
                               .arg(m_tokenEndpoint.toString()));
                postTokenRequest(form, what, true);
                return;
            }
            takeTokens(response, what);
        },
        proof);
}

void OAuthClient::requestToken(const QString& code)
{
    setState(State::RequestingToken);
    beginStep(AuthStep::Kind::Token, tr("Token request"));
    Form form {
        { QStringLiteral("grant_type"), QStringLiteral("authorization_code") },
        { QStringLiteral("code"), code },
        { QStringLiteral("redirect_uri"), m_options.redirectUri.toString(QUrl::FullyEncoded) },
        { QStringLiteral("code_verifier"), QString::fromLatin1(m_codeVerifier) },
        { QStringLiteral("resource"), resourceIndicator() },
    };
    Q_EMIT log(
        tr("Requesting a token at %1 (%2)").arg(m_tokenEndpoint.toString(), m_registration.tokenEndpointAuthMethod));
    postTokenRequest(form, tr("the token request"));
}

void OAuthClient::requestClientCredentials()
{
    setState(State::RequestingToken);
    beginStep(AuthStep::Kind::Token, tr("Token request (client_credentials)"));
    if (m_options.clientId.isEmpty() || (m_options.clientSecret.isEmpty() && m_options.clientKeyPem.isEmpty())) {
        fail(tr("Server '%1': the client_credentials grant needs a client id with a client secret or a private key "
                "(Edit client credentials, or --client-id with --client-secret or --client-key).")
                 .arg(m_options.serverName));
        return;
    }
    m_registration.source = OAuthRegistration::Source::PreRegistered;
    m_registration.clientId = m_options.clientId;
    m_registration.clientSecret = m_options.clientSecret;
    m_registration.tokenEndpointAuthMethod
        = !m_options.clientKeyPem.isEmpty() ? QStringLiteral("private_key_jwt") : chooseAuthMethod(true);
    Form form { { QStringLiteral("grant_type"), QStringLiteral("client_credentials") },
        { QStringLiteral("resource"), resourceIndicator() } };
    m_requestedScope = chooseScope();
    if (!m_requestedScope.isEmpty())
        form.append({ QStringLiteral("scope"), m_requestedScope });
    Q_EMIT log(tr("Requesting a client_credentials token at %1 (%2)")
                   .arg(m_tokenEndpoint.toString(), m_registration.tokenEndpointAuthMethod));
    postTokenRequest(std::move(form), tr("the client_credentials token request"));
}

void OAuthClient::requestCrossAppToken()
{
    // SEP-990 (Enterprise-managed authorization): the IdP's ID token is exchanged at the IdP for an
    // identity assertion grant (ID-JAG, RFC 8693) for this authorization server and resource, which the
    // authorization server then takes as a jwt-bearer grant (RFC 7523).
    setState(State::RequestingToken);
    beginStep(AuthStep::Kind::Token, tr("Token exchange at the identity provider"));
    const QJsonObject& idp = m_options.crossApp;
    const QUrl idpTokenEndpoint(idp.value(QLatin1String("idp_token_endpoint")).toString());
    const QString idToken = idp.value(QLatin1String("idp_id_token")).toString();
    if (!isHttpUrl(idpTokenEndpoint) || idToken.isEmpty()) {
        fail(tr("Server '%1': cross-app access needs the identity provider's token endpoint and an ID token.")
                 .arg(m_options.serverName));
        return;
    }
    Form form {
        { QStringLiteral("grant_type"), TokenExchangeGrant },
        { QStringLiteral("requested_token_type"), QStringLiteral("urn:ietf:params:oauth:token-type:id-jag") },
        { QStringLiteral("subject_token"), idToken },
        { QStringLiteral("subject_token_type"), QStringLiteral("urn:ietf:params:oauth:token-type:id_token") },
        { QStringLiteral("audience"), metadataIssuer() },
        { QStringLiteral("resource"), resourceIndicator() },
    };
    const QString idpClient = idp.value(QLatin1String("idp_client_id")).toString();
    if (!idpClient.isEmpty())
        form.append({ QStringLiteral("client_id"), idpClient });
    m_requestedScope = chooseScope();
    if (!m_requestedScope.isEmpty())
        form.append({ QStringLiteral("scope"), m_requestedScope });
    Q_EMIT log(tr("Exchanging the ID token at %1 for an identity assertion grant").arg(idpTokenEndpoint.toString()));
    postForm(idpTokenEndpoint, form, {}, [this, idpTokenEndpoint](const Response& response) {
        const QString assertion = response.json.value(QLatin1String("access_token")).toString();
        if (response.status != 200 || assertion.isEmpty()) {
            fail(tr("Server '%1': the token exchange at %2 failed (%3): %4")
                     .arg(m_options.serverName, idpTokenEndpoint.toString(),
                         statusText(response.status, response.networkError),
                         oauthErrorText(response.json, response.body)));
            return;
        }
        endStep(AuthStep::Status::Ok, tr("The identity provider issued an identity assertion grant."));
        requestJwtBearer(assertion);
    });
}

void OAuthClient::requestJwtBearer(const QString& assertion)
{
    beginStep(AuthStep::Kind::Token, tr("Token request (jwt-bearer)"));
    m_registration.source = OAuthRegistration::Source::PreRegistered;
    m_registration.clientId = m_options.clientId;
    m_registration.clientSecret = m_options.clientSecret;
    m_registration.tokenEndpointAuthMethod = chooseAuthMethod(!m_options.clientSecret.isEmpty());
    Form form { { QStringLiteral("grant_type"), JwtBearerGrant }, { QStringLiteral("assertion"), assertion },
        { QStringLiteral("resource"), resourceIndicator() } };
    if (!m_requestedScope.isEmpty())
        form.append({ QStringLiteral("scope"), m_requestedScope });
    postTokenRequest(std::move(form), tr("the jwt-bearer token request"));
}

void OAuthClient::takeTokens(const Response& response, const QString& what)
{
    const bool refreshing = std::exchange(m_refreshing, false);
    const QString token = response.json.value(QLatin1String("access_token")).toString();
    if (response.status != 200 || token.isEmpty()) {
        const QString message
            = tr("Server '%1': %2 to %3 failed (%4): %5")
                  .arg(m_options.serverName, what, m_tokenEndpoint.toString(),
                      statusText(response.status, response.networkError), oauthErrorText(response.json, response.body));
        if (refreshing && isVerdict(response.status, response.json)) {
            // The authorization server's verdict: these credentials are over; only a new authorization helps.
            m_accessToken.clear();
            m_refreshToken.clear();
            m_expiresAt = 0;
            ++m_generation;
            m_lastError = message;
            endStep(AuthStep::Status::Failed, message);
            setState(State::Expired);
            Q_EMIT credentialsChanged();
            Q_EMIT expired(message);
            return;
        }
        if (refreshing && hasToken()) {
            // A network error or a 5xx: the token is kept, the refresh is tried again later.
            ++m_generation;
            m_lastError = message;
            endStep(AuthStep::Status::Failed, message + tr(" The current token is kept."));
            setState(State::Authorized);
            Q_EMIT failed(message);
            return;
        }
        fail(message);
        return;
    }
    const QString type = response.json.value(QLatin1String("token_type")).toString();
    // RFC 9449 §5: "DPoP" (any case) is a token bound to the key of the proof we sent.
    const bool dpop = type.compare(QLatin1String("dpop"), Qt::CaseInsensitive) == 0;
    if (dpop && !m_dpopRequested) {
        fail(tr("Server '%1': the token endpoint issued a DPoP token to a request that carried no DPoP proof.")
                 .arg(m_options.serverName));
        return;
    }
    if (!type.isEmpty() && !dpop && type.compare(QLatin1String("bearer"), Qt::CaseInsensitive) != 0) {
        fail(tr("Server '%1': the token endpoint issued a '%2' token; MCP needs a Bearer or a DPoP token.")
                 .arg(m_options.serverName, type));
        return;
    }
    m_dpopBound = dpop;
    m_accessToken = token;
    const QString refresh = response.json.value(QLatin1String("refresh_token")).toString();
    if (!refresh.isEmpty())
        m_refreshToken = refresh; // refresh tokens rotate: always keep the newest
    const QJsonValue expiresIn = response.json.value(QLatin1String("expires_in"));
    const qint64 seconds
        = expiresIn.isDouble() && expiresIn.toDouble() > 0 ? qint64(expiresIn.toDouble()) : DefaultExpiresInSeconds;
    m_expiresAt = now() + seconds * 1000;
    const QString scope = response.json.value(QLatin1String("scope")).toString();
    m_grantedScope = scope.isEmpty() ? m_requestedScope : scope;
    Q_EMIT log(tr("Authorized for '%1'.").arg(m_options.serverName));
    endStep(AuthStep::Status::Ok,
        tr("A %1 token arrived, valid for %2 s%3%4.")
            .arg(dpop ? tr("DPoP-bound") : tr("bearer"))
            .arg(seconds)
            .arg(expiresIn.isDouble() ? QString() : tr(" (no expires_in: 3600 s assumed)"))
            .arg(refresh.isEmpty() ? QString() : tr(", with a refresh token")));
    setState(State::Authorized);
    Q_EMIT credentialsChanged();
    Q_EMIT authorized();
}

bool OAuthClient::canRefresh() const
{
    return m_options.grant == Grant::ClientCredentials || !m_refreshToken.isEmpty();
}

void OAuthClient::refresh()
{
    if (m_options.grant == Grant::ClientCredentials && m_discovered) {
        beginFlow();
        requestClientCredentials();
        return;
    }
    if (m_refreshToken.isEmpty() || !isHttpUrl(m_tokenEndpoint)) {
        authorize();
        return;
    }
    ++m_generation;
    beginFlow();
    setState(State::Refreshing);
    beginStep(AuthStep::Kind::Refresh, tr("Refresh"));
    m_refreshing = true;
    Form form { { QStringLiteral("grant_type"), QStringLiteral("refresh_token") },
        { QStringLiteral("refresh_token"), m_refreshToken }, { QStringLiteral("resource"), resourceIndicator() } };
    Q_EMIT log(tr("Refreshing the token at %1").arg(m_tokenEndpoint.toString()));
    postTokenRequest(std::move(form), tr("the refresh"));
}

void OAuthClient::forgetTokens()
{
    ++m_generation;
    m_refreshing = false;
    beginFlow();
    setState(State::Revoking);
    QStringList hints;
    // The refresh token first: revoking it ends the whole grant at most servers (RFC 7009 §2.1).
    if (!m_refreshToken.isEmpty())
        hints.append(QStringLiteral("refresh_token"));
    if (!m_accessToken.isEmpty())
        hints.append(QStringLiteral("access_token"));
    if (hints.isEmpty() || !isHttpUrl(m_revocationEndpoint)) {
        skipStep(AuthStep::Kind::Revoke, tr("Revocation"),
            hints.isEmpty() ? tr("There were no tokens to revoke.")
                            : tr("The authorization server has no revocation endpoint; the tokens were forgotten "
                                 "here and stay valid there until they expire."));
        hints.clear();
    } else {
        beginStep(AuthStep::Kind::Revoke, tr("Revocation"));
    }
    revokeNext(hints);
}

void OAuthClient::revokeNext(QStringList hints)
{
    if (hints.isEmpty()) {
        if (AuthStep* step = currentStep()) {
            // A refused revocation already said why in the detail; that must survive the end of the step.
            if (step->urlsTried.isEmpty()) {
                step->status = AuthStep::Status::Skipped;
            } else if (step->detail.isEmpty()) {
                step->status = AuthStep::Status::Ok;
                step->detail = tr("Revoked at %1; the tokens are forgotten.").arg(m_revocationEndpoint.toString());
            } else {
                step->status = AuthStep::Status::Failed;
            }
            step->endedAt = now();
        }
        m_accessToken.clear();
        m_refreshToken.clear();
        m_expiresAt = 0;
        m_grantedScope.clear();
        setState(State::Idle);
        Q_EMIT stepsChanged();
        Q_EMIT credentialsChanged();
        Q_EMIT revoked();
        return;
    }
    const QString hint = hints.takeFirst();
    Form form { { QStringLiteral("token"), hint == QLatin1String("refresh_token") ? m_refreshToken : m_accessToken },
        { QStringLiteral("token_type_hint"), hint } };
    QByteArray authorization;
    QString error;
    if (!authenticateClient(form, &authorization, &error)) {
        endStep(AuthStep::Status::Failed, error);
        revokeNext({});
        return;
    }
    Q_EMIT log(tr("Revoking the %1 at %2").arg(hint, m_revocationEndpoint.toString()));
    postForm(m_revocationEndpoint, form, authorization, [this, hints](const Response& response) {
        if (response.status != 200 && currentStep()) {
            // Forgotten here either way; the step says the server may still honour it.
            currentStep()->detail = tr("The revocation answered %1: %2; the tokens are forgotten here anyway.")
                                        .arg(statusText(response.status, response.networkError),
                                            oauthErrorText(response.json, response.body));
        }
        revokeNext(hints);
    });
}

QString OAuthClient::credentialsKey() const
{
    return credentialsKeyFor(m_options.serverUrl);
}

QString OAuthClient::credentialsKeyFor(const QUrl& serverUrl)
{
    return QStringLiteral("oauth/") + canonicalResource(serverUrl);
}

QStringList OAuthClient::secretsIn(const QByteArray& saved)
{
    const QJsonObject json = QJsonDocument::fromJson(saved).object();
    const QJsonObject tokens = json.value(QLatin1String("tokens")).toObject();
    QStringList secrets { tokens.value(QLatin1String("accessToken")).toString(),
        tokens.value(QLatin1String("refreshToken")).toString(),
        json.value(QLatin1String("registration")).toObject().value(QLatin1String("clientSecret")).toString() };
    // The DPoP private key as stored (one base64url line), as PEM and as the PEM's base64 lines, which is
    // how a PEM looks inside JSON text.
    const QString storedKey = json.value(QLatin1String("dpop")).toObject().value(QLatin1String("key")).toString();
    if (!storedKey.isEmpty()) {
        const QString pem = QString::fromLatin1(QByteArray::fromBase64(
            storedKey.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
        secrets.append(storedKey);
        secrets.append(pem.trimmed());
        const QStringList lines = pem.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString& line : lines) {
            if (!line.startsWith(QLatin1String("-----")))
                secrets.append(line.trimmed());
        }
    }
    secrets.removeAll(QString());
    return secrets;
}

QByteArray OAuthClient::saveCredentials() const
{
    const QJsonObject registration {
        { QStringLiteral("source"), int(m_registration.source) },
        { QStringLiteral("clientId"), m_registration.clientId },
        { QStringLiteral("clientSecret"), m_registration.clientSecret },
        { QStringLiteral("tokenEndpointAuthMethod"), m_registration.tokenEndpointAuthMethod },
        { QStringLiteral("redirectUri"), m_registeredRedirectUri.toString(QUrl::FullyEncoded) },
    };
    const QJsonObject discovery {
        { QStringLiteral("resourceMetadataUrl"), m_resourceMetadataUrl.toString(QUrl::FullyEncoded) },
        { QStringLiteral("resourceMetadata"), m_resourceMetadata },
        { QStringLiteral("legacy"), m_legacy },
        { QStringLiteral("authServer"), m_authServer.toString(QUrl::FullyEncoded) },
        { QStringLiteral("serverMetadata"), m_serverMetadata },
        { QStringLiteral("authorizationEndpoint"), m_authorizationEndpoint.toString(QUrl::FullyEncoded) },
        { QStringLiteral("tokenEndpoint"), m_tokenEndpoint.toString(QUrl::FullyEncoded) },
        { QStringLiteral("registrationEndpoint"), m_registrationEndpoint.toString(QUrl::FullyEncoded) },
        { QStringLiteral("revocationEndpoint"), m_revocationEndpoint.toString(QUrl::FullyEncoded) },
    };
    const QJsonObject tokens {
        { QStringLiteral("accessToken"), m_accessToken },
        { QStringLiteral("refreshToken"), m_refreshToken },
        { QStringLiteral("expiresAt"), m_expiresAt },
        { QStringLiteral("scope"), m_grantedScope },
        { QStringLiteral("tokenType"), m_dpopBound ? QStringLiteral("DPoP") : QStringLiteral("Bearer") },
    };
    QJsonObject saved {
        { QStringLiteral("version"), CredentialsVersion },
        { QStringLiteral("resource"), canonicalResource(m_options.serverUrl) },
        { QStringLiteral("issuer"), issuer() },
        { QStringLiteral("discovered"), m_discovered },
        { QStringLiteral("registration"), registration },
        { QStringLiteral("discovery"), discovery },
        { QStringLiteral("tokens"), tokens },
    };
    if (!m_dpopKeyPem.isEmpty())
        saved.insert(QStringLiteral("dpop"),
            QJsonObject { { QStringLiteral("key"), QString::fromLatin1(OAuthWire::base64Url(m_dpopKeyPem)) } });
    return QJsonDocument(saved).toJson(QJsonDocument::Compact);
}

bool OAuthClient::restoreCredentials(const QByteArray& saved)
{
    const QJsonObject json = QJsonDocument::fromJson(saved).object();
    if (json.value(QLatin1String("version")).toInt() != CredentialsVersion
        || json.value(QLatin1String("resource")).toString() != canonicalResource(m_options.serverUrl))
        return false;
    const QJsonObject registration = json.value(QLatin1String("registration")).toObject();
    const QJsonObject discovery = json.value(QLatin1String("discovery")).toObject();
    const QJsonObject tokens = json.value(QLatin1String("tokens")).toObject();
    m_restoredIssuer = json.value(QLatin1String("issuer")).toString();
    m_discovered = json.value(QLatin1String("discovered")).toBool();
    m_resourceMetadataUrl = QUrl(discovery.value(QLatin1String("resourceMetadataUrl")).toString());
    m_resourceMetadata = discovery.value(QLatin1String("resourceMetadata")).toObject();
    m_legacy = discovery.value(QLatin1String("legacy")).toBool();
    m_authServer = QUrl(discovery.value(QLatin1String("authServer")).toString());
    m_serverMetadata = discovery.value(QLatin1String("serverMetadata")).toObject();
    m_authorizationEndpoint = QUrl(discovery.value(QLatin1String("authorizationEndpoint")).toString());
    m_tokenEndpoint = QUrl(discovery.value(QLatin1String("tokenEndpoint")).toString());
    m_registrationEndpoint = QUrl(discovery.value(QLatin1String("registrationEndpoint")).toString());
    m_revocationEndpoint = QUrl(discovery.value(QLatin1String("revocationEndpoint")).toString());
    const auto source = OAuthRegistration::Source(registration.value(QLatin1String("source")).toInt());
    const QString clientId = registration.value(QLatin1String("clientId")).toString();
    const QString method = registration.value(QLatin1String("tokenEndpointAuthMethod")).toString();
    if (source != OAuthRegistration::Source::PreRegistered) {
        m_registration = { source, clientId, registration.value(QLatin1String("clientSecret")).toString(), method };
        m_registeredRedirectUri = QUrl(registration.value(QLatin1String("redirectUri")).toString());
    } else if (clientId == m_options.clientId) {
        // Pre-registered credentials come from the configuration (its secret from the keychain entry of
        // the client), which wins if it changed since.
        m_registration = { source, clientId, m_options.clientSecret, method };
    }
    m_accessToken = tokens.value(QLatin1String("accessToken")).toString();
    m_refreshToken = tokens.value(QLatin1String("refreshToken")).toString();
    m_expiresAt = qint64(tokens.value(QLatin1String("expiresAt")).toDouble());
    m_grantedScope = tokens.value(QLatin1String("scope")).toString();
    m_requestedScope = m_grantedScope;
    restoreDpopKey(json.value(QLatin1String("dpop")).toObject().value(QLatin1String("key")).toString());
    m_dpopBound = !m_dpopJwk.isEmpty()
        && tokens.value(QLatin1String("tokenType")).toString().compare(QLatin1String("DPoP"), Qt::CaseInsensitive) == 0;
    if (hasToken())
        setState(State::Authorized);
    return true;
}

} // namespace mcpscope
