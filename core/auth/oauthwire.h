#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrl>

// Internal to core/auth: the URL, form and JSON helpers that the OAuth client's discovery and token files share.

namespace mcpscope::OAuthWire {

/// base64url without padding (RFC 4648 §5), as PKCE and JWTs use it.
QByteArray base64Url(const QByteArray& bytes);
/// count bytes from the system's cryptographically secure generator.
QByteArray randomBytes(int count);
/// application/x-www-form-urlencoded, '+' included.
QByteArray formEncode(const QList<QPair<QString, QString>>& pairs);
/// url with pairs appended to its query, form-encoded.
QUrl withQuery(QUrl url, const QList<QPair<QString, QString>>& pairs);
QUrl origin(const QUrl& url);
/// The path without trailing slashes.
QString trimmedPath(const QUrl& url);
QUrl originWithPath(const QUrl& url, const QString& path);
/// An http or https URL with a host.
bool isHttpUrl(const QUrl& url);
/// A space-separated scope string as a list.
QStringList scopeList(const QString& scope);
/// The string items of a JSON array; anything else is skipped.
QStringList stringArray(const QJsonValue& value);
/// An OAuth error answer (RFC 6749 §5.2) as text: "error: description", or the start of the body.
QString oauthErrorText(const QJsonObject& json, const QByteArray& body);
/// The OAuth parameters whose values are secrets: tokens, codes, verifiers, client secrets, assertions.
const QStringList& secretParameters();
/// text (a JSON body, a form body, a URL or header lines) with the value of every secretParameters() and
/// every Authorization / Proxy-Authorization / Cookie / DPoP header replaced by "[redacted]".
QString maskSecrets(const QString& text);

} // namespace mcpscope::OAuthWire
