#include "oauthclient.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QUrlQuery>

namespace mcpscope {

namespace {
constexpr qsizetype MaxBodyBytes
    = qsizetype(1024) * 1024; // metadata and token answers are small; anything bigger is wrong

QByteArray base64Url(const QByteArray& bytes)
{
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray randomBytes(int count)
{
    QByteArray bytes(count, Qt::Uninitialized);
    QRandomGenerator* generator = QRandomGenerator::system();
    for (char& byte : bytes)
        byte = char(generator->bounded(256));
    return bytes;
}

// application/x-www-form-urlencoded by hand: QUrlQuery leaves '+' alone, which a form decoder reads as a space.
QByteArray formEncode(const QList<QPair<QString, QString>>& pairs)
{
    QByteArray out;
    for (const auto& [key, value] : pairs) {
        if (!out.isEmpty())
            out += '&';
        out += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    return out;
}

QUrl withQuery(QUrl url, const QList<QPair<QString, QString>>& pairs)
{
    QByteArray query = url.query(QUrl::FullyEncoded).toLatin1();
    const QByteArray extra = formEncode(pairs);
    query = query.isEmpty() ? extra : query + '&' + extra;
    url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    return url;
}

QUrl origin(const QUrl& url)
{
    QUrl o;
    o.setScheme(url.scheme());
    o.setHost(url.host());
    o.setPort(url.port());
    return o;
}

QString trimmedPath(const QUrl& url)
{
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

QUrl originWithPath(const QUrl& url, const QString& path)
{
    QUrl result = origin(url);
    result.setPath(path);
    return result;
}

bool isHttpUrl(const QUrl& url)
{
    return url.isValid() && !url.host().isEmpty()
        && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"));
}

QStringList scopeList(const QString& scope)
{
    return scope.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

QStringList stringArray(const QJsonValue& value)
{
    QStringList list;
    for (const QJsonValue& item : value.toArray()) {
        if (item.isString())
            list.append(item.toString());
    }
    return list;
}

QString oauthErrorText(const QJsonObject& json, const QByteArray& body)
{
    const QString error = json.value(QLatin1String("error")).toString();
    const QString description = json.value(QLatin1String("error_description")).toString();
    if (!error.isEmpty())
        return description.isEmpty() ? error : error + QStringLiteral(": ") + description;
    return QString::fromUtf8(body.left(200)).simplified();
}
} // namespace

BearerChallenge BearerChallenge::parse(const QByteArray& header)
{
    BearerChallenge result;
    qsizetype pos = 0;
    const qsizetype n = header.size();
    bool inBearer = false;
    auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    auto isDelimiter = [&](char c) { return isSpace(c) || c == ',' || c == '='; };
    while (pos < n) {
        while (pos < n && (isSpace(header.at(pos)) || header.at(pos) == ','))
            ++pos;
        const qsizetype start = pos;
        while (pos < n && !isDelimiter(header.at(pos)))
            ++pos;
        const QByteArray token = header.mid(start, pos - start);
        if (token.isEmpty()) {
            ++pos; // a stray '=' (token68 padding); skip it
            continue;
        }
        qsizetype look = pos;
        while (look < n && isSpace(header.at(look)))
            ++look;
        if (look >= n || header.at(look) != '=') {
            // A new challenge's scheme. Parameters up to the next scheme belong to it.
            inBearer = token.compare("Bearer", Qt::CaseInsensitive) == 0;
            result.isBearer = result.isBearer || inBearer;
            continue;
        }
        pos = look + 1;
        while (pos < n && isSpace(header.at(pos)))
            ++pos;
        QByteArray value;
        if (pos < n && header.at(pos) == '"') {
            ++pos;
            while (pos < n && header.at(pos) != '"') {
                if (header.at(pos) == '\\' && pos + 1 < n)
                    ++pos;
                value += header.at(pos);
                ++pos;
            }
            ++pos; // closing quote
        } else {
            const qsizetype valueStart = pos;
            while (pos < n && header.at(pos) != ',' && !isSpace(header.at(pos)))
                ++pos;
            value = header.mid(valueStart, pos - valueStart);
        }
        if (!inBearer)
            continue;
        const QByteArray key = token.toLower();
        if (key == "error")
            result.error = QString::fromUtf8(value);
        else if (key == "scope")
            result.scope = QString::fromUtf8(value).simplified();
        else if (key == "resource_metadata")
            result.resourceMetadata = QUrl(QString::fromUtf8(value));
    }
    return result;
}

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

void OAuthClient::authorize(const TransportFailure& failure)
{
    ++m_generation;
    for (const QPointer<HttpReply>& reply : std::exchange(m_replies, {})) {
        if (reply) {
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
    }
    m_challenge = BearerChallenge::parse(failure.header("WWW-Authenticate"));
    m_stepUp
        = failure.kind() == FailureKind::InsufficientScope || m_challenge.error == QLatin1String("insufficient_scope");
    Q_EMIT log(tr("Server '%1' answered %2; authorizing%3.")
                   .arg(m_options.serverName)
                   .arg(failure.httpStatus)
                   .arg(m_stepUp ? tr(" with more scopes (step-up)") : QString()));

    // A challenge that points at other metadata than we used means the server moved: discover again.
    if (m_discovered && m_challenge.resourceMetadata.isValid() && m_challenge.resourceMetadata != m_resourceMetadataUrl)
        m_discovered = false;
    if (m_discovered) {
        registerClient();
        return;
    }

    setState(State::DiscoveringResource);
    QList<QUrl> candidates;
    if (isHttpUrl(m_challenge.resourceMetadata))
        candidates.append(m_challenge.resourceMetadata);
    const QUrl& server = m_options.serverUrl;
    const QString path = trimmedPath(server);
    if (!path.isEmpty())
        candidates.append(originWithPath(server, QStringLiteral("/.well-known/oauth-protected-resource") + path));
    candidates.append(originWithPath(server, QStringLiteral("/.well-known/oauth-protected-resource")));
    discoverResource(candidates);
}

void OAuthClient::discoverResource(QList<QUrl> candidates)
{
    if (candidates.isEmpty()) {
        // No Protected Resource Metadata: a 2025-03-26 server, which is its own authorization server.
        Q_EMIT log(tr("No protected resource metadata for '%1'; using its origin as the authorization server "
                      "(2025-03-26 rules).")
                       .arg(m_options.serverName));
        m_legacy = true;
        m_resourceMetadataUrl.clear();
        m_resourceMetadata = {};
        m_authServer = origin(m_options.serverUrl);
        setState(State::DiscoveringServer);
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
                     .arg(m_options.serverName, url.toString(), resource.toString(), m_options.serverUrl.toString()));
            return;
        }
        m_legacy = false;
        m_resourceMetadataUrl = url;
        m_resourceMetadata = prm;
        m_authServer = QUrl();
        for (const QString& server : stringArray(prm.value(QLatin1String("authorization_servers")))) {
            if (isHttpUrl(QUrl(server))) {
                m_authServer = QUrl(server);
                break;
            }
        }
        if (!m_authServer.isValid()) {
            fail(tr("Server '%1': its protected resource metadata (%2) names no usable authorization server.")
                     .arg(m_options.serverName, url.toString()));
            return;
        }
        setState(State::DiscoveringServer);
        discoverServer(serverMetadataCandidates(m_authServer));
    });
}

QList<QUrl> OAuthClient::serverMetadataCandidates(const QUrl& issuer) const
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
        m_serverMetadata = response.json;
        m_authorizationEndpoint = QUrl(m_serverMetadata.value(QLatin1String("authorization_endpoint")).toString());
        m_tokenEndpoint = QUrl(m_serverMetadata.value(QLatin1String("token_endpoint")).toString());
        m_registrationEndpoint = QUrl(m_serverMetadata.value(QLatin1String("registration_endpoint")).toString());
        if (!isHttpUrl(m_authorizationEndpoint) || !isHttpUrl(m_tokenEndpoint)) {
            fail(tr("Server '%1': the authorization server metadata at %2 lacks a usable authorization_endpoint or "
                    "token_endpoint.")
                     .arg(m_options.serverName, url.toString()));
            return;
        }
        // MCP makes PKCE mandatory; a server that does not say it supports S256 cannot be trusted with it.
        if (!stringArray(m_serverMetadata.value(QLatin1String("code_challenge_methods_supported")))
                 .contains(QLatin1String("S256"))) {
            fail(tr("Server '%1': the authorization server metadata at %2 does not list S256 in "
                    "code_challenge_methods_supported, so PKCE cannot be used; refusing to authorize.")
                     .arg(m_options.serverName, url.toString()));
            return;
        }
        m_discovered = true;
        registerClient();
    });
}

void OAuthClient::useFallbackEndpoints()
{
    // 2025-03-26: without metadata, the endpoints sit at fixed paths under the server's origin.
    m_serverMetadata = {};
    m_authorizationEndpoint = originWithPath(m_authServer, QStringLiteral("/authorize"));
    m_tokenEndpoint = originWithPath(m_authServer, QStringLiteral("/token"));
    m_registrationEndpoint = originWithPath(m_authServer, QStringLiteral("/register"));
    Q_EMIT log(tr("No authorization server metadata for '%1'; using the default endpoints under %2.")
                   .arg(m_options.serverName, m_authServer.toString()));
    m_discovered = true;
    registerClient();
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
        startAuthorization();
        return;
    }
    setState(State::Registering);
    if (!m_options.clientId.isEmpty()) {
        m_registration.source = OAuthRegistration::Source::PreRegistered;
        m_registration.clientId = m_options.clientId;
        m_registration.clientSecret = m_options.clientSecret;
        m_registration.tokenEndpointAuthMethod = chooseAuthMethod(!m_options.clientSecret.isEmpty());
        Q_EMIT log(tr("Using the pre-registered client id '%1' (%2).")
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
        startAuthorization();
        return;
    }
    if (!isHttpUrl(m_registrationEndpoint)) {
        fail(tr("Server '%1': authorization server %2 offers no dynamic client registration and no client id is "
                "configured; register McpScope there and enter its client id.")
                 .arg(m_options.serverName, m_authServer.toString()));
        return;
    }
    // A native app cannot keep a secret: ask to be a public client when the server allows it.
    const QStringList supported
        = stringArray(m_serverMetadata.value(QLatin1String("token_endpoint_auth_methods_supported")));
    QString requested = QStringLiteral("none");
    if (!supported.isEmpty() && !supported.contains(requested))
        requested = chooseAuthMethod(true);
    const QJsonObject body {
        { QStringLiteral("client_name"), m_options.clientName },
        { QStringLiteral("redirect_uris"), QJsonArray { m_options.redirectUri.toString(QUrl::FullyEncoded) } },
        { QStringLiteral("grant_types"),
            QJsonArray { QStringLiteral("authorization_code"), QStringLiteral("refresh_token") } },
        { QStringLiteral("response_types"), QJsonArray { QStringLiteral("code") } },
        { QStringLiteral("token_endpoint_auth_method"), requested },
    };
    Q_EMIT log(tr("Registering with %1").arg(m_registrationEndpoint.toString()));
    postJson(m_registrationEndpoint, body, [this, requested](const Response& response) {
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
        Q_EMIT log(
            tr("Registered as client '%1' (%2).").arg(m_registration.clientId, m_registration.tokenEndpointAuthMethod));
        startAuthorization();
    });
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
