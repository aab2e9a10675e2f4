// The Auth tab in the window (issue 13), offscreen, against the protected test peer: it is there for an
// HTTP server and not for a stdio one; its Authorize button runs the engine's flow, whose browser request
// the window hands to QDesktopServices (answered here by the scripted TestBrowser); every step of the flow is a row of
// the tab, the state line says authorized; Forget tokens asks, then revokes.

#include "engine/engine.h"
#include "engine/serverauth.h"
#include "engine/serverconnection.h"
#include "guienvironment.h"
#include "mainwindow/authstepmodel.h"
#include "mainwindow/authview.h"
#include "mainwindow/mainwindow.h"
#include "modalanswer.h"
#include "protectedpeer.h"
#include "session/clientsession.h"
#include "testbrowser.h"

#include <QApplication>
#include <QDesktopServices>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <memory>

using mcpscope::AuthStep;
using mcpscope::AuthStepModel;
using mcpscope::AuthView;
using mcpscope::MainWindow;
using mcpscope::ServerAuth;

namespace {

int tabIndex(const QTabWidget* tabs, const QString& text)
{
    for (int i = 0; i < tabs->count(); ++i) {
        if (tabs->tabText(i) == text)
            return i;
    }
    return -1;
}

} // namespace

[[maybe_unused]] static const bool s_environment = [] {
    mcpscope::test::useScratchGuiEnvironment();
    // Tokens stay in this process: the tab is under test here, the keychain in tst_authflow.
    qputenv("MCPSCOPE_TOKEN_STORE", "memory");
    return true;
}();

class TestAuthTab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tabOnlyForHttpServers();
    void authorizeFromTheTabShowsEveryStep();

private:
    bool openWorkspace(MainWindow& window);

    mcpscope::test::PeerProcess m_peer;
    QUrl m_url;
};

void TestAuthTab::initTestCase()
{
    QVERIFY(mcpscope::test::scratchConfigDir().isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("McpScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_authtab"));
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    QVERIFY2(mcpscope::test::startProtectedPeer(m_peer, &m_url), m_peer.output().constData());
}

void TestAuthTab::cleanupTestCase()
{
    QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
}

bool TestAuthTab::openWorkspace(MainWindow& window)
{
    const QString path = mcpscope::test::scratchConfigDir().filePath(QStringLiteral("workspace.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const QJsonObject servers {
        { QStringLiteral("protected"),
            QJsonObject { { QStringLiteral("transport"), QStringLiteral("http") },
                { QStringLiteral("url"), m_url.toString() } } },
        { QStringLiteral("local"),
            QJsonObject { { QStringLiteral("transport"), QStringLiteral("stdio") },
                { QStringLiteral("command"), QStringLiteral(MCPSCOPE_NODE) },
                { QStringLiteral("args"),
                    QJsonArray { mcpscope::test::everythingScript(), QStringLiteral("stdio") } } } },
    };
    file.write(QJsonDocument(
        QJsonObject { { QStringLiteral("mcpscopeWorkspace"), 1 }, { QStringLiteral("servers"), servers } })
                   .toJson());
    file.close();
    return window.openWorkspace(path);
}

void TestAuthTab::tabOnlyForHttpServers()
{
    MainWindow window;
    QVERIFY(openWorkspace(window));
    QTabWidget* tabs = window.centreTabs();
    const int auth = tabIndex(tabs, QStringLiteral("Auth"));
    QVERIFY(auth >= 0);
    QCOMPARE(tabs->widget(auth), window.authView());
    window.selectServer(QStringLiteral("protected"));
    QVERIFY(tabs->isTabVisible(auth));
    QVERIFY(window.showAuthTab());
    QCOMPARE(tabs->currentIndex(), auth);
    window.selectServer(QStringLiteral("local"));
    QVERIFY(!tabs->isTabVisible(auth));
    QVERIFY(!window.showAuthTab());
    QVERIFY(tabs->currentIndex() != auth);
}

void TestAuthTab::authorizeFromTheTabShowsEveryStep()
{
    mcpscope::test::TestBrowser browser;
    QDesktopServices::setUrlHandler(QStringLiteral("http"), &browser, "open");
    MainWindow window;
    QVERIFY(openWorkspace(window));
    window.show();
    window.selectServer(QStringLiteral("protected"));
    QVERIFY(window.showAuthTab());
    ServerAuth* auth = window.engine()->connection(QStringLiteral("protected"))->auth();
    QVERIFY(auth);
    QTRY_VERIFY_WITH_TIMEOUT(auth->isLoaded(), 10000);
    AuthView* view = window.authView();
    QCOMPARE(view->stateLine(), AuthView::stateText({}, 0));

    view->findChild<QPushButton*>(QStringLiteral("authorize"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(auth->state(), ServerAuth::State::Authorized, 60000);
    QCOMPARE(browser.opened().size(), 1);
    QCOMPARE(browser.finalStatus(), 200);

    // Every step of the engine's flow is a row of the tab, in order, none failed.
    const QList<AuthStep> steps = auth->steps();
    QVERIFY(steps.size() >= 5);
    QTRY_COMPARE(view->stepModel()->rowCount(), int(steps.size()));
    for (int row = 0; row < steps.size(); ++row) {
        QCOMPARE(view->stepModel()->index(row, AuthStepModel::Step).data(AuthStepModel::KindRole).toInt(),
            int(steps.at(row).kind));
        QVERIFY2(steps.at(row).status != AuthStep::Status::Failed, qPrintable(steps.at(row).detail));
    }
    QVERIFY2(view->stateLine().startsWith(QStringLiteral("authorized")), qPrintable(view->stateLine()));
    // A memory-only store, as asked: the tab says so.
    QVERIFY2(view->storeLine().startsWith(QStringLiteral("Warning:")), qPrintable(view->storeLine()));
    const QByteArray header = auth->client()->authorizationHeader();
    QVERIFY(header.startsWith("Bearer "));
    for (const AuthStep& step : steps)
        QVERIFY(!AuthView::detailText(step).contains(QString::fromLatin1(header.mid(7))));

    // Authorized, the window connects: let that finish first. A request still on its way when the tokens
    // are forgotten gets a 401, which rightly starts a new authorization (on a loaded machine the
    // connection was still initializing here, and the None state lasted less than one poll).
    mcpscope::ServerConnection* connection = window.engine()->connection(QStringLiteral("protected"));
    QTRY_VERIFY_WITH_TIMEOUT(connection->state() == mcpscope::ServerConnection::State::Ready && connection->session()
            && connection->session()->toolsListed(),
        30000);

    // Forget tokens asks first; No keeps them, Yes revokes them.
    bool asked = false;
    mcpscope::test::pressOnNextMessageBox(QMessageBox::No, &asked);
    view->findChild<QPushButton*>(QStringLiteral("forgetTokens"))->click();
    QVERIFY(asked);
    QCOMPARE(auth->state(), ServerAuth::State::Authorized);
    mcpscope::test::pressOnNextMessageBox(QMessageBox::Yes, &asked);
    view->findChild<QPushButton*>(QStringLiteral("forgetTokens"))->click();
    QVERIFY(asked);
    QTRY_COMPARE_WITH_TIMEOUT(auth->state(), ServerAuth::State::None, 30000);
    QTRY_COMPARE(view->stateLine(), AuthView::stateText({}, 0));
    QVERIFY(!view->findChild<QPushButton*>(QStringLiteral("forgetTokens"))->isEnabled());
    QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
}

QTEST_MAIN(TestAuthTab)
#include "moc_testbrowser.cpp"
#include "tst_authtab.moc"
