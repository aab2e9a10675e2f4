#include "oauthclient.h"

#include "oauthwire.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonDocument>

namespace mcpscope {

using OAuthWire::base64Url;
using OAuthWire::formEncode;
using OAuthWire::maskSecrets;
using OAuthWire::randomBytes;
using OAuthWire::scopeList;
using OAuthWire::stringArray;
using OAuthWire::trimmedPath;
using OAuthWire::withQuery;

namespace {
constexpr qsizetype MaxBodyBytes
    = qsizetype(1024) * 1024; // metadata and token answers are small; anything bigger is wrong
constexpr qsizetype MaxStepTextChars = 16 * 1024; // what a step keeps of a body for the Auth view

QString requestText(const HttpRequest& request)
{
    QString text = QString::fromLatin1(request.method) + QLatin1Char(' ') + request.url.toString(QUrl::FullyEncoded);
    for (const auto& [name, value] : request.headers)
        text += QLatin1Char('\n') + QString::fromLatin1(name) + QStringLiteral(": ") + QString::fromUtf8(value);
    if (!request.body.isEmpty())
        text += QStringLiteral("\n\n") + QString::fromUtf8(request.body.left(MaxStepTextChars));
    return maskSecrets(text);
}
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

QByteArray OAuthClient::pkceChallenge(const QByteArray& verifier)
{
    return base64Url(QCryptographicHash::hash(verifier, QCryptographicHash::Sha256));
}

QByteArray OAuthClient::authorizationHeader() const
{
    if (m_accessToken.isEmpty())
        return {};
    return (m_dpopBound ? QByteArrayLiteral("DPoP ") : QByteArrayLiteral("Bearer ")) + m_accessToken.toUtf8();
}

QByteArray OAuthClient::authorizationFor(const QUrl& url) const
{
    // MCP-NOTES "Authorization" §9: the token goes only to the server it was issued for.
    if (!resourceCovers(m_options.serverUrl, url))
        return {};
    return authorizationHeader();
}

bool OAuthClient::isExpiring(qint64 marginMs) const
{
    return hasToken() && m_expiresAt > 0 && now() >= m_expiresAt - marginMs;
}

qint64 OAuthClient::now() const
{
    return m_options.clock ? m_options.clock() : QDateTime::currentMSecsSinceEpoch();
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
    m_refreshing = false;
    if (AuthStep* step = currentStep()) {
        step->status = AuthStep::Status::Failed;
        step->detail = maskSecrets(message);
        step->endedAt = now();
        Q_EMIT stepsChanged();
    }
    setState(State::Failed);
    Q_EMIT failed(message);
}

void OAuthClient::setRedirectUri(const QUrl& uri)
{
    if (uri == m_options.redirectUri)
        return;
    m_options.redirectUri = uri;
    // A dynamic registration names its redirect URIs; another one needs a new registration.
    if (m_registration.source == OAuthRegistration::Source::Dynamic && m_registeredRedirectUri != uri)
        m_registration = {};
}

// --- Steps --------------------------------------------------------------------------------------------

void OAuthClient::beginFlow()
{
    m_steps.clear();
    Q_EMIT stepsChanged();
}

AuthStep* OAuthClient::currentStep()
{
    if (m_steps.isEmpty() || m_steps.last().status != AuthStep::Status::Running)
        return nullptr;
    return &m_steps.last();
}

void OAuthClient::beginStep(AuthStep::Kind kind, const QString& title)
{
    if (AuthStep* open = currentStep()) {
        open->status = AuthStep::Status::Ok;
        open->endedAt = now();
    }
    AuthStep step;
    step.kind = kind;
    step.title = title;
    step.startedAt = now();
    m_steps.append(step);
    Q_EMIT stepsChanged();
}

void OAuthClient::endStep(AuthStep::Status status, const QString& detail)
{
    AuthStep* step = currentStep();
    if (!step)
        return;
    step->status = status;
    step->detail = maskSecrets(detail);
    step->endedAt = now();
    Q_EMIT stepsChanged();
}

void OAuthClient::skipStep(AuthStep::Kind kind, const QString& title, const QString& detail)
{
    beginStep(kind, title);
    endStep(AuthStep::Status::Skipped, detail);
}

// --- HTTP ---------------------------------------------------------------------------------------------

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
    const QString method = QString::fromLatin1(request.method);
    const QUrl url = request.url;
    if (AuthStep* step = currentStep()) {
        step->request = requestText(request);
        Q_EMIT stepsChanged();
    }
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
    connect(
        reply, &HttpReply::finished, this, [this, reply, body, generation, method, url, handler = std::move(handler)] {
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
            // RFC 9449 §8: an authorization server may hand out a nonce with any answer.
            response.dpopNonce = reply->header("DPoP-Nonce").trimmed();
            m_nonces.note(url, response.dpopNonce);
            const QByteArray location = reply->header("Location");
            if (!location.isEmpty())
                response.location = reply->url().resolved(QUrl::fromEncoded(location));
            const QJsonDocument doc = QJsonDocument::fromJson(response.body);
            if (doc.isObject())
                response.json = doc.object();
            if (AuthStep* step = currentStep()) {
                const QString outcome = response.status ? QString::number(response.status)
                                                        : tr("no answer (%1)").arg(response.networkError);
                step->urlsTried.append(maskSecrets(
                    method + QLatin1Char(' ') + url.toString(QUrl::FullyEncoded) + QStringLiteral(" → ") + outcome));
                QString text = response.status ? QStringLiteral("HTTP ") + QString::number(response.status) : outcome;
                if (response.location.isValid())
                    text += QStringLiteral("\nLocation: ") + response.location.toString(QUrl::FullyEncoded);
                if (!response.body.isEmpty())
                    text += QStringLiteral("\n\n") + QString::fromUtf8(response.body.left(MaxStepTextChars));
                step->response = maskSecrets(text);
                Q_EMIT stepsChanged();
            }
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

void OAuthClient::postForm(const QUrl& url, const Form& form, const QByteArray& authorization, ResponseHandler handler,
    const QByteArray& dpopProof)
{
    HttpRequest request = makeRequest(QByteArrayLiteral("POST"), url);
    request.headers.append(
        { QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/x-www-form-urlencoded") });
    if (!authorization.isEmpty())
        request.headers.append({ QByteArrayLiteral("Authorization"), authorization });
    if (!dpopProof.isEmpty())
        request.headers.append({ QByteArrayLiteral("DPoP"), dpopProof });
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

// --- The authorization request ------------------------------------------------------------------------

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
    Form query {
        { QStringLiteral("response_type"), QStringLiteral("code") },
        { QStringLiteral("client_id"), m_registration.clientId },
        { QStringLiteral("redirect_uri"), m_options.redirectUri.toString(QUrl::FullyEncoded) },
        { QStringLiteral("code_challenge"), QString::fromLatin1(pkceChallenge(m_codeVerifier)) },
        { QStringLiteral("code_challenge_method"), QStringLiteral("S256") },
        { QStringLiteral("state"), m_oauthState },
        { QStringLiteral("resource"), resourceIndicator() },
    };
    if (!m_requestedScope.isEmpty())
        query.append({ QStringLiteral("scope"), m_requestedScope });
    const QUrl url = withQuery(m_authorizationEndpoint, query);
    const QString scopes = m_requestedScope.isEmpty() ? tr("no scope sent") : tr("scope: %1").arg(m_requestedScope);
    Q_EMIT log(tr("Requesting authorization at %1 (%2)").arg(m_authorizationEndpoint.toString(), scopes));
    beginStep(AuthStep::Kind::Authorize, tr("Authorization request"));

    if (m_options.browser == Browser::External) {
        if (AuthStep* step = currentStep())
            step->request = QStringLiteral("GET ") + url.toString(QUrl::FullyEncoded);
        endStep(AuthStep::Status::Ok,
            tr("Opened in the system browser (%1, PKCE S256, redirect to %2).")
                .arg(scopes, m_options.redirectUri.toString()));
        beginStep(AuthStep::Kind::Callback, tr("Callback"));
        if (AuthStep* step = currentStep())
            step->detail = tr("Waiting for the browser to come back to %1.").arg(m_options.redirectUri.toString());
        setState(State::WaitingForBrowser);
        Q_EMIT browserNeeded(url);
        return;
    }
    get(
        url,
        [this, scopes](const Response& response) {
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
            endStep(AuthStep::Status::Ok, tr("Redirected back at once (%1, PKCE S256).").arg(scopes));
            beginStep(AuthStep::Kind::Callback, tr("Callback"));
            // A form-encoded query: '+' is a space.
            QString query = location.query(QUrl::FullyEncoded);
            query.replace(QLatin1Char('+'), QStringLiteral("%20"));
            if (AuthStep* step = currentStep())
                step->request = maskSecrets(location.toString(QUrl::FullyEncoded));
            handleCallback(QUrlQuery(query));
        },
        false);
}

void OAuthClient::completeAuthorization(const QUrlQuery& callback)
{
    if (m_state != State::WaitingForBrowser) {
        Q_EMIT log(tr("Server '%1': an authorization callback arrived with no authorization waiting for it; "
                      "ignored.")
                       .arg(m_options.serverName));
        return;
    }
    if (AuthStep* step = currentStep())
        step->request
            = maskSecrets(m_options.redirectUri.toString() + QLatin1Char('?') + callback.toString(QUrl::FullyEncoded));
    handleCallback(callback);
}

void OAuthClient::handleCallback(const QUrlQuery& query)
{
    const QString error = query.queryItemValue(QStringLiteral("error"), QUrl::FullyDecoded);
    if (!error.isEmpty()) {
        const QString description = query.queryItemValue(QStringLiteral("error_description"), QUrl::FullyDecoded);
        fail(tr("Server '%1': the authorization server refused: %2%3")
                 .arg(m_options.serverName, error,
                     description.isEmpty() ? QString() : QStringLiteral(" (") + description + QLatin1Char(')')));
        return;
    }
    if (query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded) != m_oauthState) {
        fail(tr("Server '%1': the authorization response carried the wrong state parameter; it may be forged, so "
                "it was ignored.")
                 .arg(m_options.serverName));
        return;
    }
    // RFC 9207: the response names the authorization server that issued it, so a code from another one
    // (a mix-up attack) is not sent to this one's token endpoint.
    const bool issSent = query.hasQueryItem(QStringLiteral("iss"));
    const QString iss = query.queryItemValue(QStringLiteral("iss"), QUrl::FullyDecoded);
    const bool issRequired
        = m_serverMetadata.value(QLatin1String("authorization_response_iss_parameter_supported")).toBool();
    if ((issSent || issRequired) && iss != metadataIssuer()) {
        fail(issSent ? tr("Server '%1': the authorization response came from issuer '%2', not from '%3' (RFC 9207); "
                          "refusing the code.")
                           .arg(m_options.serverName, iss, metadataIssuer())
                     : tr("Server '%1': the authorization server promises an iss parameter (RFC 9207), and the "
                          "response has none; refusing the code.")
                           .arg(m_options.serverName));
        return;
    }
    const QString code = query.queryItemValue(QStringLiteral("code"), QUrl::FullyDecoded);
    if (code.isEmpty()) {
        fail(tr("Server '%1': the authorization response carried no code.").arg(m_options.serverName));
        return;
    }
    endStep(AuthStep::Status::Ok,
        issSent ? tr("A code arrived, with the expected state and issuer %1.").arg(iss)
                : tr("A code arrived, with the expected state."));
    requestToken(code);
}

} // namespace mcpscope
