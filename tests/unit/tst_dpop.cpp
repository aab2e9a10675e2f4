// DPoP (RFC 9449) on the client side: proof claims (htu without query, ath of a known token, the nonce a
// use_dpop_nonce challenge handed out), the DPoP challenge, the key pair kept with the tokens, and that
// neither the key nor a proof survives redaction.

#include "auth/dpop.h"
#include "auth/jwt.h"
#include "auth/oauthclient.h"
#include "auth/oauthwire.h"
#include "calllog/redactor.h"
#include "transport/transportfailure.h"
#include "transport/wireexchange.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "es256verify.h"

using namespace Qt::StringLiterals;
using mcpscope::BearerChallenge;
using mcpscope::OAuthClient;
using mcpscope::test::verifyEs256;
namespace Dpop = mcpscope::Dpop;
namespace Jwt = mcpscope::Jwt;

namespace {

const QUrl ServerUrl(u"http://127.0.0.1:3000/mcp"_s);

QByteArray fromBase64Url(const QByteArray& text)
{
    return QByteArray::fromBase64(text, QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

/// What the token store would hold for a DPoP-bound (or bearer) token of ServerUrl, key included.
QByteArray savedCredentials(const QByteArray& pem, const QString& tokenType)
{
    const QJsonObject saved {
        { u"version"_s, 1 },
        { u"resource"_s, OAuthClient::canonicalResource(ServerUrl) },
        { u"issuer"_s, u"http://127.0.0.1:4000"_s },
        { u"tokens"_s,
            QJsonObject {
                { u"accessToken"_s, u"at-dpop-1"_s }, { u"expiresAt"_s, 0 }, { u"tokenType"_s, tokenType } } },
        { u"dpop"_s, QJsonObject { { u"key"_s, QString::fromLatin1(mcpscope::OAuthWire::base64Url(pem)) } } },
    };
    return QJsonDocument(saved).toJson(QJsonDocument::Compact);
}

QByteArray proofOf(const mcpscope::CredentialProvider::Headers& headers)
{
    for (const auto& [name, value] : headers) {
        if (name == "DPoP")
            return value;
    }
    return {};
}

OAuthClient::Options options()
{
    OAuthClient::Options options;
    options.serverName = u"s"_s;
    options.serverUrl = ServerUrl;
    return options;
}

mcpscope::TransportFailure nonceChallenge(const QByteArray& wwwAuthenticate, const QByteArray& nonce)
{
    mcpscope::TransportFailure failure;
    failure.event = mcpscope::TransportEvent::HttpStatus;
    failure.httpStatus = 401;
    failure.headers = { { "WWW-Authenticate", wwwAuthenticate } };
    if (!nonce.isEmpty())
        failure.headers.append({ "DPoP-Nonce", nonce });
    return failure;
}

} // namespace

class TestDpop : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void htuDropsQueryAndFragment_data();
    void htuDropsQueryAndFragment();
    void athOfTheRfcExample();
    void proofClaims();
    void proofsAreFresh();
    void parsesChallenge_data();
    void parsesChallenge();
    void keyPairRoundTrip();
    void boundTokenSendsProof();
    void nonceAfterUseDpopNonce();
    void otherFailuresAreNoNonceChallenge_data();
    void otherFailuresAreNoNonceChallenge();
    void keyAndProofAreRedacted();
};

void TestDpop::htuDropsQueryAndFragment_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<QString>("htu");
    QTest::newRow("plain endpoint") << QUrl(u"http://127.0.0.1:3000/mcp"_s) << u"http://127.0.0.1:3000/mcp"_s;
    QTest::newRow("query dropped") << QUrl(u"https://h.example/messages?sessionId=42"_s)
                                   << u"https://h.example/messages"_s;
    QTest::newRow("fragment dropped") << QUrl(u"https://h.example/mcp#top"_s) << u"https://h.example/mcp"_s;
    QTest::newRow("user info dropped") << QUrl(u"https://u:p@h.example/mcp?a=1"_s) << u"https://h.example/mcp"_s;
}

void TestDpop::htuDropsQueryAndFragment()
{
    QFETCH(QUrl, url);
    QFETCH(QString, htu);
    QCOMPARE(Dpop::htu(url), htu);
}

void TestDpop::athOfTheRfcExample()
{
    // RFC 9449 §7.1, figure 12: the access token and the ath of the proof sent with it.
    QCOMPARE(Dpop::ath(u"Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"_s),
        QByteArray("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"));
}

void TestDpop::proofClaims()
{
    QString error;
    const QByteArray pem = Jwt::generateEs256Key(&error);
    QVERIFY2(!pem.isEmpty(), qPrintable(error));
    const QJsonObject jwk = Jwt::publicJwk(pem, &error);
    const QByteArray proof = Dpop::proof(pem, jwk, "POST", QUrl(u"http://127.0.0.1:3000/mcp?x=1#f"_s), "n-1",
        u"Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"_s, 1700000000, &error);
    QVERIFY2(!proof.isEmpty(), qPrintable(error));
    QVERIFY(verifyEs256(proof, pem));

    const QJsonObject header = Jwt::headerOf(proof);
    QCOMPARE(header.value("typ"_L1).toString(), u"dpop+jwt"_s);
    QCOMPARE(header.value("alg"_L1).toString(), u"ES256"_s);
    QCOMPARE(header.value("jwk"_L1).toObject(), jwk);
    QVERIFY(!header.value("jwk"_L1).toObject().contains("d"_L1));

    const QJsonObject claims = Jwt::claimsOf(proof);
    QCOMPARE(claims.value("htm"_L1).toString(), u"POST"_s);
    QCOMPARE(claims.value("htu"_L1).toString(), u"http://127.0.0.1:3000/mcp"_s);
    QCOMPARE(claims.value("iat"_L1).toInteger(), 1700000000);
    QCOMPARE(claims.value("nonce"_L1).toString(), u"n-1"_s);
    QCOMPARE(claims.value("ath"_L1).toString(), u"fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"_s);
    QVERIFY(!claims.value("jti"_L1).toString().isEmpty());

    // A token request's proof: no access token yet, no nonce known.
    const QJsonObject tokenClaims
        = Jwt::claimsOf(Dpop::proof(pem, jwk, "POST", QUrl(u"http://as/token"_s), {}, {}, 1, &error));
    QVERIFY(!tokenClaims.contains("ath"_L1));
    QVERIFY(!tokenClaims.contains("nonce"_L1));
}

void TestDpop::proofsAreFresh()
{
    QString error;
    const QByteArray pem = Jwt::generateEs256Key(&error);
    const QJsonObject jwk = Jwt::publicJwk(pem, &error);
    const QByteArray first = Dpop::proof(pem, jwk, "POST", ServerUrl, {}, u"t"_s, 1, &error);
    const QByteArray second = Dpop::proof(pem, jwk, "POST", ServerUrl, {}, u"t"_s, 1, &error);
    QVERIFY(Jwt::claimsOf(first).value("jti"_L1) != Jwt::claimsOf(second).value("jti"_L1));
}

void TestDpop::parsesChallenge_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<bool>("isBearer");
    QTest::addColumn<bool>("isDpop");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QStringList>("algs");
    QTest::addColumn<QUrl>("resourceMetadata");
    QTest::newRow("DPoP with resource metadata")
        << QByteArray(R"(DPoP resource_metadata="http://h/.well-known/oauth-protected-resource/mcp")") << false << true
        << QString() << QStringList() << QUrl(u"http://h/.well-known/oauth-protected-resource/mcp"_s);
    QTest::newRow("use_dpop_nonce") << QByteArray(R"(DPoP error="use_dpop_nonce", resource_metadata="http://h/m")")
                                    << false << true << u"use_dpop_nonce"_s << QStringList() << QUrl(u"http://h/m"_s);
    QTest::newRow("algs") << QByteArray(R"(dpop algs="ES256 PS256", error="invalid_token")") << false << true
                          << u"invalid_token"_s << QStringList { u"ES256"_s, u"PS256"_s } << QUrl();
    QTest::newRow("Bearer and DPoP offered") << QByteArray(R"(Bearer realm="mcp", DPoP algs="ES256")") << true << true
                                             << QString() << QStringList { u"ES256"_s } << QUrl();
    QTest::newRow("Bearer only") << QByteArray(R"(Bearer error="invalid_token")") << true << false << u"invalid_token"_s
                                 << QStringList() << QUrl();
    QTest::newRow("another scheme's algs ignored")
        << QByteArray(R"(Basic algs="ES256")") << false << false << QString() << QStringList() << QUrl();
}

void TestDpop::parsesChallenge()
{
    QFETCH(QByteArray, header);
    const BearerChallenge challenge = BearerChallenge::parse(header);
    QTEST(challenge.isBearer, "isBearer");
    QTEST(challenge.isDpop, "isDpop");
    QTEST(challenge.error, "error");
    QTEST(challenge.dpopAlgs, "algs");
    QTEST(challenge.resourceMetadata, "resourceMetadata");
}

void TestDpop::keyPairRoundTrip()
{
    QString error;
    const QByteArray pem = Jwt::generateEs256Key(&error);
    const QJsonObject jwk = Jwt::publicJwk(pem, &error);
    QCOMPARE(jwk.value("kty"_L1).toString(), u"EC"_s);
    QCOMPARE(jwk.value("crv"_L1).toString(), u"P-256"_s);
    QCOMPARE(fromBase64Url(jwk.value("x"_L1).toString().toLatin1()).size(), 32);
    QCOMPARE(fromBase64Url(jwk.value("y"_L1).toString().toLatin1()).size(), 32);
    QCOMPARE(jwk.keys(), (QStringList { u"crv"_s, u"kty"_s, u"x"_s, u"y"_s }));
    QCOMPARE(Jwt::thumbprint(jwk).size(), 43);

    OAuthClient client(options());
    QVERIFY(client.restoreCredentials(savedCredentials(pem, u"DPoP"_s)));
    QVERIFY(client.isDpopBound());
    QCOMPARE(client.dpopPublicJwk(), jwk);
    // Saved again and restored elsewhere: the same key, so the token's cnf.jkt still matches.
    OAuthClient again(options());
    QVERIFY(again.restoreCredentials(client.saveCredentials()));
    QVERIFY(again.isDpopBound());
    QCOMPARE(Jwt::thumbprint(again.dpopPublicJwk()), Jwt::thumbprint(jwk));

    QVERIFY(Jwt::publicJwk("not a key", &error).isEmpty());
    QVERIFY(!error.isEmpty());
}

void TestDpop::boundTokenSendsProof()
{
    QString error;
    const QByteArray pem = Jwt::generateEs256Key(&error);
    OAuthClient client(options());
    QVERIFY(client.restoreCredentials(savedCredentials(pem, u"DPoP"_s)));
    QCOMPARE(client.authorizationFor(ServerUrl), QByteArray("DPoP at-dpop-1"));
    const auto headers = client.headersFor(ServerUrl, "GET", QUrl(u"http://127.0.0.1:3000/mcp?probe=1"_s));
    QCOMPARE(headers.first().second, QByteArray("DPoP at-dpop-1"));
    const QByteArray proof = proofOf(headers);
    QVERIFY(verifyEs256(proof, pem));
    const QJsonObject claims = Jwt::claimsOf(proof);
    QCOMPARE(claims.value("htm"_L1).toString(), u"GET"_s);
    QCOMPARE(claims.value("htu"_L1).toString(), u"http://127.0.0.1:3000/mcp"_s);
    QCOMPARE(claims.value("ath"_L1).toString(), QString::fromLatin1(Dpop::ath(u"at-dpop-1"_s)));
    // Another server gets nothing, and a bearer token gets no proof.
    QVERIFY(client.headersFor(QUrl(u"http://127.0.0.1:3001/mcp"_s), "POST", QUrl(u"http://127.0.0.1:3001/mcp"_s))
                .isEmpty());
    OAuthClient bearer(options());
    QVERIFY(bearer.restoreCredentials(savedCredentials(pem, u"Bearer"_s)));
    const auto bearerHeaders = bearer.headersFor(ServerUrl, "POST", ServerUrl);
    QCOMPARE(bearerHeaders.size(), 1);
    QCOMPARE(bearerHeaders.first().second, QByteArray("Bearer at-dpop-1"));
}

void TestDpop::nonceAfterUseDpopNonce()
{
    QString error;
    const QByteArray pem = Jwt::generateEs256Key(&error);
    OAuthClient client(options());
    QVERIFY(client.restoreCredentials(savedCredentials(pem, u"DPoP"_s)));
    QVERIFY(!Jwt::claimsOf(proofOf(client.headersFor(ServerUrl, "POST", ServerUrl))).contains("nonce"_L1));
    QVERIFY(client.takeNonceChallenge(nonceChallenge(R"(DPoP error="use_dpop_nonce")", "rs-nonce-1")));
    QCOMPARE(Jwt::claimsOf(proofOf(client.headersFor(ServerUrl, "POST", ServerUrl))).value("nonce"_L1).toString(),
        u"rs-nonce-1"_s);
    // A nonce from a successful response replaces it; another origin's nonce is not sent here.
    client.noteNonce(ServerUrl, "rs-nonce-2");
    client.noteNonce(QUrl(u"http://127.0.0.1:4000/token"_s), "as-nonce");
    QCOMPARE(Jwt::claimsOf(proofOf(client.headersFor(ServerUrl, "POST", ServerUrl))).value("nonce"_L1).toString(),
        u"rs-nonce-2"_s);
}

void TestDpop::otherFailuresAreNoNonceChallenge_data()
{
    QTest::addColumn<QString>("tokenType");
    QTest::addColumn<QByteArray>("wwwAuthenticate");
    QTest::addColumn<QByteArray>("nonce");
    QTest::newRow("no nonce header") << u"DPoP"_s << QByteArray(R"(DPoP error="use_dpop_nonce")") << QByteArray();
    QTest::newRow("invalid token") << u"DPoP"_s << QByteArray(R"(DPoP error="invalid_token")") << QByteArray("n");
    QTest::newRow("bearer token") << u"Bearer"_s << QByteArray(R"(DPoP error="use_dpop_nonce")") << QByteArray("n");
    QTest::newRow("nonce with a space") << u"DPoP"_s << QByteArray(R"(DPoP error="use_dpop_nonce")")
                                        << QByteArray("a b");
}

void TestDpop::otherFailuresAreNoNonceChallenge()
{
    QFETCH(QString, tokenType);
    QFETCH(QByteArray, wwwAuthenticate);
    QFETCH(QByteArray, nonce);
    QString error;
    OAuthClient client(options());
    QVERIFY(client.restoreCredentials(savedCredentials(Jwt::generateEs256Key(&error), tokenType)));
    QVERIFY(!client.takeNonceChallenge(nonceChallenge(wwwAuthenticate, nonce)));
}

void TestDpop::keyAndProofAreRedacted()
{
    QString error;
    const QByteArray pem = Jwt::generateEs256Key(&error);
    OAuthClient client(options());
    QVERIFY(client.restoreCredentials(savedCredentials(pem, u"DPoP"_s)));
    const QByteArray saved = client.saveCredentials();
    const QByteArray proof = proofOf(client.headersFor(ServerUrl, "POST", ServerUrl));

    mcpscope::Redactor redactor;
    const QStringList secrets = OAuthClient::secretsIn(saved);
    for (const QString& secret : secrets)
        redactor.addSecretValue(secret);
    const QString storedKey = QString::fromLatin1(mcpscope::OAuthWire::base64Url(pem));
    QVERIFY(secrets.contains(storedKey));

    // The key as stored, as PEM, and as PEM inside JSON text.
    const QString pemInJson
        = QString::fromUtf8(QJsonDocument(QJsonObject { { u"pem"_s, QString::fromLatin1(pem) } }).toJson());
    for (const QString& text : { QString::fromUtf8(saved), QString::fromLatin1(pem), pemInJson }) {
        const QString redacted = redactor.redactText(text);
        QVERIFY(!redacted.contains(storedKey));
        QVERIFY(!redacted.contains("PRIVATE KEY-----\n"_L1 + QString::fromLatin1(pem.split('\n').at(1))));
        const QList<QByteArray> lines = pem.split('\n');
        for (const QByteArray& line : lines) {
            if (!line.isEmpty() && !line.startsWith("-----"))
                QVERIFY2(!redacted.contains(QString::fromLatin1(line)), qPrintable(redacted));
        }
    }

    // A proof on the wire and in header text.
    mcpscope::HttpExchange http;
    http.requestHeaders = { { "Authorization", "DPoP at-dpop-1" }, { "DPoP", proof } };
    mcpscope::WireExchange wire;
    wire.http.append(http);
    redactor.redactExchange(wire);
    const QByteArray wireJson = QJsonDocument(wire.toJson()).toJson();
    QVERIFY(!wireJson.contains(proof));
    QVERIFY(
        !redactor.redactText(u"POST /mcp\nDPoP: "_s + QString::fromLatin1(proof)).contains(QString::fromLatin1(proof)));
    QVERIFY(!mcpscope::OAuthWire::maskSecrets(u"POST /token\nDPoP: "_s + QString::fromLatin1(proof))
                 .contains(QString::fromLatin1(proof)));
}

QTEST_GUILESS_MAIN(TestDpop)
#include "tst_dpop.moc"
