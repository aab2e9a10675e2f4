// OAuth in the engine (issue 13, RECOVERY.md R2 and §4), against the protected test peer
// (tests/peers/protected-peer.mjs: the official SDK's auth router and in-memory demo OAuth provider,
// whose authorization endpoint redirects straight back, as `--auth-browser none` expects):
// - calls that hit a 401 together share one refresh, and each runs exactly once;
// - a wait for a flow the user has to finish ends the call as needs_auth and leaves the flow running,
//   and the flow finishing later connects the server;
// - a flow that refuses to authorize ends the connection with an error naming the server once;
// - the CLI authorizes without a browser, prints and logs no token, and exits 5 when only a browser
//   could go on and none can be started.

#include "auth/oauthclient.h"
#include "auth/tokenstore.h"
#include "engine/engine.h"
#include "engine/serverauth.h"
#include "engine/serverconnection.h"
#include "protectedpeer.h"
#include "testbrowser.h"
#include "transport/httpclient.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;
using mcpscope::CallOutcome;
using mcpscope::CallRecord;
using mcpscope::ServerAuth;

namespace {

mcpscope::ServerConfig protectedServer(const QUrl& url)
{
    mcpscope::ServerConfig config;
    config.name = u"protected"_s;
    config.transport = mcpscope::TransportKind::StreamableHttp;
    config.url = url;
    return config;
}

} // namespace

class TestOAuthEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void refreshFollowsTheClockAndOnlyAVerdictExpires();
    void concurrentUnauthorizedCallsShareOneRefresh();
    void waitRunsOutFlowCarriesOn();
    void refusedFlowNamesTheServerOnce();
    void cliAuthorizesWithoutBrowserAndLeaksNoToken();
    void cliExitsFiveWhenOnlyABrowserCouldGoOn();

private:
    std::unique_ptr<mcpscope::test::PeerProcess> m_peer;
    QUrl m_url;
};

void TestOAuthEngine::init()
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    // A fresh peer per test: its counters start at zero.
    m_peer = std::make_unique<mcpscope::test::PeerProcess>();
    QVERIFY2(mcpscope::test::startProtectedPeer(*m_peer, &m_url), m_peer->output().constData());
}

void TestOAuthEngine::cleanup()
{
    m_peer.reset();
}

void TestOAuthEngine::refreshFollowsTheClockAndOnlyAVerdictExpires()
{
    // The OAuth client alone, with an injected clock, against the peer's real authorization server.
    qint64 now = 1'700'000'000'000;
    mcpscope::OAuthClient::Options options;
    options.serverName = u"protected"_s;
    options.serverUrl = m_url;
    options.clock = [&now] { return now; };
    mcpscope::OAuthClient client(options);
    QSignalSpy authorized(&client, &mcpscope::OAuthClient::authorized);
    QSignalSpy failed(&client, &mcpscope::OAuthClient::failed);
    QSignalSpy expired(&client, &mcpscope::OAuthClient::expired);
    client.authorize();
    QVERIFY2(authorized.wait(30000), qPrintable(client.lastError()));
    QCOMPARE(client.expiresAt(), now + 3600 * 1000);
    now += (3600 - 61) * 1000;
    QVERIFY(!client.isExpiring());
    now += 2000;
    QVERIFY(client.isExpiring());

    // Refresh: a new token, a rotated refresh token, a new expiry from the clock's now.
    const QByteArray first = client.authorizationHeader();
    const QByteArray savedBefore = client.saveCredentials();
    client.refresh();
    QVERIFY2(authorized.wait(30000), qPrintable(client.lastError()));
    QCOMPARE(authorized.size(), 2);
    QVERIFY(client.authorizationHeader() != first);
    QCOMPARE(client.expiresAt(), now + 3600 * 1000);
    QCOMPARE(mcpscope::test::peerGrants(m_url, "refresh_token"), 1);

    // The old refresh token was used up: the authorization server's invalid_grant is a verdict.
    mcpscope::OAuthClient stale(options);
    QVERIFY(stale.restoreCredentials(savedBefore));
    QSignalSpy staleExpired(&stale, &mcpscope::OAuthClient::expired);
    stale.refresh();
    QVERIFY(staleExpired.wait(30000));
    QCOMPARE(stale.state(), mcpscope::OAuthClient::State::Expired);
    QVERIFY(!stale.hasToken());

    // The peer is gone: a network error is no verdict, and the token is kept.
    m_peer.reset();
    client.refresh();
    QVERIFY(failed.wait(30000));
    QCOMPARE(expired.size(), 0);
    QVERIFY(client.hasToken());
    QCOMPARE(client.state(), mcpscope::OAuthClient::State::Authorized);
}

void TestOAuthEngine::concurrentUnauthorizedCallsShareOneRefresh()
{
    mcpscope::Engine engine;
    engine.setTokenStore(mcpscope::TokenStore::createMemory(u"this test keeps its tokens in memory"_s));
    engine.setAuthBrowser(ServerAuth::Browser::None);
    mcpscope::ServerConnection* connection = engine.addServer(protectedServer(m_url));
    QSignalSpy ready(connection, &mcpscope::ServerConnection::ready);
    connection->connectToServer();
    QVERIFY2(ready.wait(60000), qPrintable(connection->lastError()));
    QCOMPARE(mcpscope::test::peerGrants(m_url, "authorization_code"), 1);

    mcpscope::test::peerControl(m_url, "POST", u"/control/expire-access-tokens"_s);
    constexpr int Calls = 4;
    QList<CallRecord> ended;
    for (int i = 0; i < Calls; ++i)
        engine.call(u"protected"_s, u"tools/call"_s,
            { { u"name"_s, u"increment"_s }, { u"arguments"_s, QJsonObject() } }, {},
            [&ended](const CallRecord& record) { ended.append(record); });
    QTRY_COMPARE_WITH_TIMEOUT(ended.size(), Calls, 60000);
    for (const CallRecord& record : std::as_const(ended)) {
        QCOMPARE(record.outcome, CallOutcome::Success);
        QCOMPARE(record.attempts.size(), 2);
        QCOMPARE(record.decisions.first().rule, u"R2"_s);
    }
    // One refresh for all four waiters, and each call ran exactly once.
    QCOMPARE(mcpscope::test::peerGrants(m_url, "refresh_token"), 1);
    QCOMPARE(mcpscope::test::peerGrants(m_url, "authorization_code"), 1);
    QCOMPARE(mcpscope::test::peerState(m_url).value("executions"_L1).toInt(), Calls);
}

void TestOAuthEngine::waitRunsOutFlowCarriesOn()
{
    // A browser flow no browser answers yet: the call's wait (bounded by its 2 s deadline) runs out,
    // the call ends needing authorization, and the flow is still waiting for the callback.
    mcpscope::Engine engine;
    engine.setTokenStore(mcpscope::TokenStore::createMemory(u"this test keeps its tokens in memory"_s));
    engine.setAuthBrowser(ServerAuth::Browser::External);
    mcpscope::ServerConnection* connection = engine.addServer(protectedServer(m_url));
    ServerAuth* auth = connection->auth();
    QVERIFY(auth);
    QList<QUrl> browserUrls;
    connect(auth, &ServerAuth::browserNeeded, this, [&browserUrls](const QUrl& url) { browserUrls.append(url); });
    QSignalSpy failed(connection, &mcpscope::ServerConnection::failed);
    connection->connectToServer();
    QTRY_COMPARE_WITH_TIMEOUT(browserUrls.size(), 1, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(connection->state(), mcpscope::ServerConnection::State::NeedsAuth, 10000);

    std::optional<CallRecord> call;
    mcpscope::CallOptions options;
    options.timeoutMs = 2000;
    engine.call(u"protected"_s, u"tools/call"_s, { { u"name"_s, u"increment"_s }, { u"arguments"_s, QJsonObject() } },
        options, [&call](const CallRecord& record) { call = record; });
    QTRY_VERIFY_WITH_TIMEOUT(call.has_value(), 60000);
    QCOMPARE(call->outcome, CallOutcome::NeedsAuth);
    QVERIFY(auth->isFlowRunning());
    QCOMPARE(mcpscope::test::peerState(m_url).value("executions"_L1).toInt(), 0);

    // The user finishes in the browser: the flow ends, and the connection connects by itself.
    mcpscope::test::TestBrowser browser;
    QSignalSpy ready(connection, &mcpscope::ServerConnection::ready);
    browser.open(browserUrls.first());
    QVERIFY2(ready.wait(60000), qPrintable(auth->lastError()));
    QCOMPARE(auth->state(), ServerAuth::State::Authorized);
    QCOMPARE(browserUrls.size(), 1);
    QCOMPARE(mcpscope::test::peerGrants(m_url, "authorization_code"), 1);
}

void TestOAuthEngine::refusedFlowNamesTheServerOnce()
{
    // The peer reached as "localhost": its resource metadata is for 127.0.0.1, so the flow refuses to
    // authorize (RFC 9728 §3.3). The error the banner and the CLI show names the server once, not once
    // for the connection and again for the flow.
    QUrl url = m_url;
    url.setHost(u"localhost"_s);
    mcpscope::Engine engine;
    engine.setTokenStore(mcpscope::TokenStore::createMemory(u"this test keeps its tokens in memory"_s));
    mcpscope::ServerConnection* connection = engine.addServer(protectedServer(url));
    QSignalSpy failed(connection, &mcpscope::ServerConnection::failed);
    connection->connectToServer();
    QVERIFY(failed.wait(60000));
    QCOMPARE(connection->state(), mcpscope::ServerConnection::State::NeedsAuth);
    const QString error = connection->lastError();
    QVERIFY2(error.startsWith(u"Server 'protected': its protected resource metadata"_s), qPrintable(error));
    QVERIFY2(error.contains(u"refusing to authorize"_s), qPrintable(error));
    QCOMPARE(error.count(u"'protected'"_s), 1);
    QCOMPARE(failed.last().first().toString(), error);
    QCOMPARE(mcpscope::test::peerState(m_url).value("executions"_L1).toInt(), 0);
}

void TestOAuthEngine::cliAuthorizesWithoutBrowserAndLeaksNoToken()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString log = dir.filePath(u"calls.jsonl"_s);
    const mcpscope::test::CliRun run = mcpscope::test::runCli({ u"--url"_s, m_url.toString(), u"--transport"_s,
        u"http"_s, u"--auth-browser"_s, u"none"_s, u"--log"_s, log, u"--json"_s, u"call"_s, u"increment"_s });
    const QByteArray report = "exit " + QByteArray::number(run.exitCode) + "\n" + run.out + "\n" + run.err;
    QVERIFY2(run.exitCode == 0, report.constData());
    QCOMPARE(mcpscope::test::peerState(m_url).value("executions"_L1).toInt(), 1);
    QFile logFile(log);
    QVERIFY(logFile.open(QIODevice::ReadOnly));
    const QByteArray logged = logFile.readAll();
    QVERIFY(!logged.isEmpty());
    const QStringList issued = mcpscope::test::peerState(m_url).value("issuedTokens"_L1).toVariant().toStringList();
    QVERIFY2(issued.size() >= 2, "the peer reports the tokens it issued (/control/state issuedTokens)");
    for (const QString& token : issued) {
        QVERIFY2(!run.out.contains(token.toUtf8()), report.constData());
        QVERIFY2(!run.err.contains(token.toUtf8()), report.constData());
        QVERIFY2(!logged.contains(token.toUtf8()), logged.constData());
    }
}

void TestOAuthEngine::cliExitsFiveWhenOnlyABrowserCouldGoOn()
{
    // No xdg-open on the PATH: the CLI prints the URL, says why it cannot go on, and exits 5.
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"PATH"_s, u"/nonexistent"_s);
    env.insert(u"MCPSCOPE_TOKEN_STORE"_s, u"memory"_s);
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(MCPSCOPE_CLI),
        { u"--url"_s, m_url.toString(), u"--transport"_s, u"http"_s, u"call"_s, u"get-count"_s });
    process.closeWriteChannel();
    QVERIFY(process.waitForFinished(90000));
    const QByteArray err = process.readAllStandardError();
    const QByteArray report = "exit " + QByteArray::number(process.exitCode()) + "\n" + err;
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 5, report.constData());
    QVERIFY2(err.contains("authorize McpScope for server"), report.constData());
    QVERIFY2(err.contains("--auth-browser none"), report.constData());
    QCOMPARE(mcpscope::test::peerState(m_url).value("executions"_L1).toInt(), 0);
}

QTEST_MAIN(TestOAuthEngine)
#include "moc_testbrowser.cpp"
#include "tst_oauthengine.moc"
