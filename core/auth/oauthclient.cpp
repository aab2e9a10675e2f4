#include "oauthclient.h"

#include "oauthwire.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QUrlQuery>

namespace mcpscope {

using OAuthWire::base64Url;
using OAuthWire::formEncode;
using OAuthWire::oauthErrorText;
using OAuthWire::randomBytes;
using OAuthWire::scopeList;
using OAuthWire::stringArray;
using OAuthWire::trimmedPath;
using OAuthWire::withQuery;

namespace {
constexpr qsizetype MaxBodyBytes
    = qsizetype(1024) * 1024; // metadata and token answers are small; anything bigger is wrong
} // namespace

OAuthClient::OAuthClient(Options options, QObject* parent)
    : QObject(parent)
    , m_options(std::move(options))
{ }

OAuthClient::~OAuthClient()
{
    for (const QPointer<HttpReply>& reply : std::as_const(m_replies)) {
        if (reply)
            reply->disconnect(this);
    }
}

QString OAuthClient::canonicalResource(const QUrl& url)
{
    QUrl canonical = url.adjusted(QUrl::RemoveFragment | QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    canonical.setScheme(canonical.scheme().toLower());
    return canonical.toString(QUrl::FullyEncoded);
}

bool OAuthClient::resourceCovers(const QUrl& resource, const QUrl& serverUrl)
{
    if (resource.scheme().compare(serverUrl.scheme(), Qt::CaseInsensitive) != 0
        || resource.host().compare(serverUrl.host(), Qt::CaseInsensitive) != 0)
        return false;
    const int defaultPort = serverUrl.scheme() == QLatin1String("https") ? 443 : 80;
    if (resource.port(defaultPort) != serverUrl.port(defaultPort))
        return false;
    const QString resourcePath = trimmedPath(resource);
    const QString serverPath = trimmedPath(serverUrl);
    return resourcePath.isEmpty() || serverPath == resourcePath
        || serverPath.startsWith(resourcePath + QLatin1Char('/'));
}

QByteArray OAuthClient::authorizationHeader() const
{
    if (m_accessToken.isEmpty())
        return {};
    return QByteArrayLiteral("Bearer ") + m_accessToken.toUtf8();
}

QByteArray OAuthClient::authorizationFor(const QUrl& url) const
{
    // MCP-NOTES "Authorization" §9: the token goes only to the server it was issued for.
    if (!resourceCovers(m_options.serverUrl, url))
        return {};
    return authorizationHeader();
}

void OAuthClient::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void OAuthClient::fail(const QString& message)
{
    ++m_generation; // whatever is still in flight belongs to an attempt that is over
    m_lastError = message;
    setState(State::Failed);
    Q_EMIT failed(message);
}

HttpRequest OAuthClient::makeRequest(const QByteArray& method, const QUrl& url) const
{
    HttpRequest request;
    request.method = method;
    request.url = url;
    request.timeoutMs = m_options.requestTimeoutMs;
    request.tlsVerify = m_options.tlsVerify;
    request.redirects = HttpRequest::Redirects::Manual;
    request.headers.append({ QByteArrayLiteral("Accept"), QByteArrayLiteral("application/json") });
    return request;
}

void OAuthClient::send(HttpRequest request, ResponseHandler handler)
{
    m_replies.removeAll(nullptr);
    HttpReply* reply = m_http.send(std::move(request));
    m_replies.append(reply);
    const quint64 generation = m_generation;
    auto body = std::make_shared<QByteArray>();
    // A body past the cap is cut off; what is left fails to parse and counts as no answer.
    connect(reply, &HttpReply::readyRead, this, [reply, body] {
        body->append(reply->readAll());
        if (body->size() > MaxBodyBytes)
            reply->abort();
    });
    connect(reply, &HttpReply::finished, this, [this, reply, body, generation, handler = std::move(handler)] {
        reply->deleteLater();
        m_replies.removeAll(reply);
        if (generation != m_generation)
            return;
        body->append(reply->readAll());
        Response response;
        response.status = reply->error() == HttpClientError::None ? reply->status() : 0;
        response.body = body->left(MaxBodyBytes);
        if (response.status == 0)
            response.networkError = reply->errorString();
        const QByteArray location = reply->header("Location");
        if (!location.isEmpty())
            response.location = reply->url().resolved(QUrl::fromEncoded(location));
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        if (doc.isObject())
            response.json = doc.object();
        handler(response);
    });
}

void OAuthClient::get(const QUrl& url, ResponseHandler handler, bool followRedirects)
{
    HttpRequest request = makeRequest(QByteArrayLiteral("GET"), url);
    if (followRedirects)
        request.redirects = HttpRequest::Redirects::NoLessSafe;
    send(std::move(request), std::move(handler));
}

void OAuthClient::postForm(const QUrl& url, const QList<QPair<QString, QString>>& form, const QByteArray& authorization,
    ResponseHandler handler)
{
    HttpRequest request = makeRequest(QByteArrayLiteral("POST"), url);
    request.headers.append(
        { QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/x-www-form-urlencoded") });
    if (!authorization.isEmpty())
        request.headers.append({ QByteArrayLiteral("Authorization"), authorization });
    request.body = formEncode(form);
    send(std::move(request), std::move(handler));
}

void OAuthClient::postJson(const QUrl& url, const QJsonObject& body, ResponseHandler handler)
{
    HttpRequest request = makeRequest(QByteArrayLiteral("POST"), url);
    request.headers.append({ QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json") });
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    send(std::move(request), std::move(handler));
}

QString OAuthClient::chooseScope() const
{
    // MCP scope selection: the challenge's scope, else everything the resource supports, else none.
    QStringList scopes = scopeList(m_challenge.scope);
    if (scopes.isEmpty())
        scopes = stringArray(m_resourceMetadata.value(QLatin1String("scopes_supported")));
    if (m_stepUp) {
        // Step-up adds to what was asked before, so operations that already worked keep working.
        QStringList merged = scopeList(m_requestedScope);
        for (const QString& scope : std::as_const(scopes)) {
            if (!merged.contains(scope))
                merged.append(scope);
        }
        scopes = merged;
    }
    return scopes.join(QLatin1Char(' '));
}

void OAuthClient::startAuthorization()
{
    setState(State::Authorizing);
    m_requestedScope = chooseScope();
    m_codeVerifier = base64Url(randomBytes(32));
    m_oauthState = QString::fromLatin1(base64Url(randomBytes(16)));
    const QByteArray challenge = base64Url(QCryptographicHash::hash(m_codeVerifier, QCryptographicHash::Sha256));
    QList<QPair<QString, QString>> query {
        { QStringLiteral("response_type"), QStringLiteral("code") },
        { QStringLiteral("client_id"), m_registration.clientId },
        { QStringLiteral("redirect_uri"), m_options.redirectUri.toString(QUrl::FullyEncoded) },
        { QStringLiteral("code_challenge"), QString::fromLatin1(challenge) },
        { QStringLiteral("code_challenge_method"), QStringLiteral("S256") },
        { QStringLiteral("state"), m_oauthState },
        { QStringLiteral("resource"), canonicalResource(m_options.serverUrl) },
    };
    if (!m_requestedScope.isEmpty())
        query.append({ QStringLiteral("scope"), m_requestedScope });
    const QUrl url = withQuery(m_authorizationEndpoint, query);
    Q_EMIT log(
        tr("Requesting authorization at %1 (scope: %2)")
            .arg(m_authorizationEndpoint.toString(), m_requestedScope.isEmpty() ? tr("none sent") : m_requestedScope));
    get(
        url,
        [this](const Response& response) {
            if (response.status < 300 || response.status >= 400 || !response.location.isValid()) {
                fail(tr("Server '%1': the authorization endpoint %2 answered %3 instead of redirecting back; "
                        "authorizing there needs a browser.")
                         .arg(m_options.serverName, m_authorizationEndpoint.toString())
                         .arg(response.status ? QString::number(response.status) : response.networkError));
                return;
            }
            const QUrl& location = response.location;
            const QUrl expected = m_options.redirectUri;
            if (location.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment)
                != expected.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment)) {
                fail(tr("Server '%1': the authorization endpoint redirected to %2, not to our redirect URI; "
                        "authorizing there needs a browser.")
                         .arg(m_options.serverName, location.adjusted(QUrl::RemoveQuery).toString()));
                return;
            }
            const QUrlQuery query(location);
            const QString error = query.queryItemValue(QStringLiteral("error"), QUrl::FullyDecoded);
            if (!error.isEmpty()) {
                const QString description
                    = query.queryItemValue(QStringLiteral("error_description"), QUrl::FullyDecoded);
                fail(
                    tr("Server '%1': the authorization server refused: %2%3")
                        .arg(m_options.serverName, error,
                            description.isEmpty() ? QString() : QStringLiteral(" (") + description + QLatin1Char(')')));
                return;
            }
            if (query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded) != m_oauthState) {
                fail(tr("Server '%1': the authorization response carried the wrong state parameter; it may be "
                        "forged, so it was ignored.")
                         .arg(m_options.serverName));
                return;
            }
            const QString code = query.queryItemValue(QStringLiteral("code"), QUrl::FullyDecoded);
            if (code.isEmpty()) {
                fail(tr("Server '%1': the authorization response carried no code.").arg(m_options.serverName));
                return;
            }
            requestToken(code);
        },
        false);
}

void OAuthClient::requestToken(const QString& code)
{
    setState(State::RequestingToken);
    QList<QPair<QString, QString>> form {
        { QStringLiteral("grant_type"), QStringLiteral("authorization_code") },
        { QStringLiteral("code"), code },
        { QStringLiteral("redirect_uri"), m_options.redirectUri.toString(QUrl::FullyEncoded) },
        { QStringLiteral("code_verifier"), QString::fromLatin1(m_codeVerifier) },
        { QStringLiteral("resource"), canonicalResource(m_options.serverUrl) },
    };
    QByteArray authorization;
    const QString& method = m_registration.tokenEndpointAuthMethod;
    if (method == QLatin1String("client_secret_basic") && !m_registration.clientSecret.isEmpty()) {
        // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
        const QByteArray credentials = QUrl::toPercentEncoding(m_registration.clientId) + ':'
            + QUrl::toPercentEncoding(m_registration.clientSecret);
        authorization = QByteArrayLiteral("Basic ") + credentials.toBase64();
    } else {
        form.append({ QStringLiteral("client_id"), m_registration.clientId });
        if (method == QLatin1String("client_secret_post") && !m_registration.clientSecret.isEmpty())
            form.append({ QStringLiteral("client_secret"), m_registration.clientSecret });
    }
    Q_EMIT log(tr("Requesting a token at %1 (%2)").arg(m_tokenEndpoint.toString(), method));
    postForm(m_tokenEndpoint, form, authorization, [this](const Response& response) {
        const QString token = response.json.value(QLatin1String("access_token")).toString();
        if (response.status != 200 || token.isEmpty()) {
            fail(tr("Server '%1': the token request to %2 failed (%3): %4")
                     .arg(m_options.serverName, m_tokenEndpoint.toString())
                     .arg(response.status ? QString::number(response.status) : response.networkError)
                     .arg(oauthErrorText(response.json, response.body)));
            return;
        }
        const QString type = response.json.value(QLatin1String("token_type")).toString();
        if (!type.isEmpty() && type.compare(QLatin1String("bearer"), Qt::CaseInsensitive) != 0) {
            fail(tr("Server '%1': the token endpoint issued a '%2' token; MCP needs a Bearer token.")
                     .arg(m_options.serverName, type));
            return;
        }
        m_accessToken = token;
        const QString refresh = response.json.value(QLatin1String("refresh_token")).toString();
        if (!refresh.isEmpty())
            m_refreshToken = refresh; // refresh tokens rotate: always keep the newest
        Q_EMIT log(tr("Authorized for '%1'.").arg(m_options.serverName));
        setState(State::Authorized);
        Q_EMIT authorized();
    });
}

} // namespace mcpscope
