// OAuth end to end in the app (issue 13), offscreen, against the protected test peer
// (tests/peers/protected-peer.mjs: the official SDK's auth router and in-memory demo OAuth provider):
// the window connects, the engine's ServerAuth walks discovery, registration, the browser flow (the
// scripted TestBrowser answers QDesktopServices::openUrl the way a user's browser would) and the token
// request; the token lands in the real Secret Service and nowhere else on disk; a restart reuses it; an
// expired access token is refreshed by R2 and the call runs exactly once; Forget tokens revokes it.

#include "auth/tokenstore.h"
#include "calllog/exportjob.h"
#include "calllog/logstore.h"
#include "engine/engine.h"
#include "engine/serverauth.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/workspacesession.h"
#include "protectedpeer.h"
#include "testbrowser.h"
#include "transport/httpclient.h"

#include <QDeadlineTimer>
#include <QDesktopServices>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;
using mcpscope::AuthStep;
using mcpscope::CallOutcome;
using mcpscope::CallRecord;
using mcpscope::ServerAuth;

namespace {

/// Every file under dir whose bytes contain needle.
QStringList filesContaining(const QString& dir, const QByteArray& needle)
{
    QStringList hits;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            hits.append(path);
    }
    return hits;
}

CallRecord callAndWait(mcpscope::Engine* engine, const QString& server, const QString& tool)
{
    std::optional<CallRecord> ended;
    engine->call(server, u"tools/call"_s, { { u"name"_s, tool }, { u"arguments"_s, QJsonObject() } }, {},
        [&ended](const CallRecord& record) { ended = record; });
    QDeadlineTimer deadline(60000);
    while (!ended && !deadline.hasExpired())
        QTest::qWait(20);
    return ended ? *ended : CallRecord {};
}

} // namespace

class TestAuthFlow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void authorizesStoresReusesRefreshesAndRevokes();

private:
    QTemporaryDir m_dir;
    mcpscope::test::PeerProcess m_peer;
    QUrl m_url;
};

void TestAuthFlow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(u"McpScopeTest"_s);
    QCoreApplication::setApplicationName(u"tst_authflow"_s);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(u"config"_s));
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(u"config"_s));
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    const std::shared_ptr<mcpscope::TokenStore> store = mcpscope::TokenStore::createDefault();
    if (!store->isPersistent()) {
        if (qEnvironmentVariableIsSet("MCPSCOPE_REQUIRE_SECRET_SERVICE"))
            QFAIL(qPrintable(u"make test runs a Secret Service, but none answered: "_s + store->description()));
        QSKIP(
            qPrintable(u"no Secret Service to keep the tokens in (run through make test): "_s + store->description()));
    }
    QVERIFY2(mcpscope::test::startProtectedPeer(m_peer, &m_url), m_peer.output().constData());
}

void TestAuthFlow::cleanupTestCase()
{
    QDesktopServices::unsetUrlHandler(u"http"_s);
}

void TestAuthFlow::authorizesStoresReusesRefreshesAndRevokes()
{
    qputenv("MCPSCOPE_LOG_DIR", QFile::encodeName(m_dir.filePath(u"logs"_s)));
    const QString workspace = m_dir.filePath(u"workspace.json"_s);
    {
        QFile file(workspace);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QJsonObject server { { u"transport"_s, u"http"_s }, { u"url"_s, m_url.toString() } };
        file.write(QJsonDocument(
            QJsonObject { { u"mcpscopeWorkspace"_s, 1 }, { u"servers"_s, QJsonObject { { u"protected"_s, server } } } })
                       .toJson());
    }
    mcpscope::test::TestBrowser browser;
    QDesktopServices::setUrlHandler(u"http"_s, &browser, "open");

    // 1. Connect: the 401 starts the flow, the browser is opened once, every step is recorded.
    auto window = std::make_unique<mcpscope::MainWindow>();
    QVERIFY(window->openWorkspace(workspace));
    mcpscope::ServerConnection* connection = window->engine()->connection(u"protected"_s);
    QVERIFY(connection);
    ServerAuth* auth = connection->auth();
    QVERIFY(auth);
    QSignalSpy ready(connection, &mcpscope::ServerConnection::ready);
    connection->connectToServer();
    QVERIFY2(ready.wait(60000), qPrintable(connection->lastError() + u" / "_s + auth->lastError()));
    QCOMPARE(browser.opened().size(), 1);
    QCOMPARE(browser.finalStatus(), 200);
    QCOMPARE(auth->state(), ServerAuth::State::Authorized);
    QVERIFY(auth->storeIsPersistent());

    const QList<AuthStep> steps = auth->steps();
    QList<AuthStep::Kind> kinds;
    for (const AuthStep& step : steps) {
        kinds.append(step.kind);
        QVERIFY2(step.status == AuthStep::Status::Ok || step.status == AuthStep::Status::Skipped,
            qPrintable(step.title + u": "_s + step.detail));
    }
    const QList<AuthStep::Kind> expected { AuthStep::Kind::Challenge, AuthStep::Kind::ResourceMetadata,
        AuthStep::Kind::ServerMetadata, AuthStep::Kind::Registration, AuthStep::Kind::Authorize,
        AuthStep::Kind::Callback, AuthStep::Kind::Token, AuthStep::Kind::Retry };
    QCOMPARE(kinds, expected);
    const AuthStep& authorize = steps.at(4);
    QVERIFY2(authorize.detail.contains(u"code_challenge_method=S256"_s) || authorize.request.contains(u"S256"_s),
        qPrintable(authorize.request));

    const QByteArray header = auth->client()->authorizationHeader();
    QVERIFY(header.startsWith("Bearer "));
    const QByteArray token = header.mid(7);
    QVERIFY(token.size() >= 8);
    for (const AuthStep& step : steps)
        QVERIFY2(!QString(step.request + step.response + step.detail).contains(QString::fromLatin1(token)),
            qPrintable(step.title));

    // 2. The token is in the Secret Service, and in no file: workspace, log store with its WAL, exports.
    std::optional<QByteArray> stored;
    window->engine()->tokenStore()->read(auth->client()->credentialsKey(), this,
        [&stored](bool found, const QByteArray& value, const QString&) { stored = found ? value : QByteArray(); });
    QTRY_VERIFY_WITH_TIMEOUT(stored.has_value(), 10000);
    QVERIFY2(stored->contains(token), "the access token is not in the keychain entry");

    const CallRecord increment = callAndWait(window->engine(), u"protected"_s, u"increment"_s);
    QCOMPARE(increment.outcome, CallOutcome::Success);
    QCOMPARE(mcpscope::test::peerState(m_url).value("executions"_L1).toInt(), 1);

    const QString storePath = mcpscope::WorkspaceSession::logStorePathFor(workspace);
    for (const auto format : { mcpscope::ExportRequest::Format::Jsonl, mcpscope::ExportRequest::Format::Har }) {
        mcpscope::ExportRequest request;
        request.format = format;
        request.path = m_dir.filePath(u"exports/calls"_s + mcpscope::ExportRequest::suffix(format));
        QDir().mkpath(m_dir.filePath(u"exports"_s));
        request.redactor = window->engine()->redactor();
        QString error;
        // As the app's export does: every call (no visible-rows filter), after the store committed them.
        QVERIFY2(window->session()->fillExportSource(request, {}, &error), qPrintable(error));
        QCOMPARE(request.storePath, storePath);
        mcpscope::ExportJob job(request);
        QSignalSpy finished(&job, &mcpscope::ExportJob::finished);
        job.start();
        QVERIFY(finished.wait(30000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    }
    QString saveError;
    QVERIFY2(window->session()->saveWorkspace(workspace, &saveError), qPrintable(saveError));
    QVERIFY2(
        filesContaining(m_dir.path(), token).isEmpty(), qPrintable(filesContaining(m_dir.path(), token).join(u", "_s)));
    QVERIFY(QFile::exists(storePath));

    // 3. A restart reuses the stored token: no second authorization, no second browser.
    const int codeGrants
        = mcpscope::test::peerState(m_url).value("grants"_L1).toObject().value("authorization_code"_L1).toInt();
    QCOMPARE(codeGrants, 1);
    window->close();
    window.reset();
    window = std::make_unique<mcpscope::MainWindow>();
    QVERIFY(window->openWorkspace(workspace));
    connection = window->engine()->connection(u"protected"_s);
    auth = connection->auth();
    QSignalSpy readyAgain(connection, &mcpscope::ServerConnection::ready);
    connection->connectToServer();
    QVERIFY2(readyAgain.wait(60000), qPrintable(connection->lastError()));
    QCOMPARE(browser.opened().size(), 1);
    QCOMPARE(auth->client()->authorizationHeader(), header);
    QCOMPARE(mcpscope::test::peerState(m_url).value("grants"_L1).toObject().value("authorization_code"_L1).toInt(), 1);

    // 4. The peer expires every access token: the next call gets a 401, R2 refreshes, the call is sent
    // once more and the server runs it exactly once.
    mcpscope::test::peerControl(m_url, "POST", u"/control/expire-access-tokens"_s);
    const CallRecord afterExpiry = callAndWait(window->engine(), u"protected"_s, u"increment"_s);
    QCOMPARE(afterExpiry.outcome, CallOutcome::Success);
    QCOMPARE(afterExpiry.attempts.size(), 2);
    QCOMPARE(afterExpiry.attempts.first().httpStatus, 401);
    QCOMPARE(afterExpiry.decisions.first().rule, u"R2"_s);
    const QJsonObject afterRefresh = mcpscope::test::peerState(m_url);
    QCOMPARE(afterRefresh.value("executions"_L1).toInt(), 2);
    QCOMPARE(afterRefresh.value("grants"_L1).toObject().value("refresh_token"_L1).toInt(), 1);
    QVERIFY(auth->client()->authorizationHeader() != header);
    QCOMPARE(browser.opened().size(), 1);

    // 5. Forget tokens revokes them at the peer and removes them from the keychain.
    QSignalSpy stateChanged(auth, &ServerAuth::stateChanged);
    auth->forgetTokens();
    QTRY_COMPARE_WITH_TIMEOUT(auth->state(), ServerAuth::State::None, 30000);
    QVERIFY(mcpscope::test::peerState(m_url).value("revocations"_L1).toInt() >= 1);
    std::optional<bool> stillStored;
    window->engine()->tokenStore()->read(auth->client()->credentialsKey(), this,
        [&stillStored](bool found, const QByteArray&, const QString&) { stillStored = found; });
    QTRY_VERIFY_WITH_TIMEOUT(stillStored.has_value(), 10000);
    QVERIFY(!*stillStored);
    window->close();
}

QTEST_MAIN(TestAuthFlow)
#include "moc_testbrowser.cpp"
#include "tst_authflow.moc"
