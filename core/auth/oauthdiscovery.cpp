#include "oauthclient.h"

#include "oauthwire.h"
#include "transport/httpcommon.h"

#include <QJsonArray>

namespace mcpscope {

using OAuthWire::isHttpUrl;
using OAuthWire::oauthErrorText;
using OAuthWire::origin;
using OAuthWire::originWithPath;
using OAuthWire::stringArray;
using OAuthWire::trimmedPath;

void OAuthClient::authorize(const TransportFailure& failure)
{
    const BearerChallenge challenge = BearerChallenge::parse(failure.header("WWW-Authenticate"));
    const bool stepUp = failure.scopeChallenged() || challenge.error == QLatin1String("insufficient_scope");
    const QByteArray header = failure.header("WWW-Authenticate");
    startFlow(challenge, stepUp,
        tr("HTTP %1%2")
            .arg(failure.httpStatus)
            .arg(header.isEmpty() ? tr(", with no WWW-Authenticate challenge")
                                  : QStringLiteral("; WWW-Authenticate: ") + QString::fromUtf8(header)));
}

void OAuthClient::authorize()
{
    startFlow(BearerChallenge {}, false, {});
}

void OAuthClient::startFlow(const BearerChallenge& challenge, bool stepUp, const QString& why)
{
    ++m_generation;
    for (const QPointer<HttpReply>& reply : std::exchange(m_replies, {})) {
        if (reply) {
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
    }
    m_refreshing = false;
    m_challenge = challenge;
    m_stepUp = stepUp;
    beginFlow();
    if (why.isEmpty()) {
        skipStep(AuthStep::Kind::Challenge, tr("Challenge"), tr("Started by hand, without a challenge."));
        Q_EMIT log(tr("Authorizing for '%1'.").arg(m_options.serverName));
    } else {
        beginStep(AuthStep::Kind::Challenge, tr("Challenge"));
        if (AuthStep* step = currentStep())
            step->response = OAuthWire::maskSecrets(why);
        endStep(AuthStep::Status::Ok,
            stepUp ? tr("The server wants more scopes (%1): step-up.").arg(challenge.scope)
                   : tr("The server asked for credentials (%1).").arg(why.section(QLatin1Char(';'), 0, 0)));
        Q_EMIT log(tr("Server '%1' answered %2; authorizing%3.")
                       .arg(m_options.serverName, why.section(QLatin1Char(';'), 0, 0),
                           stepUp ? tr(" with more scopes (step-up)") : QString()));
    }

    // A challenge means the server turned our credentials down: read its protected resource metadata again,
    // since the server may have moved to another authorization server behind the same metadata URL (SEP-2352:
    // credentials belong to one issuer). Only a flow started by hand reuses what was found before.
    if (m_discovered && !why.isEmpty())
        m_discovered = false;
    if (m_discovered) {
        skipStep(AuthStep::Kind::ResourceMetadata, tr("Protected resource metadata"),
            m_legacy ? tr("None (2025-03-26 rules), as found before.")
                     : tr("Known from before: %1").arg(m_resourceMetadataUrl.toString()));
        skipStep(AuthStep::Kind::ServerMetadata, tr("Authorization server metadata"),
            tr("Known from before: %1").arg(m_authServer.toString()));
        afterDiscovery();
        return;
    }
    setState(State::DiscoveringResource);
    beginStep(AuthStep::Kind::ResourceMetadata, tr("Protected resource metadata"));
    discoverResource(resourceMetadataCandidates(m_options.serverUrl, m_challenge.resourceMetadata));
}

QList<QUrl> OAuthClient::resourceMetadataCandidates(const QUrl& server, const QUrl& fromChallenge)
{
    QList<QUrl> candidates;
    if (isHttpUrl(fromChallenge))
        candidates.append(fromChallenge);
    const QString path = trimmedPath(server);
    if (!path.isEmpty())
        candidates.append(originWithPath(server, QStringLiteral("/.well-known/oauth-protected-resource") + path));
    candidates.append(originWithPath(server, QStringLiteral("/.well-known/oauth-protected-resource")));
    return candidates;
}

void OAuthClient::discoverResource(QList<QUrl> candidates)
{
    if (candidates.isEmpty()) {
        // No Protected Resource Metadata: a 2025-03-26 server, which is its own authorization server.
        Q_EMIT log(tr("No protected resource metadata for '%1'; using its origin as the authorization server "
                      "(2025-03-26 rules).")
                       .arg(m_options.serverName));
        endStep(AuthStep::Status::Skipped,
            tr("No URL answered with metadata: a 2025-03-26 server, its own authorization server."));
        m_legacy = true;
        m_resourceMetadataUrl.clear();
        m_resourceMetadata = {};
        m_authServer = origin(m_options.serverUrl);
        setState(State::DiscoveringServer);
        beginStep(AuthStep::Kind::ServerMetadata, tr("Authorization server metadata"));
        discoverServer(serverMetadataCandidates(m_authServer));
        return;
    }
    const QUrl url = candidates.takeFirst();
    Q_EMIT log(tr("Fetching protected resource metadata: %1").arg(url.toString()));
    get(url, [this, url, candidates](const Response& response) {
        if (response.status != 200 || response.json.isEmpty()) {
            discoverResource(candidates);
            return;
        }
        const QJsonObject& prm = response.json;
        const QJsonValue resource = prm.value(QLatin1String("resource"));
        if (resource.isString() && !resourceCovers(QUrl(resource.toString()), m_options.serverUrl)) {
            fail(tr("Server '%1': its protected resource metadata (%2) is for '%3', not for %4; refusing to "
                    "authorize.")
                     .arg(m_options.serverName, url.toString(), resource.toString(),
                         HttpCommon::displayUrl(m_options.serverUrl)));
            return;
        }
        m_legacy = false;
        m_resourceMetadataUrl = url;
        m_resourceMetadata = prm;
        m_authServer = QUrl();
        m_authServerIssuer.clear();
        for (const QString& server : stringArray(prm.value(QLatin1String("authorization_servers")))) {
            if (isHttpUrl(QUrl(server))) {
                m_authServer = QUrl(server);
                m_authServerIssuer = server; // as published: the metadata's issuer must equal it exactly
                break;
            }
        }
        if (!m_authServer.isValid()) {
            fail(tr("Server '%1': its protected resource metadata (%2) names no usable authorization server.")
                     .arg(m_options.serverName, url.toString()));
            return;
        }
        endStep(AuthStep::Status::Ok,
            tr("%1 answered; authorization server %2.").arg(url.toString(), m_authServer.toString()));
        setState(State::DiscoveringServer);
        beginStep(AuthStep::Kind::ServerMetadata, tr("Authorization server metadata"));
        discoverServer(serverMetadataCandidates(m_authServer));
    });
}

QList<QUrl> OAuthClient::serverMetadataCandidates(const QUrl& issuer)
{
    const QString path = trimmedPath(issuer);
    if (path.isEmpty()) {
        return { originWithPath(issuer, QStringLiteral("/.well-known/oauth-authorization-server")),
            originWithPath(issuer, QStringLiteral("/.well-known/openid-configuration")) };
    }
    return { originWithPath(issuer, QStringLiteral("/.well-known/oauth-authorization-server") + path),
        originWithPath(issuer, QStringLiteral("/.well-known/openid-configuration") + path),
        originWithPath(issuer, path + QStringLiteral("/.well-known/openid-configuration")) };
}

void OAuthClient::discoverServer(QList<QUrl> candidates)
{
    if (candidates.isEmpty()) {
        if (m_legacy) {
            useFallbackEndpoints();
            return;
        }
        fail(tr("Server '%1': authorization server %2 publishes no OAuth or OpenID metadata.")
                 .arg(m_options.serverName, m_authServer.toString()));
        return;
    }
    const QUrl url = candidates.takeFirst();
    Q_EMIT log(tr("Fetching authorization server metadata: %1").arg(url.toString()));
    get(url, [this, url, candidates](const Response& response) {
        if (response.status != 200 || response.json.isEmpty()) {
            discoverServer(candidates);
            return;
        }
        // RFC 8414 §3.3 (SEP-2468): metadata whose issuer is not, character for character, the issuer the
        // well-known URL was built from may come from an attacker; nothing of it is used. A 2025-03-26 server
        // names no issuer in protected resource metadata, so there is nothing to compare with.
        const QString published = response.json.value(QLatin1String("issuer")).toString();
        if (!m_legacy && published != m_authServerIssuer) {
            fail(tr("Server '%1': the authorization server metadata at %2 names issuer '%3', not '%4' as the "
                    "protected resource metadata says; refusing to use it.")
                     .arg(m_options.serverName, url.toString(), published, m_authServerIssuer));
            return;
        }
        m_serverMetadata = response.json;
        m_authorizationEndpoint = QUrl(m_serverMetadata.value(QLatin1String("authorization_endpoint")).toString());
        m_tokenEndpoint = QUrl(m_serverMetadata.value(QLatin1String("token_endpoint")).toString());
        m_registrationEndpoint = QUrl(m_serverMetadata.value(QLatin1String("registration_endpoint")).toString());
        m_revocationEndpoint = QUrl(m_serverMetadata.value(QLatin1String("revocation_endpoint")).toString());
        const bool needsAuthorizationEndpoint = m_options.grant == Grant::AuthorizationCode;
        if ((needsAuthorizationEndpoint && !isHttpUrl(m_authorizationEndpoint)) || !isHttpUrl(m_tokenEndpoint)) {
            fail(tr("Server '%1': the authorization server metadata at %2 lacks a usable authorization_endpoint or "
                    "token_endpoint.")
                     .arg(m_options.serverName, url.toString()));
            return;
        }
        // MCP makes PKCE mandatory; a server that does not say it supports S256 cannot be trusted with it.
        if (needsAuthorizationEndpoint
            && !stringArray(m_serverMetadata.value(QLatin1String("code_challenge_methods_supported")))
                    .contains(QLatin1String("S256"))) {
            fail(tr("Server '%1': the authorization server metadata at %2 does not list S256 in "
                    "code_challenge_methods_supported, so PKCE cannot be used; refusing to authorize.")
                     .arg(m_options.serverName, url.toString()));
            return;
        }
        // Credentials belong to one issuer: another one means registering again (MCP-NOTES 2026-07-28).
        const QString issuer = metadataIssuer();
        if (!m_restoredIssuer.isEmpty() && issuer != m_restoredIssuer) {
            Q_EMIT log(tr("Server '%1' now uses authorization server %2 instead of %3; registering again.")
                           .arg(m_options.serverName, issuer, m_restoredIssuer));
            if (m_registration.source != OAuthRegistration::Source::PreRegistered)
                m_registration = {};
            m_accessToken.clear();
            m_refreshToken.clear();
            m_expiresAt = 0;
        }
        m_restoredIssuer = issuer;
        endStep(AuthStep::Status::Ok, tr("%1 answered; issuer %2.").arg(url.toString(), issuer));
        m_discovered = true;
        afterDiscovery();
    });
}

void OAuthClient::useFallbackEndpoints()
{
    // 2025-03-26: without metadata, the endpoints sit at fixed paths under the server's origin.
    m_serverMetadata = {};
    m_authorizationEndpoint = originWithPath(m_authServer, QStringLiteral("/authorize"));
    m_tokenEndpoint = originWithPath(m_authServer, QStringLiteral("/token"));
    m_registrationEndpoint = originWithPath(m_authServer, QStringLiteral("/register"));
    m_revocationEndpoint.clear();
    Q_EMIT log(tr("No authorization server metadata for '%1'; using the default endpoints under %2.")
                   .arg(m_options.serverName, m_authServer.toString()));
    endStep(AuthStep::Status::Skipped,
        tr("No metadata: the 2025-03-26 default endpoints under %1.").arg(m_authServer.toString()));
    m_discovered = true;
    afterDiscovery();
}

void OAuthClient::afterDiscovery()
{
    switch (m_options.grant) {
    case Grant::AuthorizationCode:
        registerClient();
        return;
    case Grant::ClientCredentials:
        skipStep(AuthStep::Kind::Registration, tr("Client registration"),
            tr("Pre-registered client '%1' (client_credentials).").arg(m_options.clientId));
        requestClientCredentials();
        return;
    case Grant::CrossApp:
        skipStep(AuthStep::Kind::Registration, tr("Client registration"),
            tr("Pre-registered client '%1' (cross-app access).").arg(m_options.clientId));
        requestCrossAppToken();
        return;
    case Grant::JwtBearer:
        skipStep(AuthStep::Kind::Registration, tr("Client registration"),
            tr("Pre-registered client '%1' (workload identity).").arg(m_options.clientId));
        setState(State::RequestingToken);
        m_requestedScope = chooseScope();
        requestJwtBearer(m_options.workloadJwt);
        return;
    }
}

QString OAuthClient::chooseAuthMethod(bool hasSecret) const
{
    QStringList supported = stringArray(m_serverMetadata.value(QLatin1String("token_endpoint_auth_methods_supported")));
    if (supported.isEmpty())
        supported = { QStringLiteral("client_secret_basic") }; // the RFC 8414 default
    if (!hasSecret)
        return QStringLiteral("none");
    for (const char* method : { "client_secret_basic", "client_secret_post", "none" }) {
        if (supported.contains(QLatin1String(method)))
            return QString::fromLatin1(method);
    }
    return QStringLiteral("client_secret_basic");
}

void OAuthClient::registerClient()
{
    if (m_registration.isValid()) {
        skipStep(AuthStep::Kind::Registration, tr("Client registration"),
            tr("Registered before as client '%1'.").arg(m_registration.clientId));
        startAuthorization();
        return;
    }
    setState(State::Registering);
    beginStep(AuthStep::Kind::Registration, tr("Client registration"));
    if (!m_options.clientId.isEmpty()) {
        m_registration.source = OAuthRegistration::Source::PreRegistered;
        m_registration.clientId = m_options.clientId;
        m_registration.clientSecret = m_options.clientSecret;
        m_registration.tokenEndpointAuthMethod = chooseAuthMethod(!m_options.clientSecret.isEmpty());
        Q_EMIT log(tr("Using the pre-registered client id '%1' (%2).")
                       .arg(m_registration.clientId, m_registration.tokenEndpointAuthMethod));
        endStep(AuthStep::Status::Ok,
            tr("Pre-registered client '%1' (%2).")
                .arg(m_registration.clientId, m_registration.tokenEndpointAuthMethod));
        startAuthorization();
        return;
    }
    if (m_serverMetadata.value(QLatin1String("client_id_metadata_document_supported")).toBool()
        && isHttpUrl(m_options.clientMetadataUrl)) {
        m_registration.source = OAuthRegistration::Source::MetadataDocument;
        m_registration.clientId = m_options.clientMetadataUrl.toString(QUrl::FullyEncoded);
        m_registration.tokenEndpointAuthMethod = QStringLiteral("none");
        Q_EMIT log(tr("Using the client ID metadata document %1 as the client id.").arg(m_registration.clientId));
        endStep(AuthStep::Status::Ok, tr("Client ID Metadata Document %1.").arg(m_registration.clientId));
        startAuthorization();
        return;
    }
    if (!isHttpUrl(m_registrationEndpoint)) {
        fail(tr("Server '%1': authorization server %2 offers no dynamic client registration and no client id is "
                "configured; register McpScope there and enter its client id (Edit client credentials).")
                 .arg(m_options.serverName, m_authServer.toString()));
        return;
    }
    // A native app cannot keep a secret: ask to be a public client when the server allows it.
    const QStringList supported
        = stringArray(m_serverMetadata.value(QLatin1String("token_endpoint_auth_methods_supported")));
    QString requested = QStringLiteral("none");
    if (!supported.isEmpty() && !supported.contains(requested))
        requested = chooseAuthMethod(true);
    const QUrl redirectUri = m_options.redirectUri;
    const QJsonObject body {
        { QStringLiteral("client_name"), m_options.clientName },
        { QStringLiteral("redirect_uris"), QJsonArray { redirectUri.toString(QUrl::FullyEncoded) } },
        { QStringLiteral("grant_types"),
            QJsonArray { QStringLiteral("authorization_code"), QStringLiteral("refresh_token") } },
        { QStringLiteral("response_types"), QJsonArray { QStringLiteral("code") } },
        { QStringLiteral("token_endpoint_auth_method"), requested },
        // A desktop app with a loopback redirect (OpenID Connect Dynamic Registration, MCP 2026-07-28).
        { QStringLiteral("application_type"), QStringLiteral("native") },
    };
    Q_EMIT log(tr("Registering with %1").arg(m_registrationEndpoint.toString()));
    postJson(m_registrationEndpoint, body, [this, requested, redirectUri](const Response& response) {
        const QString clientId = response.json.value(QLatin1String("client_id")).toString();
        if ((response.status != 200 && response.status != 201) || clientId.isEmpty()) {
            fail(tr("Server '%1': dynamic client registration at %2 failed (%3): %4")
                     .arg(m_options.serverName, m_registrationEndpoint.toString())
                     .arg(response.status ? QString::number(response.status) : response.networkError)
                     .arg(oauthErrorText(response.json, response.body)));
            return;
        }
        m_registration.source = OAuthRegistration::Source::Dynamic;
        m_registration.clientId = clientId;
        m_registration.clientSecret = response.json.value(QLatin1String("client_secret")).toString();
        const QString method = response.json.value(QLatin1String("token_endpoint_auth_method")).toString();
        if (!method.isEmpty())
            m_registration.tokenEndpointAuthMethod = method;
        else if (!m_registration.clientSecret.isEmpty())
            m_registration.tokenEndpointAuthMethod = chooseAuthMethod(true);
        else
            m_registration.tokenEndpointAuthMethod = requested;
        m_registeredRedirectUri = redirectUri;
        Q_EMIT log(
            tr("Registered as client '%1' (%2).").arg(m_registration.clientId, m_registration.tokenEndpointAuthMethod));
        endStep(AuthStep::Status::Ok,
            tr("Registered dynamically at %1 as client '%2' (%3).")
                .arg(m_registrationEndpoint.toString(), m_registration.clientId,
                    m_registration.tokenEndpointAuthMethod));
        Q_EMIT credentialsChanged();
        startAuthorization();
    });
}

} // namespace mcpscope
