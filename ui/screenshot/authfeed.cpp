// ScreenshotDriver::feedAuthView(): the Auth tab fed with the steps of a sample OAuth flow against the demo
// workspace's HTTP server, for auth-steps.png and auth-token.png when no real flow ran (make screenshot
// then says "fed"). Apart from screenshotdriver.cpp, which runs the sequence.

#include "screenshotdriver.h"

#include "engine/serverauth.h"
#include "engine/serverconnection.h"
#include "mainwindow/authstepmodel.h"
#include "mainwindow/authview.h"
#include "mainwindow/mainwindow.h"

#include <QDateTime>
#include <QUrl>

namespace mcpscope {

namespace {
AuthStep sampleStep(AuthStep::Kind kind, AuthStep::Status status, const QString& title, const QString& detail,
    qint64 startedAt, qint64 tookMs)
{
    AuthStep step;
    step.kind = kind;
    step.status = status;
    step.title = title;
    step.detail = detail;
    step.startedAt = startedAt;
    step.endedAt = startedAt + tookMs;
    return step;
}
} // namespace

void ScreenshotDriver::feedAuthView(bool completed)
{
    AuthView* view = m_window->authView();
    const QUrl server = connection(httpServerName())->config().url;
    const QString origin = server.adjusted(QUrl::RemovePath | QUrl::RemoveQuery).toString();
    const QString resource = server.toString();
    const QString encodedResource = QString::fromLatin1(QUrl::toPercentEncoding(resource));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 t0 = now - (completed ? 4200 : 900);
    QList<AuthStep> steps;

    AuthStep challenge = sampleStep(AuthStep::Kind::Challenge, AuthStep::Status::Ok, tr("401 challenge"),
        tr("initialize was answered 401 Unauthorized with a Bearer challenge that names the resource metadata."), t0,
        6);
    challenge.request
        = QStringLiteral("POST %1\nContent-Type: application/json\nAccept: application/json, "
                         "text/event-stream\n\n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",…}")
              .arg(resource);
    challenge.response
        = QStringLiteral("HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer error=\"invalid_token\", "
                         "error_description=\"Missing Authorization header\", "
                         "resource_metadata=\"%1/.well-known/oauth-protected-resource/mcp\"\nContent-Type: "
                         "application/json\n\n{\"error\":\"invalid_token\",\"error_description\":\"Missing "
                         "Authorization header\"}")
              .arg(origin);
    steps.append(challenge);

    AuthStep prm = sampleStep(AuthStep::Kind::ResourceMetadata, AuthStep::Status::Ok, tr("PRM discovery"),
        tr("The challenge's resource_metadata URL answered; its resource matches the server URL and it names the "
           "authorization server %1/.")
            .arg(origin),
        t0 + 12, 9);
    prm.urlsTried
        = { QStringLiteral("GET %1/.well-known/oauth-protected-resource/mcp → 200 (from the challenge)").arg(origin) };
    prm.request
        = QStringLiteral("GET %1/.well-known/oauth-protected-resource/mcp\nAccept: application/json").arg(origin);
    prm.response = QStringLiteral("HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\n  \"resource\": \"%1\",\n  "
                                  "\"authorization_servers\": [\"%2/\"],\n  \"scopes_supported\": [\"mcp:tools\"]\n}")
                       .arg(resource, origin);
    steps.append(prm);

    AuthStep metadata = sampleStep(AuthStep::Kind::ServerMetadata, AuthStep::Status::Ok, tr("AS metadata"),
        tr("Issuer %1/: PKCE S256, dynamic client registration and token revocation are supported.").arg(origin),
        t0 + 25, 7);
    metadata.urlsTried = { QStringLiteral("GET %1/.well-known/oauth-authorization-server → 200").arg(origin) };
    metadata.request = QStringLiteral("GET %1/.well-known/oauth-authorization-server").arg(origin);
    metadata.response
        = QStringLiteral("HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\n  \"issuer\": \"%1/\",\n  "
                         "\"authorization_endpoint\": \"%1/authorize\",\n  \"token_endpoint\": \"%1/token\",\n  "
                         "\"registration_endpoint\": \"%1/register\",\n  \"revocation_endpoint\": \"%1/revoke\",\n  "
                         "\"code_challenge_methods_supported\": [\"S256\"],\n  \"grant_types_supported\": "
                         "[\"authorization_code\", \"refresh_token\"]\n}")
              .arg(origin);
    if (!completed) {
        metadata.status = AuthStep::Status::Failed;
        metadata.title = tr("AS metadata");
        metadata.detail = tr("The authorization server does not offer PKCE with S256: its metadata has no "
                             "code_challenge_methods_supported. McpScope does not authorize without PKCE, so the "
                             "flow stops here.");
        metadata.urlsTried = { QStringLiteral("GET %1/.well-known/oauth-authorization-server → 404").arg(origin),
            QStringLiteral("GET %1/.well-known/openid-configuration → 200").arg(origin) };
        metadata.request = QStringLiteral("GET %1/.well-known/openid-configuration").arg(origin);
        metadata.response = QStringLiteral("HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\n  \"issuer\": "
                                           "\"%1/\",\n  \"authorization_endpoint\": \"%1/authorize\",\n  "
                                           "\"token_endpoint\": \"%1/token\",\n  \"response_types_supported\": "
                                           "[\"code\"]\n}")
                                .arg(origin);
        steps.append(metadata);
        AuthSummary summary;
        summary.state = ServerAuth::State::Failed;
        summary.lastError = tr("Server '%1': the authorization server %2/ does not support PKCE S256; not authorizing.")
                                .arg(httpServerName(), origin);
        summary.storePersistent = false;
        summary.storeDescription = tr("memory only: no keychain is available (org.freedesktop.secrets was not "
                                      "provided by any service)");
        view->setSummary(summary);
        view->setSteps(steps);
        return;
    }
    steps.append(metadata);

    const QString redirect = QStringLiteral("http://127.0.0.1:43127/callback");
    const QString encodedRedirect = QString::fromLatin1(QUrl::toPercentEncoding(redirect));
    AuthStep registration = sampleStep(AuthStep::Kind::Registration, AuthStep::Status::Ok, tr("Registration"),
        tr("No client id is configured and the server takes no Client ID Metadata Document: registered dynamically "
           "as a native application, client id 6b0f2c1e."),
        t0 + 40, 11);
    registration.request = QStringLiteral("POST %1/register\nContent-Type: application/json\n\n{\"client_name\":"
                                          "\"McpScope\",\"application_type\":\"native\",\"redirect_uris\":[\"%2\"],"
                                          "\"grant_types\":[\"authorization_code\",\"refresh_token\"],"
                                          "\"token_endpoint_auth_method\":\"none\"}")
                               .arg(origin, redirect);
    registration.response = QStringLiteral("HTTP/1.1 201 Created\nContent-Type: application/json\n\n{\"client_id\":"
                                           "\"6b0f2c1e\",\"client_id_issued_at\":1764684001,\"redirect_uris\":"
                                           "[\"%1\"],\"token_endpoint_auth_method\":\"none\"}")
                                .arg(redirect);
    steps.append(registration);

    AuthStep authorize = sampleStep(AuthStep::Kind::Authorize, AuthStep::Status::Ok, tr("Authorize"),
        tr("Opened in the system browser with scope mcp:tools and resource %1.").arg(resource), t0 + 60, 2630);
    authorize.request = QStringLiteral("GET %1/authorize?response_type=code&client_id=6b0f2c1e&redirect_uri=%2"
                                       "&code_challenge=•••&code_challenge_method=S256&state=•••&scope=mcp%3Atools"
                                       "&resource=%3")
                            .arg(origin, encodedRedirect, encodedResource);
    authorize.response = tr("(the browser: the user signed in and allowed access)");
    steps.append(authorize);

    AuthStep callback = sampleStep(AuthStep::Kind::Callback, AuthStep::Status::Ok, tr("Callback"),
        tr("The browser came back to the loopback listener on 127.0.0.1:43127 with a code; state matches, and iss "
           "names the issuer."),
        t0 + 2690, 1);
    callback.request = QStringLiteral("GET /callback?code=•••&state=•••&iss=%1")
                           .arg(QString::fromLatin1(QUrl::toPercentEncoding(origin + QLatin1Char('/'))));
    callback.response = tr("HTTP/1.1 200 OK (a page saying the browser can be closed)");
    steps.append(callback);

    AuthStep token = sampleStep(AuthStep::Kind::Token, AuthStep::Status::Ok, tr("Token"),
        tr("An access token for 3600 s and a refresh token, scope mcp:tools; both are kept in the keychain."),
        t0 + 2700, 14);
    token.request = QStringLiteral("POST %1/token\nContent-Type: application/x-www-form-urlencoded\n\n"
                                   "grant_type=authorization_code&code=•••&redirect_uri=%2&client_id=6b0f2c1e"
                                   "&code_verifier=•••&resource=%3")
                        .arg(origin, encodedRedirect, encodedResource);
    token.response = QStringLiteral("HTTP/1.1 200 OK\nContent-Type: application/json\nCache-Control: no-store\n\n"
                                    "{\"access_token\":\"•••\",\"token_type\":\"bearer\",\"expires_in\":3600,"
                                    "\"refresh_token\":\"•••\",\"scope\":\"mcp:tools\"}");
    steps.append(token);

    steps.append(sampleStep(AuthStep::Kind::Retry, AuthStep::Status::Ok, tr("Retried request"),
        tr("initialize was sent again with the new token and succeeded."), t0 + 2730, 18));

    AuthSummary summary;
    summary.state = ServerAuth::State::Authorized;
    summary.expiresAt = t0 + 2714 + 3600 * 1000;
    summary.hasToken = true;
    summary.storeDescription = tr("the Secret Service (GNOME Keyring)");
    view->setSummary(summary);
    view->setSteps(steps);
}

} // namespace mcpscope
