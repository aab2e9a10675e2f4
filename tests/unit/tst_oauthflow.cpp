#include "auth/oauthclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrlQuery>

using namespace Qt::StringLiterals;
using mcpscope::AuthStep;
using mcpscope::OAuthClient;

namespace {

/// A loopback authorization server with canned answers per path: the parts of the flow that depend on
/// what the metadata says (RFC 9207, the issuer a saved credential belongs to) need exact wire control.
class CannedServer : public QObject
{
public:
    struct Answer
    {
        int status = 200;
        QByteArray body;
    };

    CannedServer()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    QString base() const { return u"http://127.0.0.1:%1"_s.arg(m_server.serverPort()); }
    void answer(const QByteArray& path, int status, const QJsonObject& body)
    {
        m_answers.insert(path, { status, QJsonDocument(body).toJson(QJsonDocument::Compact) });
    }
    void answerRaw(const QByteArray& path, int status, const QByteArray& body)
    {
        m_answers.insert(path, { status, body });
    }
    /// Every request line and body received, in order.
    QList<QPair<QByteArray, QByteArray>> requests;

private:
    void read(QTcpSocket* socket)
    {
        QByteArray& buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        const QByteArray head = buffer.left(end);
        qsizetype length = 0;
        for (const QByteArray& line : head.split('\n')) {
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        }
        if (buffer.size() < end + 4 + length)
            return;
        const QByteArray requestLine = head.left(head.indexOf('\r'));
        const QByteArray body = buffer.mid(end + 4, length);
        buffer.clear();
        requests.append({ requestLine, body });
        QByteArray path = requestLine.split(' ').value(1);
        path = path.left(path.indexOf('?') < 0 ? path.size() : path.indexOf('?'));
        const Answer answer = m_answers.value(path, { 404, QByteArray("{}") });
        socket->write("HTTP/1.1 " + QByteArray::number(answer.status)
            + " X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
            + QByteArray::number(answer.body.size()) + "\r\n\r\n" + answer.body);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QHash<QByteArray, Answer> m_answers;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

} // namespace

class TestOAuthFlow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void callbackIssuer_data();
    void callbackIssuer();
    void anotherIssuerDropsRestoredCredentials();
    void refreshVerdict_data();
    void refreshVerdict();
    void forgetTokensRevokes_data();
    void forgetTokensRevokes();

private:
    /// PRM, AS metadata with or without the RFC 9207 promise, DCR and a token endpoint without expires_in.
    static void serveAuthorizationServer(CannedServer& server, bool issPromised);
    static OAuthClient::Options options(const CannedServer& server, qint64* now);
    /// Credentials as if a flow had finished: discovered endpoints at server, an access and a refresh token.
    static QByteArray savedTokens(const CannedServer& server, bool withRevocation);
};

void TestOAuthFlow::serveAuthorizationServer(CannedServer& server, bool issPromised)
{
    const QString base = server.base();
    server.answer("/.well-known/oauth-protected-resource/mcp", 200,
        { { u"resource"_s, QString(base + u"/mcp"_s) }, { u"authorization_servers"_s, QJsonArray { base } } });
    QJsonObject metadata { { u"issuer"_s, base }, { u"authorization_endpoint"_s, QString(base + u"/authorize"_s) },
        { u"token_endpoint"_s, QString(base + u"/token"_s) },
        { u"registration_endpoint"_s, QString(base + u"/register"_s) },
        { u"code_challenge_methods_supported"_s, QJsonArray { u"S256"_s } } };
    if (issPromised)
        metadata.insert(u"authorization_response_iss_parameter_supported"_s, true);
    server.answer("/.well-known/oauth-authorization-server", 200, metadata);
    server.answer("/register", 201, { { u"client_id"_s, u"fresh-client"_s } });
    server.answer("/token", 200,
        { { u"access_token"_s, u"at-secret-1"_s }, { u"token_type"_s, u"Bearer"_s },
            { u"refresh_token"_s, u"rt-secret-1"_s } });
}

OAuthClient::Options TestOAuthFlow::options(const CannedServer& server, qint64* now)
{
    OAuthClient::Options options;
    options.serverName = u"canned"_s;
    options.serverUrl = QUrl(QString(server.base() + u"/mcp"_s));
    options.browser = OAuthClient::Browser::External;
    options.clock = [now] { return *now; };
    options.requestTimeoutMs = 10000;
    return options;
}

void TestOAuthFlow::callbackIssuer_data()
{
    QTest::addColumn<bool>("promised");
    QTest::addColumn<QString>("iss"); ///< "right", "wrong" or "none"
    QTest::addColumn<bool>("accepted");

    QTest::newRow("promised and the right iss") << true << u"right"_s << true;
    QTest::newRow("promised and no iss is refused") << true << u"none"_s << false;
    QTest::newRow("promised and another iss is refused") << true << u"wrong"_s << false;
    QTest::newRow("not promised and no iss") << false << u"none"_s << true;
    QTest::newRow("not promised, another iss is still refused") << false << u"wrong"_s << false;
}

void TestOAuthFlow::callbackIssuer()
{
    QFETCH(bool, promised);
    QFETCH(QString, iss);
    QFETCH(bool, accepted);

    CannedServer server;
    QVERIFY(server.listen());
    serveAuthorizationServer(server, promised);
    qint64 now = 1'000'000;
    OAuthClient client(options(server, &now));
    QSignalSpy browser(&client, &OAuthClient::browserNeeded);
    QSignalSpy authorized(&client, &OAuthClient::authorized);
    QSignalSpy failed(&client, &OAuthClient::failed);
    client.authorize();
    QVERIFY(browser.wait(10000));
    QCOMPARE(client.state(), OAuthClient::State::WaitingForBrowser);
    const QUrlQuery request(browser.at(0).at(0).toUrl());
    QCOMPARE(request.queryItemValue(u"client_id"_s, QUrl::FullyDecoded), u"fresh-client"_s);
    QCOMPARE(request.queryItemValue(u"resource"_s, QUrl::FullyDecoded), QString(server.base() + u"/mcp"_s));

    QUrlQuery callback;
    callback.addQueryItem(u"code"_s, u"code-secret-1"_s);
    callback.addQueryItem(u"state"_s, request.queryItemValue(u"state"_s, QUrl::FullyDecoded));
    if (iss == u"right"_s)
        callback.addQueryItem(u"iss"_s, server.base());
    else if (iss == u"wrong"_s)
        callback.addQueryItem(u"iss"_s, u"https://evil.example"_s);
    client.completeAuthorization(callback);

    if (!accepted) {
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(u"iss"_s), qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(client.state(), OAuthClient::State::Failed);
        QVERIFY(!client.hasToken());
        // The code never went to the token endpoint.
        for (const auto& [line, body] : std::as_const(server.requests))
            QVERIFY(!line.contains("/token"));
        QCOMPARE(client.steps().last().kind, AuthStep::Kind::Callback);
        QCOMPARE(client.steps().last().status, AuthStep::Status::Failed);
        return;
    }
    QVERIFY(authorized.wait(10000));
    QCOMPARE(client.authorizationHeader(), QByteArray("Bearer at-secret-1"));
    // No expires_in: 3600 s from the injected clock.
    QCOMPARE(client.expiresAt(), now + 3600 * 1000);
    QVERIFY(client.canRefresh());

    // The token request carried the verifier; no step text holds any of the secrets.
    QByteArray verifier;
    for (const auto& [line, body] : std::as_const(server.requests)) {
        if (line.startsWith("POST /token"))
            verifier = QUrlQuery(QString::fromLatin1(body))
                           .queryItemValue(u"code_verifier"_s, QUrl::FullyDecoded)
                           .toLatin1();
    }
    QVERIFY(verifier.size() >= 43);
    const QList<QByteArray> secrets { "at-secret-1", "rt-secret-1", "code-secret-1", verifier };
    for (const AuthStep& step : client.steps()) {
        const QString text = step.title + step.detail + step.urlsTried.join(u' ') + step.request + step.response;
        for (const QByteArray& secret : secrets)
            QVERIFY2(!text.contains(QString::fromLatin1(secret)), qPrintable(AuthStep::kindName(step.kind)));
    }
    bool tokenStepMasked = false;
    for (const AuthStep& step : client.steps()) {
        if (step.kind == AuthStep::Kind::Token)
            tokenStepMasked = step.response.contains(u"[redacted]"_s) && step.request.contains(u"[redacted]"_s);
    }
    QVERIFY(tokenStepMasked);
}

void TestOAuthFlow::anotherIssuerDropsRestoredCredentials()
{
    CannedServer server;
    QVERIFY(server.listen());
    serveAuthorizationServer(server, false);
    qint64 now = 1'000'000;
    const OAuthClient::Options opts = options(server, &now);
    OAuthClient client(opts);
    // Saved before discovery finished, for another authorization server.
    const QJsonObject saved { { u"version"_s, 1 }, { u"resource"_s, QString(server.base() + u"/mcp"_s) },
        { u"issuer"_s, u"https://old-issuer.example"_s }, { u"discovered"_s, false },
        { u"registration"_s,
            QJsonObject { { u"source"_s, int(mcpscope::OAuthRegistration::Source::Dynamic) },
                { u"clientId"_s, u"old-client"_s }, { u"tokenEndpointAuthMethod"_s, u"none"_s },
                { u"redirectUri"_s, opts.redirectUri.toString() } } },
        { u"tokens"_s,
            QJsonObject { { u"accessToken"_s, u"old-at"_s }, { u"refreshToken"_s, u"old-rt"_s },
                { u"expiresAt"_s, 9'000'000.0 } } } };
    QVERIFY(client.restoreCredentials(QJsonDocument(saved).toJson()));
    QCOMPARE(client.issuer(), u"https://old-issuer.example"_s);
    QCOMPARE(client.registration().clientId, u"old-client"_s);

    QSignalSpy browser(&client, &OAuthClient::browserNeeded);
    client.authorize();
    QVERIFY(browser.wait(10000));
    QCOMPARE(client.issuer(), server.base());
    QVERIFY(!client.hasToken());
    QVERIFY(!client.canRefresh());
    QCOMPARE(client.registration().clientId, u"fresh-client"_s);
    QCOMPARE(
        QUrlQuery(browser.at(0).at(0).toUrl()).queryItemValue(u"client_id"_s, QUrl::FullyDecoded), u"fresh-client"_s);
    const QJsonObject resaved = QJsonDocument::fromJson(client.saveCredentials()).object();
    QCOMPARE(resaved.value(u"issuer"_s).toString(), server.base());
    QVERIFY(!client.saveCredentials().contains("old-at"));
    QVERIFY(!client.saveCredentials().contains("old-client"));
}

QByteArray TestOAuthFlow::savedTokens(const CannedServer& server, bool withRevocation)
{
    const QString base = server.base();
    const QJsonObject saved { { u"version"_s, 1 }, { u"resource"_s, QString(base + u"/mcp"_s) }, { u"issuer"_s, base },
        { u"discovered"_s, true },
        { u"registration"_s,
            QJsonObject { { u"source"_s, int(mcpscope::OAuthRegistration::Source::Dynamic) },
                { u"clientId"_s, u"dyn-1"_s }, { u"clientSecret"_s, u"cs-secret-1"_s },
                { u"tokenEndpointAuthMethod"_s, u"client_secret_basic"_s } } },
        { u"discovery"_s,
            QJsonObject { { u"authServer"_s, base }, { u"tokenEndpoint"_s, QString(base + u"/token"_s) },
                { u"revocationEndpoint"_s, withRevocation ? QString(base + u"/revoke"_s) : QString() } } },
        { u"tokens"_s,
            QJsonObject { { u"accessToken"_s, u"at-old"_s }, { u"refreshToken"_s, u"rt-old"_s },
                { u"expiresAt"_s, 2'000'000.0 } } } };
    return QJsonDocument(saved).toJson();
}

void TestOAuthFlow::refreshVerdict_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("verdict");

    QTest::newRow("400 invalid_grant ends the credentials")
        << 400 << QByteArray(R"({"error":"invalid_grant"})") << true;
    QTest::newRow("401 invalid_client ends the credentials")
        << 401 << QByteArray(R"({"error":"invalid_client"})") << true;
    QTest::newRow("503 keeps the token") << 503 << QByteArray(R"({"error":"temporarily_unavailable"})") << false;
    QTest::newRow("400 without an OAuth error keeps the token") << 400 << QByteArray("<html>proxy</html>") << false;
}

void TestOAuthFlow::refreshVerdict()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(bool, verdict);

    CannedServer server;
    QVERIFY(server.listen());
    server.answer("/token", status, QJsonDocument::fromJson(body).object());
    if (!QJsonDocument::fromJson(body).isObject())
        server.answerRaw("/token", status, body);
    qint64 now = 1'000'000;
    OAuthClient client(options(server, &now));
    QVERIFY(client.restoreCredentials(savedTokens(server, false)));
    QVERIFY(client.canRefresh());
    QSignalSpy expired(&client, &OAuthClient::expired);
    QSignalSpy failed(&client, &OAuthClient::failed);
    client.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(expired.size() + failed.size(), 1, 10000);
    QCOMPARE(expired.size(), verdict ? 1 : 0);
    QCOMPARE(client.state(), verdict ? OAuthClient::State::Expired : OAuthClient::State::Authorized);
    QCOMPARE(client.hasToken(), !verdict);
    QCOMPARE(client.canRefresh(), !verdict);
    // The refresh used the refresh token, the resource, and the registration's client authentication.
    const QUrlQuery form(QString::fromLatin1(server.requests.value(0).second));
    QCOMPARE(form.queryItemValue(u"grant_type"_s, QUrl::FullyDecoded), u"refresh_token"_s);
    QCOMPARE(form.queryItemValue(u"refresh_token"_s, QUrl::FullyDecoded), u"rt-old"_s);
    QCOMPARE(form.queryItemValue(u"resource"_s, QUrl::FullyDecoded), QString(server.base() + u"/mcp"_s));
    const AuthStep& step = client.steps().last();
    QCOMPARE(step.kind, AuthStep::Kind::Refresh);
    QCOMPARE(step.status, AuthStep::Status::Failed);
    QVERIFY2(step.detail.contains(QString::number(status)), qPrintable(step.detail));
    QVERIFY(!step.request.contains(u"rt-old"_s));
    QVERIFY(!step.request.contains(u"cs-secret-1"_s));
}

void TestOAuthFlow::forgetTokensRevokes_data()
{
    QTest::addColumn<bool>("endpoint");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("stepStatus");
    QTest::addColumn<int>("requests");

    QTest::newRow("revoked at the endpoint") << true << 200 << int(AuthStep::Status::Ok) << 2;
    QTest::newRow("a refused revocation says so") << true << 503 << int(AuthStep::Status::Failed) << 2;
    QTest::newRow("no revocation endpoint") << false << 200 << int(AuthStep::Status::Skipped) << 0;
}

void TestOAuthFlow::forgetTokensRevokes()
{
    QFETCH(bool, endpoint);
    QFETCH(int, status);
    QFETCH(int, stepStatus);
    QFETCH(int, requests);

    CannedServer server;
    QVERIFY(server.listen());
    server.answer("/revoke", status, {});
    qint64 now = 1'000'000;
    OAuthClient client(options(server, &now));
    QVERIFY(client.restoreCredentials(savedTokens(server, endpoint)));
    QSignalSpy revoked(&client, &OAuthClient::revoked);
    client.forgetTokens();
    QTRY_COMPARE_WITH_TIMEOUT(revoked.size(), 1, 10000);
    QVERIFY(!client.hasToken());
    QVERIFY(!client.canRefresh());
    QVERIFY(!client.saveCredentials().contains("at-old"));
    QVERIFY(!client.saveCredentials().contains("rt-old"));
    QCOMPARE(server.requests.size(), requests);
    if (requests) {
        // The refresh token first (it ends the whole grant), each with its hint.
        const QUrlQuery first(QString::fromLatin1(server.requests.at(0).second));
        QCOMPARE(first.queryItemValue(u"token_type_hint"_s, QUrl::FullyDecoded), u"refresh_token"_s);
        QCOMPARE(first.queryItemValue(u"token"_s, QUrl::FullyDecoded), u"rt-old"_s);
        const QUrlQuery second(QString::fromLatin1(server.requests.at(1).second));
        QCOMPARE(second.queryItemValue(u"token_type_hint"_s, QUrl::FullyDecoded), u"access_token"_s);
    }
    const AuthStep& step = client.steps().last();
    QCOMPARE(step.kind, AuthStep::Kind::Revoke);
    QCOMPARE(int(step.status), stepStatus);
    if (status != 200)
        QVERIFY2(step.detail.contains(u"503"_s), qPrintable(step.detail));
    if (!endpoint)
        QVERIFY2(step.detail.contains(u"no revocation endpoint"_s), qPrintable(step.detail));
    QVERIFY(!step.request.contains(u"rt-old"_s));
    QVERIFY(!step.request.contains(u"at-old"_s));
}

QTEST_GUILESS_MAIN(TestOAuthFlow)
#include "tst_oauthflow.moc"
