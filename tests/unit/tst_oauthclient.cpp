#include "auth/oauthclient.h"

#include <QTest>

using namespace Qt::StringLiterals;
using mcpscope::BearerChallenge;
using mcpscope::OAuthClient;

// The full flow (discovery, registration, PKCE, token) runs against the official conformance suite's
// mock servers in tests/conformance; these are the pure parts it relies on.
class TestOAuthClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseChallenge_data();
    void parseChallenge();
    void canonicalResource_data();
    void canonicalResource();
    void resourceCovers_data();
    void resourceCovers();
};

void TestOAuthClient::parseChallenge_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<bool>("isBearer");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QString>("scope");
    QTest::addColumn<QUrl>("resourceMetadata");

    QTest::newRow("empty header") << QByteArray() << false << QString() << QString() << QUrl();
    QTest::newRow("bare Bearer") << QByteArray("Bearer") << true << QString() << QString() << QUrl();
    QTest::newRow("SDK 401 with metadata and scope")
        << QByteArray("Bearer error=\"invalid_token\", error_description=\"Missing Authorization header\", "
                      "scope=\"mcp:basic\", resource_metadata=\"http://localhost:3000/.well-known/"
                      "oauth-protected-resource/mcp\"")
        << true << QStringLiteral("invalid_token") << QStringLiteral("mcp:basic")
        << QUrl(QStringLiteral("http://localhost:3000/.well-known/oauth-protected-resource/mcp"));
    QTest::newRow("403 step-up with several scopes, error last")
        << QByteArray("Bearer scope=\"mcp:basic mcp:write\", resource_metadata=\"https://a.example/prm\", "
                      "error=\"insufficient_scope\"")
        << true << QStringLiteral("insufficient_scope") << QStringLiteral("mcp:basic mcp:write")
        << QUrl(QStringLiteral("https://a.example/prm"));
    QTest::newRow("unquoted token values and odd spacing")
        << QByteArray("bearer   error = insufficient_scope ,scope=read") << true << QStringLiteral("insufficient_scope")
        << QStringLiteral("read") << QUrl();
    QTest::newRow("escaped quote inside a quoted string")
        << QByteArray(R"(Bearer error_description="say \"hi\"", scope="a")") << true << QString() << QStringLiteral("a")
        << QUrl();
    QTest::newRow("parameters of another scheme are not ours")
        << QByteArray("Basic realm=\"x\", scope=\"wrong\", Bearer scope=\"right\"") << true << QString()
        << QStringLiteral("right") << QUrl();
    QTest::newRow("token68 scheme before Bearer") << QByteArray("Negotiate abc==, Bearer error=\"invalid_token\"")
                                                  << true << QStringLiteral("invalid_token") << QString() << QUrl();
    QTest::newRow("commas and = inside a quoted string")
        << QByteArray(R"(Bearer error_description="a, b=c, scope=\"no\"", scope="x y",error="invalid_token")") << true
        << QStringLiteral("invalid_token") << QStringLiteral("x y") << QUrl();
    QTest::newRow("a Bearer look-alike inside a Basic realm")
        << QByteArray(R"(Basic realm="a, Bearer scope=\"no\"", Bearer scope="yes")") << true << QString()
        << QStringLiteral("yes") << QUrl();
    QTest::newRow("no Bearer challenge at all")
        << QByteArray("Basic realm=\"x\", scope=\"s\"") << false << QString() << QString() << QUrl();
}

void TestOAuthClient::parseChallenge()
{
    QFETCH(QByteArray, header);
    const BearerChallenge challenge = BearerChallenge::parse(header);
    QTEST(challenge.isBearer, "isBearer");
    QTEST(challenge.error, "error");
    QTEST(challenge.scope, "scope");
    QTEST(challenge.resourceMetadata, "resourceMetadata");
}

void TestOAuthClient::canonicalResource_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<QString>("canonical");

    QTest::newRow("already canonical") << QUrl(QStringLiteral("https://mcp.example.com/mcp"))
                                       << QStringLiteral("https://mcp.example.com/mcp");
    QTest::newRow("upper-case scheme and host")
        << QUrl(QStringLiteral("HTTPS://MCP.Example.com/mcp")) << QStringLiteral("https://mcp.example.com/mcp");
    QTest::newRow("fragment and user info dropped")
        << QUrl(QStringLiteral("https://user:pw@mcp.example.com:8443/mcp#frag"))
        << QStringLiteral("https://mcp.example.com:8443/mcp");
    QTest::newRow("trailing slash dropped")
        << QUrl(QStringLiteral("http://localhost:3000/mcp/")) << QStringLiteral("http://localhost:3000/mcp");
}

void TestOAuthClient::canonicalResource()
{
    QFETCH(QUrl, url);
    QTEST(OAuthClient::canonicalResource(url), "canonical");
}

void TestOAuthClient::resourceCovers_data()
{
    QTest::addColumn<QString>("resource");
    QTest::addColumn<QString>("server");
    QTest::addColumn<bool>("covers");

    QTest::newRow("same URL") << u"http://localhost:3000/mcp"_s << u"http://localhost:3000/mcp"_s << true;
    QTest::newRow("origin covers every path") << u"http://localhost:3000"_s << u"http://localhost:3000/mcp"_s << true;
    QTest::newRow("parent path") << u"https://a.example/api"_s << u"https://a.example/api/mcp"_s << true;
    QTest::newRow("trailing slash on the resource")
        << u"https://a.example/mcp/"_s << u"https://a.example/mcp"_s << true;
    QTest::newRow("default port written out") << u"https://a.example:443/mcp"_s << u"https://a.example/mcp"_s << true;
    QTest::newRow("sibling path sharing a prefix") << u"https://a.example/mc"_s << u"https://a.example/mcp"_s << false;
    QTest::newRow("child path does not cover its parent")
        << u"https://a.example/mcp/x"_s << u"https://a.example/mcp"_s << false;
    QTest::newRow("other host") << u"https://evil.example.com/mcp"_s << u"http://localhost:3000/mcp"_s << false;
    QTest::newRow("other port") << u"http://localhost:3001/mcp"_s << u"http://localhost:3000/mcp"_s << false;
    QTest::newRow("other scheme") << u"https://localhost:3000/mcp"_s << u"http://localhost:3000/mcp"_s << false;
}

void TestOAuthClient::resourceCovers()
{
    QFETCH(QString, resource);
    QFETCH(QString, server);
    QTEST(OAuthClient::resourceCovers(QUrl(resource), QUrl(server)), "covers");
}

QTEST_GUILESS_MAIN(TestOAuthClient)
#include "tst_oauthclient.moc"
