// The OAuth client's protocol pieces that need no server (issue 13's unit tests): the discovery order of
// MCP-NOTES "Authorization" §2 and §3, PKCE S256 (RFC 7636 appendix B), ES256 JWT client assertions
// verified with OpenSSL, the masking of secrets in step texts, and what the token store keeps: the round
// trip, the resource it belongs to, and expiry read with an injected clock.

#include "auth/jwt.h"
#include "auth/oauthclient.h"
#include "auth/oauthwire.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "es256verify.h"

#include <memory>

using namespace Qt::StringLiterals;
using mcpscope::OAuthClient;
using mcpscope::test::verifyEs256;

namespace {

struct KeyFree
{
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

Key generateKey(const char* curve)
{
    return Key(EVP_EC_gen(curve));
}

QByteArray privatePem(EVP_PKEY* key)
{
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    QByteArray pem(data, size);
    BIO_free(bio);
    return pem;
}

QUrl url(const QString& text)
{
    return QUrl(text);
}

} // namespace

class TestOAuthProtocol : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void resourceMetadataOrder_data();
    void resourceMetadataOrder();
    void serverMetadataOrder_data();
    void serverMetadataOrder();
    void pkceMatchesRfc7636();
    void clientAssertionVerifies();
    void assertionRefusesWrongKeys_data();
    void assertionRefusesWrongKeys();
    void masksSecrets_data();
    void masksSecrets();
    void savedCredentialsRoundTrip();
    void savedCredentialsOfAnotherResourceAreRefused();
    void expiryFollowsTheInjectedClock();
};

void TestOAuthProtocol::resourceMetadataOrder_data()
{
    QTest::addColumn<QUrl>("server");
    QTest::addColumn<QUrl>("fromChallenge");
    QTest::addColumn<QList<QUrl>>("expected");
    QTest::newRow("challenge URL first, then path-based, then root")
        << url(u"https://mcp.example/api/mcp"_s) << url(u"https://mcp.example/meta"_s)
        << QList<QUrl> { url(u"https://mcp.example/meta"_s),
               url(u"https://mcp.example/.well-known/oauth-protected-resource/api/mcp"_s),
               url(u"https://mcp.example/.well-known/oauth-protected-resource"_s) };
    QTest::newRow("no challenge URL") << url(u"http://127.0.0.1:3000/mcp"_s) << QUrl()
                                      << QList<QUrl> {
                                             url(u"http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"_s),
                                             url(u"http://127.0.0.1:3000/.well-known/oauth-protected-resource"_s)
                                         };
    QTest::newRow("server at the root: only the root URL")
        << url(u"https://mcp.example/"_s) << QUrl()
        << QList<QUrl> { url(u"https://mcp.example/.well-known/oauth-protected-resource"_s) };
    QTest::newRow("a challenge URL that is not http is skipped")
        << url(u"https://mcp.example/mcp"_s) << url(u"file:///etc/passwd"_s)
        << QList<QUrl> { url(u"https://mcp.example/.well-known/oauth-protected-resource/mcp"_s),
               url(u"https://mcp.example/.well-known/oauth-protected-resource"_s) };
}

void TestOAuthProtocol::resourceMetadataOrder()
{
    QFETCH(QUrl, server);
    QFETCH(QUrl, fromChallenge);
    QFETCH(QList<QUrl>, expected);
    QCOMPARE(OAuthClient::resourceMetadataCandidates(server, fromChallenge), expected);
}

void TestOAuthProtocol::serverMetadataOrder_data()
{
    QTest::addColumn<QUrl>("issuer");
    QTest::addColumn<QList<QUrl>>("expected");
    QTest::newRow("issuer with a path")
        << url(u"https://auth.example/tenant1"_s)
        << QList<QUrl> { url(u"https://auth.example/.well-known/oauth-authorization-server/tenant1"_s),
               url(u"https://auth.example/.well-known/openid-configuration/tenant1"_s),
               url(u"https://auth.example/tenant1/.well-known/openid-configuration"_s) };
    QTest::newRow("issuer without a path")
        << url(u"https://auth.example"_s)
        << QList<QUrl> { url(u"https://auth.example/.well-known/oauth-authorization-server"_s),
               url(u"https://auth.example/.well-known/openid-configuration"_s) };
    QTest::newRow("trailing slash is no path")
        << url(u"http://127.0.0.1:4000/"_s)
        << QList<QUrl> { url(u"http://127.0.0.1:4000/.well-known/oauth-authorization-server"_s),
               url(u"http://127.0.0.1:4000/.well-known/openid-configuration"_s) };
}

void TestOAuthProtocol::serverMetadataOrder()
{
    QFETCH(QUrl, issuer);
    QFETCH(QList<QUrl>, expected);
    QCOMPARE(OAuthClient::serverMetadataCandidates(issuer), expected);
}

void TestOAuthProtocol::pkceMatchesRfc7636()
{
    // RFC 7636 appendix B.
    QCOMPARE(OAuthClient::pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        QByteArray("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
}

void TestOAuthProtocol::clientAssertionVerifies()
{
    const Key key = generateKey("P-256");
    QVERIFY(key);
    QString error;
    const QByteArray jws = mcpscope::Jwt::clientAssertion(
        u"client-1"_s, u"https://auth.example/"_s, privatePem(key.get()), 1'700'000'000, &error);
    QVERIFY2(!jws.isEmpty(), qPrintable(error));
    QVERIFY(verifyEs256(jws, key.get()));
    const QJsonObject header = mcpscope::Jwt::headerOf(jws);
    QCOMPARE(header.value("alg"_L1).toString(), u"ES256"_s);
    QCOMPARE(header.value("typ"_L1).toString(), u"JWT"_s);
    const QJsonObject claims = mcpscope::Jwt::claimsOf(jws);
    QCOMPARE(claims.value("iss"_L1).toString(), u"client-1"_s);
    QCOMPARE(claims.value("sub"_L1).toString(), u"client-1"_s);
    QCOMPARE(claims.value("aud"_L1).toString(), u"https://auth.example/"_s);
    QCOMPARE(claims.value("iat"_L1).toInteger(), 1'700'000'000);
    QCOMPARE(claims.value("exp"_L1).toInteger(), 1'700'000'300);
    QVERIFY(!claims.value("jti"_L1).toString().isEmpty());
    // A second assertion is not a replay of the first.
    const QByteArray again = mcpscope::Jwt::clientAssertion(
        u"client-1"_s, u"https://auth.example/"_s, privatePem(key.get()), 1'700'000'000, &error);
    QVERIFY(mcpscope::Jwt::claimsOf(again).value("jti"_L1) != claims.value("jti"_L1));
    // Another key does not verify it.
    const Key other = generateKey("P-256");
    QVERIFY(!verifyEs256(jws, other.get()));
}

void TestOAuthProtocol::assertionRefusesWrongKeys_data()
{
    QTest::addColumn<QByteArray>("pem");
    QTest::addColumn<QString>("errorPart");
    const Key p384 = generateKey("P-384");
    QTest::newRow("not PEM") << QByteArray("hello") << u"not a PEM private key"_s;
    QTest::newRow("P-384 is not ES256") << privatePem(p384.get()) << u"not an EC P-256 key"_s;
}

void TestOAuthProtocol::assertionRefusesWrongKeys()
{
    QFETCH(QByteArray, pem);
    QFETCH(QString, errorPart);
    QString error;
    QVERIFY(mcpscope::Jwt::clientAssertion(u"c"_s, u"https://a.example"_s, pem, 1, &error).isEmpty());
    QVERIFY2(error.contains(errorPart), qPrintable(error));
}

void TestOAuthProtocol::masksSecrets_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("masked");
    QTest::newRow("token answer")
        << uR"({"access_token":"at-123","token_type":"bearer","refresh_token":"rt-456"})"_s
        << uR"({"access_token":"[redacted]","token_type":"bearer","refresh_token":"[redacted]"})"_s;
    QTest::newRow("form body")
        << u"grant_type=authorization_code&code=abc&code_verifier=xyz&resource=r"_s
        << u"grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&resource=r"_s;
    QTest::newRow("callback URL keeps state and iss")
        << u"http://127.0.0.1:5/cb?code=c0de&state=s1&iss=https%3A%2F%2Fa"_s
        << u"http://127.0.0.1:5/cb?code=[redacted]&state=s1&iss=https%3A%2F%2Fa"_s;
    QTest::newRow("code_challenge is public")
        << u"?code_challenge=E9M&code_challenge_method=S256"_s << u"?code_challenge=E9M&code_challenge_method=S256"_s;
    QTest::newRow("Basic client authentication")
        << u"POST /token\nAuthorization: Basic Y2xpZW50OnNlY3JldA==\nAccept: application/json"_s
        << u"POST /token\nAuthorization: [redacted]\nAccept: application/json"_s;
    QTest::newRow("assertions and client secrets")
        << u"client_assertion=eyJ.x.y&client_secret=s3"_s << u"client_assertion=[redacted]&client_secret=[redacted]"_s;
    QTest::newRow("registration answer") << uR"({"client_id":"c","client_secret" : "s"})"_s
                                         << uR"({"client_id":"c","client_secret" : "[redacted]"})"_s;
}

void TestOAuthProtocol::masksSecrets()
{
    QFETCH(QString, text);
    QFETCH(QString, masked);
    QCOMPARE(mcpscope::OAuthWire::maskSecrets(text), masked);
}

void TestOAuthProtocol::savedCredentialsRoundTrip()
{
    const QJsonObject saved {
        { u"version"_s, 1 },
        { u"resource"_s, u"http://127.0.0.1:3000/mcp"_s },
        { u"issuer"_s, u"http://127.0.0.1:3000/"_s },
        { u"discovered"_s, true },
        { u"registration"_s,
            QJsonObject { { u"source"_s, int(mcpscope::OAuthRegistration::Source::Dynamic) },
                { u"clientId"_s, u"dyn-1"_s }, { u"clientSecret"_s, QString() },
                { u"tokenEndpointAuthMethod"_s, u"none"_s },
                { u"redirectUri"_s, u"http://127.0.0.1:4444/mcpscope/oauth/callback"_s } } },
        { u"discovery"_s,
            QJsonObject { { u"tokenEndpoint"_s, u"http://127.0.0.1:3000/token"_s },
                { u"revocationEndpoint"_s, u"http://127.0.0.1:3000/revoke"_s },
                { u"authServer"_s, u"http://127.0.0.1:3000/"_s } } },
        { u"tokens"_s,
            QJsonObject { { u"accessToken"_s, u"at-1"_s }, { u"refreshToken"_s, u"rt-1"_s },
                { u"expiresAt"_s, 1'000'000.0 }, { u"scope"_s, u"mcp:tools"_s } } },
    };
    OAuthClient::Options options;
    options.serverName = u"s"_s;
    options.serverUrl = url(u"http://127.0.0.1:3000/mcp/"_s);
    OAuthClient client(options);
    QVERIFY(client.restoreCredentials(QJsonDocument(saved).toJson()));
    QCOMPARE(client.state(), OAuthClient::State::Authorized);
    QCOMPARE(client.authorizationHeader(), QByteArray("Bearer at-1"));
    QCOMPARE(client.registration().clientId, u"dyn-1"_s);
    QCOMPARE(client.issuer(), u"http://127.0.0.1:3000/"_s);
    QCOMPARE(client.credentialsKey(), u"oauth/http://127.0.0.1:3000/mcp"_s);
    QVERIFY(client.canRefresh());
    // The token is for this server only.
    QCOMPARE(client.authorizationFor(url(u"http://127.0.0.1:3000/mcp"_s)), QByteArray("Bearer at-1"));
    QVERIFY(client.authorizationFor(url(u"http://127.0.0.1:3001/mcp"_s)).isEmpty());
    QVERIFY(client.authorizationFor(url(u"http://127.0.0.1:3000/other"_s)).isEmpty());

    OAuthClient copy(options);
    QVERIFY(copy.restoreCredentials(client.saveCredentials()));
    QCOMPARE(copy.saveCredentials(), client.saveCredentials());
    QCOMPARE(copy.expiresAt(), 1'000'000);
}

void TestOAuthProtocol::savedCredentialsOfAnotherResourceAreRefused()
{
    OAuthClient::Options a;
    a.serverUrl = url(u"https://a.example/mcp"_s);
    OAuthClient first(a);
    OAuthClient::Options b;
    b.serverUrl = url(u"https://b.example/mcp"_s);
    OAuthClient second(b);
    QVERIFY(!second.restoreCredentials(first.saveCredentials()));
    QVERIFY(!second.restoreCredentials("not json"));
    QVERIFY(!second.hasToken());
}

void TestOAuthProtocol::expiryFollowsTheInjectedClock()
{
    qint64 now = 0;
    OAuthClient::Options options;
    options.serverUrl = url(u"http://127.0.0.1:3000/mcp"_s);
    options.clock = [&now] { return now; };
    OAuthClient client(options);
    const QJsonObject saved { { u"version"_s, 1 }, { u"resource"_s, u"http://127.0.0.1:3000/mcp"_s },
        { u"tokens"_s, QJsonObject { { u"accessToken"_s, u"at"_s }, { u"expiresAt"_s, 3'600'000.0 } } } };
    QVERIFY(client.restoreCredentials(QJsonDocument(saved).toJson()));
    // RECOVERY.md §4: refresh is due from 60 s before expiry.
    now = 3'600'000 - 61'000;
    QVERIFY(!client.isExpiring());
    now = 3'600'000 - 59'000;
    QVERIFY(client.isExpiring());
    now = 3'600'000 + 1;
    QVERIFY(client.isExpiring());
    // No refresh token and an authorization-code grant: only a new authorization helps.
    QVERIFY(!client.canRefresh());
}

QTEST_MAIN(TestOAuthProtocol)
#include "tst_oauthprotocol.moc"
