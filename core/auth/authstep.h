#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace mcpscope {

/// One step of an authorization flow, as the Auth view shows it (issue 13's step list). Every text in
/// here has had its secrets (tokens, codes, verifiers, client secrets, assertions) masked by OAuthClient
/// before it was stored, and passes the engine's Redactor again before it is shown.
struct AuthStep
{
    enum class Kind {
        Challenge, ///< the 401 / 403 that started the flow
        ResourceMetadata, ///< Protected Resource Metadata discovery (RFC 9728)
        ServerMetadata, ///< authorization server metadata (RFC 8414 / OpenID)
        Registration, ///< pre-registered, Client ID Metadata Document or DCR
        Authorize, ///< the authorization request (full URL and scopes)
        Callback, ///< the redirect back to us: code, state, iss
        Token, ///< the token request (authorization_code, client_credentials, token exchange, jwt-bearer)
        Refresh, ///< a refresh_token grant
        Revoke, ///< RFC 7009 revocation
        Retry, ///< the request retried with the new credentials
    };
    enum class Status { Running, Ok, Failed, Skipped };

    Kind kind = Kind::Challenge;
    Status status = Status::Running;
    QString title; ///< "PRM discovery"
    QString detail; ///< plain words: what happened, or why it failed
    QStringList urlsTried; ///< "GET https://…/.well-known/oauth-protected-resource/mcp → 404", in order
    QString request; ///< the request as text (method, URL, headers, body), secrets masked
    QString response; ///< the response as text (status, headers, body), secrets masked
    qint64 startedAt = 0; ///< ms since the epoch
    qint64 endedAt = 0;

    static QString kindName(Kind kind); ///< "challenge", "resource_metadata", …
    static QString statusName(Status status); ///< "running", "ok", "failed", "skipped"
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::AuthStep)
