// The Auth view (issue 13) fed with plain AuthStep data, without an engine: the step rows of a completed
// and of a failed flow, the failed step marked and saying why, the detail pane, the state and token-store
// lines, the buttons' signals (Forget tokens only after the user confirmed), a selection that survives the
// updates of a running flow, and the splitter kept in the settings. Masking secrets is the engine's job:
// the view shows what it is given, character for character.

#include "mainwindow/authstepmodel.h"
#include "mainwindow/authview.h"
#include "modalanswer.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QFont>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <memory>

using mcpscope::AuthStep;
using mcpscope::AuthStepModel;
using mcpscope::AuthSummary;
using mcpscope::AuthView;
using mcpscope::ServerAuth;

namespace {

QTemporaryDir& configDir()
{
    static QTemporaryDir dir;
    return dir;
}

constexpr qint64 FlowStart = 1764684000000; // 2025-12-02 14:00:00 UTC

AuthStep step(AuthStep::Kind kind, AuthStep::Status status, const QString& title, const QString& detail,
    qint64 offsetMs, qint64 tookMs)
{
    AuthStep s;
    s.kind = kind;
    s.status = status;
    s.title = title;
    s.detail = detail;
    s.startedAt = FlowStart + offsetMs;
    s.endedAt = status == AuthStep::Status::Running ? 0 : s.startedAt + tookMs;
    return s;
}

QList<AuthStep> completedFlow()
{
    QList<AuthStep> steps;
    steps.append(step(AuthStep::Kind::Challenge, AuthStep::Status::Ok, QStringLiteral("401 challenge"),
        QStringLiteral("initialize answered 401 with a Bearer challenge"), 0, 4));
    AuthStep prm = step(AuthStep::Kind::ResourceMetadata, AuthStep::Status::Ok, QStringLiteral("PRM discovery"),
        QStringLiteral("http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp answered"), 10, 6);
    prm.urlsTried = { QStringLiteral("GET http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp → 200") };
    steps.append(prm);
    steps.append(step(AuthStep::Kind::ServerMetadata, AuthStep::Status::Ok, QStringLiteral("AS metadata"),
        QStringLiteral("issuer http://127.0.0.1:4000/"), 20, 5));
    steps.append(step(AuthStep::Kind::Registration, AuthStep::Status::Ok, QStringLiteral("Registration"),
        QStringLiteral("dynamic client registration: client id 7f1c"), 30, 8));
    AuthStep authorize = step(AuthStep::Kind::Authorize, AuthStep::Status::Ok, QStringLiteral("Authorize"),
        QStringLiteral("opened in the browser with scope mcp:tools"), 40, 900);
    authorize.request = QStringLiteral("GET http://127.0.0.1:4000/authorize?response_type=code&client_id=7f1c"
                                       "&code_challenge=•••&code_challenge_method=S256&state=•••");
    steps.append(authorize);
    steps.append(step(AuthStep::Kind::Callback, AuthStep::Status::Ok, QStringLiteral("Callback"),
        QStringLiteral("code received, state matches"), 950, 1));
    AuthStep token = step(AuthStep::Kind::Token, AuthStep::Status::Ok, QStringLiteral("Token"),
        QStringLiteral("access token for 3600 s, with a refresh token"), 960, 12);
    // What the engine hands over, masked or not, is shown exactly so.
    token.request = QStringLiteral("POST http://127.0.0.1:4000/token\n\ngrant_type=authorization_code&code=•••"
                                   "&client_secret=s3cr3t-looking-value");
    token.response = QStringLiteral("HTTP 200\n\n{\"access_token\":\"•••\",\"token_type\":\"Bearer\"}");
    steps.append(token);
    steps.append(step(AuthStep::Kind::Retry, AuthStep::Status::Ok, QStringLiteral("Retried request"),
        QStringLiteral("initialize was sent again with the new token and succeeded."), 980, 15));
    return steps;
}

QList<AuthStep> failedFlow()
{
    QList<AuthStep> steps;
    steps.append(step(AuthStep::Kind::Challenge, AuthStep::Status::Ok, QStringLiteral("401 challenge"),
        QStringLiteral("initialize answered 401"), 0, 3));
    AuthStep prm = step(AuthStep::Kind::ResourceMetadata, AuthStep::Status::Failed, QStringLiteral("PRM discovery"),
        QStringLiteral("No protected resource metadata: every well-known URL answered 404.\nThe server may not "
                       "support OAuth."),
        10, 9);
    prm.urlsTried = { QStringLiteral("GET http://127.0.0.1:4100/.well-known/oauth-protected-resource/mcp → 404"),
        QStringLiteral("GET http://127.0.0.1:4100/.well-known/oauth-protected-resource → 404") };
    prm.response = QStringLiteral("HTTP 404\n\nNot Found");
    steps.append(prm);
    steps.append(step(
        AuthStep::Kind::ServerMetadata, AuthStep::Status::Skipped, QStringLiteral("AS metadata"), QString(), 20, 0));
    return steps;
}

QPushButton* button(const AuthView& view, const char* name)
{
    return view.findChild<QPushButton*>(QLatin1String(name));
}

} // namespace

// Headless like CTest when run by hand, and with settings in a scratch directory.
[[maybe_unused]] static const bool s_environment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(configDir().path()));
    return true;
}();

class TestAuthView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void completedFlowRows();
    void failedFlowMarksTheFailedStep();
    void detailShowsWhatTheEngineGave();
    void stateLine_data();
    void stateLine();
    void storeLine();
    void buttonsFollowTheState();
    void buttonsEmitTheirSignals();
    void forgetAsksFirst();
    void selectionSurvivesARunningFlow();
    void splitterIsKeptInTheSettings();
};

void TestAuthView::initTestCase()
{
    QVERIFY(configDir().isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("McpScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_authview"));
}

void TestAuthView::completedFlowRows()
{
    AuthView view;
    QAbstractItemModelTester tester(view.stepModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setSteps(completedFlow());
    const AuthStepModel* model = view.stepModel();
    QCOMPARE(model->rowCount(), 8);
    QCOMPARE(model->index(0, AuthStepModel::Step).data().toString(), QStringLiteral("1. 401 challenge"));
    QCOMPARE(model->index(1, AuthStepModel::Step).data().toString(), QStringLiteral("2. PRM discovery"));
    QCOMPARE(model->index(7, AuthStepModel::Step).data().toString(), QStringLiteral("8. Retried request"));
    for (int row = 0; row < 8; ++row)
        QCOMPARE(model->index(row, AuthStepModel::Result).data().toString(), QStringLiteral("ok"));
    QCOMPARE(model->index(4, AuthStepModel::Took).data().toString(), QStringLiteral("900 ms"));
    QCOMPARE(model->index(6, AuthStepModel::Detail).data().toString(),
        QStringLiteral("access token for 3600 s, with a refresh token"));
    QCOMPARE(model->failedRow(), -1);
    QVERIFY(!model->index(0, AuthStepModel::Step).data(Qt::DecorationRole).value<QIcon>().isNull());
    // Nothing failed: the newest step is shown.
    QCOMPARE(view.stepsView()->currentIndex().row(), 7);
    QVERIFY2(
        view.detailHeading().startsWith(QStringLiteral("8. Retried request — ok")), qPrintable(view.detailHeading()));
    QVERIFY(
        view.detailHeading().endsWith(QStringLiteral("initialize was sent again with the new token and succeeded.")));
    QCOMPARE(view.detailBody(), QStringLiteral("Nothing was sent over the network in this step."));
}

void TestAuthView::failedFlowMarksTheFailedStep()
{
    AuthView view;
    QAbstractItemModelTester tester(view.stepModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setSteps(failedFlow());
    const AuthStepModel* model = view.stepModel();
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->failedRow(), 1);
    QCOMPARE(model->index(1, AuthStepModel::Result).data().toString(), QStringLiteral("failed"));
    QCOMPARE(model->index(2, AuthStepModel::Result).data().toString(), QStringLiteral("skipped"));
    QCOMPARE(model->index(1, AuthStepModel::Detail).data().toString(),
        QStringLiteral("No protected resource metadata: every well-known URL answered 404."));
    QVERIFY(model->index(1, AuthStepModel::Step).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model->index(0, AuthStepModel::Step).data(Qt::FontRole).isValid());
    QCOMPARE(model->index(1, AuthStepModel::Result).data(Qt::BackgroundRole).value<QColor>(),
        AuthStepModel::statusColour(AuthStep::Status::Failed));
    QCOMPARE(model->index(1, AuthStepModel::Detail).data(Qt::ToolTipRole).toString(), failedFlow().at(1).detail);

    // The failed step is selected, and its heading says why in the engine's words.
    QCOMPARE(view.stepsView()->currentIndex().row(), 1);
    QVERIFY2(
        view.detailHeading().startsWith(QStringLiteral("2. PRM discovery — failed")), qPrintable(view.detailHeading()));
    QVERIFY(view.detailHeading().endsWith(QStringLiteral("\nWhy: No protected resource metadata: every well-known "
                                                         "URL answered 404.\nThe server may not support OAuth.")));
    QCOMPARE(view.detailBody(),
        QStringLiteral("URLs tried\n"
                       "  GET http://127.0.0.1:4100/.well-known/oauth-protected-resource/mcp → 404\n"
                       "  GET http://127.0.0.1:4100/.well-known/oauth-protected-resource → 404\n\n"
                       "Response\nHTTP 404\n\nNot Found"));
}

void TestAuthView::detailShowsWhatTheEngineGave()
{
    AuthView view;
    view.setSteps(completedFlow());
    view.stepsView()->setCurrentIndex(view.stepModel()->index(6, 0));
    const AuthStep token = completedFlow().at(6);
    QCOMPARE(view.detailBody(),
        QStringLiteral("Request\n") + token.request + QStringLiteral("\n\nResponse\n") + token.response);
    QVERIFY(view.detailBody().contains(QStringLiteral("client_secret=s3cr3t-looking-value")));
    QVERIFY(view.detailBody().contains(QStringLiteral("\"access_token\":\"•••\"")));
    QCOMPARE(AuthView::detailText(token), view.detailBody());
}

void TestAuthView::stateLine_data()
{
    QTest::addColumn<int>("state");
    QTest::addColumn<qint64>("expiresIn");
    QTest::addColumn<QString>("error");
    QTest::addColumn<bool>("pending");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no token yet") << int(ServerAuth::State::None) << qint64(0) << QString() << false
                                  << QStringLiteral("none: no token yet (the server's first 401, or Authorize, "
                                                    "starts an authorization)");
    QTest::newRow("flow running") << int(ServerAuth::State::Authorizing) << qint64(0) << QString() << false
                                  << QStringLiteral("authorizing…");
    QTest::newRow("authorized for an hour") << int(ServerAuth::State::Authorized) << qint64(58 * 60000 + 10000)
                                            << QString() << false << QStringLiteral("authorized, expires in 58 min");
    QTest::newRow("authorized without expiry")
        << int(ServerAuth::State::Authorized) << qint64(0) << QString() << false << QStringLiteral("authorized");
    QTest::newRow("expiring") << int(ServerAuth::State::Expiring) << qint64(40500) << QString() << false
                              << QStringLiteral("expiring in 40 s: a refresh is due");
    QTest::newRow("waiting for the browser") << int(ServerAuth::State::NeedsUser) << qint64(0) << QString() << true
                                             << QStringLiteral("needs authorization: waiting for you in the browser");
    QTest::newRow("refresh refused") << int(ServerAuth::State::NeedsUser) << qint64(0)
                                     << QStringLiteral("the authorization server refused the refresh token "
                                                       "(invalid_grant)")
                                     << false
                                     << QStringLiteral("needs re-authorization: the authorization server refused the "
                                                       "refresh token (invalid_grant)");
    QTest::newRow("failed") << int(ServerAuth::State::Failed) << qint64(0)
                            << QStringLiteral("Server 'weather': the token endpoint answered 400 invalid_client")
                            << false
                            << QStringLiteral("failed: Server 'weather': the token endpoint answered 400 "
                                              "invalid_client");
}

void TestAuthView::stateLine()
{
    QFETCH(int, state);
    QFETCH(qint64, expiresIn);
    QFETCH(QString, error);
    QFETCH(bool, pending);
    QFETCH(QString, expected);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    AuthSummary summary;
    summary.state = ServerAuth::State(state);
    summary.lastError = error;
    summary.expiresAt = expiresIn > 0 ? now + expiresIn : 0;
    summary.hasToken = expiresIn > 0;
    if (pending)
        summary.pendingAuthorization = QUrl(QStringLiteral("http://127.0.0.1:4000/authorize?state=x"));
    QCOMPARE(AuthView::stateText(summary, now), expected);
    AuthView view;
    view.setSummary(summary);
    // The view counts from its own clock, a moment later: compare what does not depend on it.
    if (expiresIn == 0)
        QCOMPARE(view.stateLine(), expected);
    else
        QVERIFY2(view.stateLine().startsWith(expected.left(expected.indexOf(QLatin1String(" in ")))),
            qPrintable(view.stateLine()));
    QCOMPARE(view.findChild<QWidget*>(QStringLiteral("authPending"))->isVisibleTo(&view), pending);
}

void TestAuthView::storeLine()
{
    AuthView view;
    AuthSummary summary;
    summary.storeDescription = QStringLiteral("the Secret Service (GNOME Keyring)");
    view.setSummary(summary);
    QCOMPARE(view.storeLine(), QStringLiteral("kept in the Secret Service (GNOME Keyring)"));
    summary.storePersistent = false;
    summary.storeDescription = QStringLiteral("memory only: no keychain is available (no D-Bus session)");
    view.setSummary(summary);
    QCOMPARE(view.storeLine(),
        QStringLiteral("Warning: tokens and client secrets are lost when McpScope quits "
                       "(memory only: no keychain is available (no D-Bus session))."));
}

void TestAuthView::buttonsFollowTheState()
{
    AuthView view;
    AuthSummary summary;
    view.setSummary(summary);
    QVERIFY(button(view, "authorize")->isEnabled());
    QVERIFY(!button(view, "refreshToken")->isEnabled());
    QVERIFY(!button(view, "forgetTokens")->isEnabled());
    QVERIFY(button(view, "editCredentials")->isEnabled());
    summary.state = ServerAuth::State::Authorized;
    summary.hasToken = true;
    view.setSummary(summary);
    QVERIFY(button(view, "authorize")->isEnabled());
    QVERIFY(button(view, "refreshToken")->isEnabled());
    QVERIFY(button(view, "forgetTokens")->isEnabled());
    summary.state = ServerAuth::State::Authorizing;
    view.setSummary(summary);
    QVERIFY(!button(view, "authorize")->isEnabled());
    QVERIFY(!button(view, "refreshToken")->isEnabled());
    QVERIFY(button(view, "forgetTokens")->isEnabled());
}

void TestAuthView::buttonsEmitTheirSignals()
{
    AuthView view;
    AuthSummary summary;
    summary.state = ServerAuth::State::NeedsUser;
    summary.hasToken = true;
    summary.pendingAuthorization = QUrl(QStringLiteral("http://127.0.0.1:4000/authorize?state=abc"));
    view.setSummary(summary);
    QSignalSpy authorize(&view, &AuthView::authorizeRequested);
    QSignalSpy refresh(&view, &AuthView::refreshRequested);
    QSignalSpy edit(&view, &AuthView::editCredentialsRequested);
    QSignalSpy reopen(&view, &AuthView::openAuthorizationRequested);
    QTest::mouseClick(button(view, "authorize"), Qt::LeftButton);
    QCOMPARE(authorize.size(), 1);
    QTest::mouseClick(button(view, "refreshToken"), Qt::LeftButton);
    QCOMPARE(refresh.size(), 1);
    QTest::mouseClick(button(view, "editCredentials"), Qt::LeftButton);
    QCOMPARE(edit.size(), 1);
    auto* pending = view.findChild<QLabel*>(QStringLiteral("authPending"));
    QVERIFY(pending);
    Q_EMIT pending->linkActivated(QStringLiteral("open"));
    QCOMPARE(reopen.size(), 1);
    QCOMPARE(reopen.first().first().toUrl(), summary.pendingAuthorization);
    QCOMPARE(authorize.size() + refresh.size() + edit.size(), 3);
}

void TestAuthView::forgetAsksFirst()
{
    AuthView view;
    AuthSummary summary;
    summary.state = ServerAuth::State::Authorized;
    summary.hasToken = true;
    view.setSummary(summary);
    view.show();
    QSignalSpy forget(&view, &AuthView::forgetRequested);
    bool asked = false;
    mcpscope::test::pressOnNextMessageBox(QMessageBox::No, &asked);
    button(view, "forgetTokens")->click();
    QVERIFY(asked);
    QCOMPARE(forget.size(), 0);
    mcpscope::test::pressOnNextMessageBox(QMessageBox::Yes, &asked);
    button(view, "forgetTokens")->click();
    QVERIFY(asked);
    QCOMPARE(forget.size(), 1);
}

void TestAuthView::selectionSurvivesARunningFlow()
{
    AuthView view;
    QAbstractItemModelTester tester(view.stepModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QList<AuthStep> all = completedFlow();
    QList<AuthStep> running = all.mid(0, 3);
    running.last().status = AuthStep::Status::Running;
    running.last().endedAt = 0;
    view.setSteps(running);
    // Nobody picked a step: the view follows the newest.
    QCOMPARE(view.stepsView()->currentIndex().row(), 2);
    QCOMPARE(view.stepModel()->index(2, AuthStepModel::Result).data().toString(), QStringLiteral("running…"));
    view.setSteps(all.mid(0, 5));
    QCOMPARE(view.stepsView()->currentIndex().row(), 4);
    QCOMPARE(view.stepModel()->index(2, AuthStepModel::Result).data().toString(), QStringLiteral("ok"));

    // The user picks PRM discovery: later steps do not take the selection away.
    view.stepsView()->setCurrentIndex(view.stepModel()->index(1, 0));
    view.setSteps(all);
    QCOMPARE(view.stepModel()->rowCount(), 8);
    QCOMPARE(view.stepsView()->currentIndex().row(), 1);
    QVERIFY(view.detailHeading().startsWith(QStringLiteral("2. PRM discovery")));

    // Another flow (a refresh that failed) starts automatic selection again, at its failure.
    AuthStep refresh = step(AuthStep::Kind::Refresh, AuthStep::Status::Failed, QStringLiteral("Refresh"),
        QStringLiteral("the authorization server refused the refresh token (invalid_grant)"), 60000, 20);
    view.setSteps({ refresh });
    QCOMPARE(view.stepModel()->rowCount(), 1);
    QCOMPARE(view.stepsView()->currentIndex().row(), 0);
    QVERIFY(view.detailHeading().contains(QStringLiteral("Why: the authorization server refused the refresh token")));

    view.setSteps({});
    QCOMPARE(view.stepModel()->rowCount(), 0);
    QVERIFY(!view.stepsView()->currentIndex().isValid());
    QVERIFY(view.detailHeading().startsWith(QStringLiteral("No authorization has run for this server yet.")));
    QCOMPARE(view.detailBody(), QString());
}

void TestAuthView::splitterIsKeptInTheSettings()
{
    QSettings().remove(QStringLiteral("authView"));
    QList<int> sizes;
    {
        AuthView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto* split = view.findChild<QSplitter*>(QStringLiteral("authSplitter"));
        QVERIFY(split);
        split->setSizes({ 150, split->sizes().at(0) + split->sizes().at(1) - 150 });
        sizes = split->sizes();
        QCOMPARE(sizes.at(0), 150);
    }
    QVERIFY(QSettings().contains(QStringLiteral("authView/splitter")));
    AuthView again;
    again.resize(900, 700);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.findChild<QSplitter*>(QStringLiteral("authSplitter"))->sizes(), sizes);
}

QTEST_MAIN(TestAuthView)
#include "tst_authview.moc"
