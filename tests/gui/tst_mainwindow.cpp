#include "calllog/callrecord.h"
#include "calls/timelineview.h"
#include "composer/callcomposer.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "guienvironment.h"
#include "mainwindow/mainwindow.h"
#include "modalanswer.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"
#include "models/serverlistmodeldefs.h"
#include "models/toolsmodeldefs.h"
#include "peerprocess.h"
#include "recovery/circuitbreaker.h"
#include "result/resultview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>

#include <functional>
#include <memory>
#include <vector>

using mcpscope::CallOutcome;
using mcpscope::CallRecord;
using mcpscope::CircuitBreaker;
using mcpscope::MainWindow;
using mcpscope::ServerConnection;
namespace CallsModelRole = mcpscope::CallsModelRole;
namespace ServerListModelColumn = mcpscope::ServerListModelColumn;
namespace ServerListModelRole = mcpscope::ServerListModelRole;
namespace ToolsModelRole = mcpscope::ToolsModelRole;
namespace test = mcpscope::test;

// QTEST_MAIN builds the QApplication; this initializer runs before it, so that running the binary
// by hand stays headless like CTest (which sets QT_QPA_PLATFORM=offscreen itself), and QSettings
// resolves its paths against the scratch XDG_CONFIG_HOME.
[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void addStdioServerThroughDialogAndCallEcho();
    void expireAfterOnWriteToolIsUncertainWithR5();
    void breakerOpensAfterThreeToolErrors();

private:
    /// A window on screen and active, so clicks land and the composer's shortcut fires.
    bool showWindow();
    QAction* actionByText(const QString& text) const;
    /// The servers view's row for a server, or an invalid index.
    QModelIndex serverRow(const QString& name) const;
    QModelIndex toolRow(const QString& name) const;
    void clickRow(QAbstractItemView* view, const QModelIndex& index);
    void waitReady(const QString& server, int timeoutMs);
    /// Writes a workspace file with one server and opens it.
    bool openWorkspaceWith(const QString& name, const QJsonObject& server);
    void callThroughComposer(const QString& message = {});

    std::unique_ptr<MainWindow> m_window;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
    std::unique_ptr<QTemporaryDir> m_scratch;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(test::scratchConfigDir().isValid());
    test::useScratchSettings(QStringLiteral("tst_mainwindow"));
    QVERIFY2(QFile::exists(test::nodeBinary()), qPrintable(test::nodeBinary()));
    QVERIFY2(QFile::exists(test::everythingScript()), qPrintable(test::everythingScript()));
}

void TestMainWindow::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    m_window = std::make_unique<MainWindow>();
    // Every view's model chain runs under the tester from before any data arrives.
    auto* servers = m_window->findChild<QTreeView*>(QStringLiteral("serversView"));
    QVERIFY(servers);
    auto* traffic = m_window->findChild<QTableView*>(QStringLiteral("trafficView"));
    QVERIFY(traffic);
    for (QAbstractItemModel* model : { servers->model(), m_window->toolsView()->model(), m_window->callsView()->model(),
             static_cast<QAbstractItemModel*>(m_window->callsModel()), traffic->model() })
        m_testers.push_back(
            std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest));
}

void TestMainWindow::cleanup()
{
    // Deleting the window closes the engine, which stops its stdio children and launched servers.
    m_testers.clear();
    m_window.reset();
    m_scratch.reset();
}

bool TestMainWindow::showWindow()
{
    m_window->resize(1440, 900);
    m_window->show();
    QApplication::setActiveWindow(m_window.get());
    return QTest::qWaitForWindowActive(m_window.get());
}

QAction* TestMainWindow::actionByText(const QString& text) const
{
    const QList<QAction*> actions = m_window->findChildren<QAction*>();
    for (QAction* action : actions) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

QModelIndex TestMainWindow::serverRow(const QString& name) const
{
    auto* view = m_window->findChild<QTreeView*>(QStringLiteral("serversView"));
    if (!view)
        return {};
    QAbstractItemModel* model = view->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, 0);
        if (index.data(ServerListModelRole::NameRole).toString() == name)
            return index;
    }
    return {};
}

QModelIndex TestMainWindow::toolRow(const QString& name) const
{
    QAbstractItemModel* model = m_window->toolsView()->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, 0);
        if (index.data(ToolsModelRole::ToolNameRole).toString() == name)
            return index;
    }
    return {};
}

void TestMainWindow::clickRow(QAbstractItemView* view, const QModelIndex& index)
{
    view->scrollTo(index);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(index).center());
}

void TestMainWindow::waitReady(const QString& server, int timeoutMs)
{
    ServerConnection* c = m_window->engine()->connection(server);
    QVERIFY(c);
    // Ready and the tools listed: the tools view then has the rows to click.
    QTRY_VERIFY_WITH_TIMEOUT(c->state() == ServerConnection::State::Ready && c->session() && c->session()->toolsListed()
            && serverRow(server).data(ServerListModelRole::StateRole).toInt() == int(ServerConnection::State::Ready),
        timeoutMs);
}

bool TestMainWindow::openWorkspaceWith(const QString& name, const QJsonObject& server)
{
    const QJsonObject workspace { { QStringLiteral("mcpscopeWorkspace"), 1 },
        { QStringLiteral("servers"), QJsonObject { { name, server } } } };
    QFile file(m_scratch->filePath(QStringLiteral("workspace.json")));
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(QJsonDocument(workspace).toJson());
    file.close();
    return m_window->openWorkspace(file.fileName());
}

void TestMainWindow::callThroughComposer(const QString& message)
{
    mcpscope::CallComposer* composer = m_window->composer();
    QWidget* target = composer->findChild<QPushButton*>(QStringLiteral("composer.call"));
    if (!message.isEmpty()) {
        auto* edit = composer->findChild<QLineEdit*>(QStringLiteral("args.message"));
        QVERIFY(edit);
        edit->setFocus();
        QTest::keyClicks(edit, message);
        target = edit;
    }
    QVERIFY(target);
    // After a modal dialog the window may not be active again yet; the shortcut needs it.
    QApplication::setActiveWindow(m_window.get());
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    target->setFocus();
    QSignalSpy requested(composer, &mcpscope::CallComposer::callRequested);
    QTest::keyClick(target, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(requested.count(), 1);
}

void TestMainWindow::addStdioServerThroughDialogAndCallEcho()
{
    const QString name = QStringLiteral("everything-stdio");
    QVERIFY(showWindow());

    // The dialog is modal: fill it from inside its own event loop, then press OK.
    bool filled = false;
    QString dialogProblem;
    test::answerNextModal([&filled, &dialogProblem, name](QWidget* modal) {
        auto* dialog = qobject_cast<QDialog*>(modal);
        auto* nameEdit = modal->findChild<QLineEdit*>(QStringLiteral("name"));
        auto* command = modal->findChild<QLineEdit*>(QStringLiteral("command"));
        auto* args = modal->findChild<QLineEdit*>(QStringLiteral("args"));
        auto* buttons = modal->findChild<QDialogButtonBox*>();
        if (!dialog || !nameEdit || !command || !args || !buttons) {
            dialogProblem = QStringLiteral("a named field or the button box is missing");
            modal->close();
            return;
        }
        QTest::keyClicks(nameEdit, name);
        QTest::keyClicks(command, test::nodeBinary());
        QTest::keyClicks(args, test::everythingScript() + QStringLiteral(" stdio"));
        QPushButton* ok = buttons->button(QDialogButtonBox::Ok);
        if (!ok->isEnabled()) {
            dialogProblem = QStringLiteral("OK is disabled");
            dialog->reject();
            return;
        }
        filled = true;
        QTest::mouseClick(ok, Qt::LeftButton);
    });
    QAction* newServer = actionByText(QStringLiteral("&New Server…"));
    QVERIFY(newServer);
    newServer->trigger();
    QVERIFY2(filled, qPrintable(dialogProblem));

    const QModelIndex row = serverRow(name);
    QVERIFY(row.isValid());
    ServerConnection* c = m_window->engine()->connection(name);
    QVERIFY(c);
    QCOMPARE(c->config().command, test::nodeBinary());

    // Connect (the new server is the current one).
    QAction* connectAction = actionByText(QStringLiteral("&Connect"));
    QVERIFY(connectAction);
    connectAction->trigger();
    waitReady(name, 30000);
    if (QTest::currentTestFailed())
        return;

    m_window->centreTabs()->setCurrentIndex(1);
    QTRY_VERIFY(toolRow(QStringLiteral("echo")).isValid());
    clickRow(m_window->toolsView(), toolRow(QStringLiteral("echo")));
    QCOMPARE(m_window->composer()->tool().value(QLatin1String("name")).toString(), QStringLiteral("echo"));

    mcpscope::ResultView* result = m_window->resultView();
    const quint64 before = result->currentJob();
    QSignalSpy rendered(result, &mcpscope::ResultView::rendered);
    callThroughComposer(QStringLiteral("hello from the GUI test"));
    if (QTest::currentTestFailed())
        return;
    // "Calling…" is one job, the result the next; wait until the result is the one rendered.
    QTRY_VERIFY_WITH_TIMEOUT(result->currentJob() > before + 1 && result->renderedJob() == result->currentJob(), 20000);
    QVERIFY(!rendered.isEmpty());

    auto* tabs = result->findChild<QTabWidget*>();
    QVERIFY(tabs);
    QWidget* content = tabs->widget(0);
    QCOMPARE(tabs->tabText(0), QStringLiteral("Content"));
    bool echoed = false;
    const QList<QLabel*> labels = content->findChildren<QLabel*>();
    for (const QLabel* label : labels)
        echoed = echoed || label->text().contains(QStringLiteral("Echo: hello from the GUI test"));
    QVERIFY2(echoed, "no label in the Content tab shows the echo");

    QAbstractItemModel* calls = m_window->callsView()->model();
    QTRY_COMPARE(calls->rowCount(), 1);
    QTRY_COMPARE(calls->index(0, 0).data(CallsModelRole::OutcomeRole).toInt(), int(CallOutcome::Success));
    QCOMPARE(calls->index(0, 0).data(CallsModelRole::ToolRole).toString(), QStringLiteral("echo"));
}

void TestMainWindow::expireAfterOnWriteToolIsUncertainWithR5()
{
    const QString name = QStringLiteral("everything-http");
    const quint16 port = test::freePort();
    QVERIFY(port != 0);
    const QJsonObject server { { QStringLiteral("transport"), QStringLiteral("http") },
        { QStringLiteral("url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port) },
        { QStringLiteral("launchCommand"),
            QStringLiteral("env PORT=%1 %2 %3 streamableHttp")
                .arg(port)
                .arg(test::nodeBinary(), test::everythingScript()) },
        { QStringLiteral("viaFaultProxy"), true } };
    QVERIFY(openWorkspaceWith(name, server));
    QVERIFY(showWindow());
    m_window->selectServer(name);
    ServerConnection* c = m_window->engine()->connection(name);
    QVERIFY(c);

    QAction* connectAction = actionByText(QStringLiteral("&Connect"));
    QVERIFY(connectAction);
    connectAction->trigger();
    waitReady(name, 40000);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(c->faultProxy());
    const QString oldSession = c->sessionId();
    QVERIFY(!oldSession.isEmpty());

    // The fault bar offers the proxy's faults once the server is behind it.
    auto* kind = m_window->findChild<QComboBox*>(QStringLiteral("faultKind"));
    QVERIFY(kind);
    QTRY_VERIFY(kind->findText(QStringLiteral("expire-after")) >= 0);
    // A 2025-11-25 server is offered the session faults, not the 2026-07-28 refusals.
    QCOMPARE(kind->findText(QStringLiteral("unsupported-version")), -1);
    kind->setCurrentIndex(kind->findText(QStringLiteral("expire-after")));
    auto* faultBar = m_window->findChild<QToolBar*>(QStringLiteral("faultBar"));
    auto* arm = m_window->findChild<QAction*>(QStringLiteral("armFault"));
    QVERIFY(faultBar && arm);
    QWidget* armButton = faultBar->widgetForAction(arm);
    QVERIFY(armButton);
    QTest::mouseClick(armButton, Qt::LeftButton);
    QCOMPARE(c->faultProxy()->armed().size(), 1);
    QVERIFY(
        m_window->findChild<QLabel*>(QStringLiteral("armedFaults"))->text().contains(QStringLiteral("expire-after")));

    // A write tool (no annotations, so not read-only) through the composer.
    const QString tool = QStringLiteral("toggle-simulated-logging");
    m_window->centreTabs()->setCurrentIndex(1);
    QTRY_VERIFY(toolRow(tool).isValid());
    clickRow(m_window->toolsView(), toolRow(tool));
    QCOMPARE(m_window->composer()->tool().value(QLatin1String("name")).toString(), tool);
    callThroughComposer();
    if (QTest::currentTestFailed())
        return;

    QAbstractItemModel* calls = m_window->callsView()->model();
    QTRY_COMPARE_WITH_TIMEOUT(calls->rowCount(), 1, 30000);
    const QModelIndex call = calls->index(0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(call.data(CallsModelRole::OutcomeRole).toInt() != int(CallOutcome::Pending), 30000);
    QCOMPARE(call.data(CallsModelRole::OutcomeRole).toInt(), int(CallOutcome::OutcomeUncertain));
    QCOMPARE(call.data(CallsModelRole::RuleRole).toString(), QStringLiteral("R5"));
    QCOMPARE(call.data(CallsModelRole::ToolRole).toString(), tool);

    // The session healed: a new id, which the call's timeline names next to the rule.
    QTRY_VERIFY_WITH_TIMEOUT(c->state() == ServerConnection::State::Ready, 20000);
    const QString newSession = c->sessionId();
    QVERIFY(!newSession.isEmpty());
    QVERIFY(newSession != oldSession);
    clickRow(m_window->callsView(), call);
    QCOMPARE(m_window->callsView()->currentIndex().row(), 0);
    // The details are read from the log store asynchronously.
    QTRY_VERIFY(m_window->timeline()->plainTimeline().contains(newSession));
    const QString timeline = m_window->timeline()->plainTimeline();
    QVERIFY2(timeline.contains(QStringLiteral("R5")), qPrintable(timeline));
}

void TestMainWindow::breakerOpensAfterThreeToolErrors()
{
    const QString name = QStringLiteral("everything-stdio");
    const QJsonObject server { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("command"), test::nodeBinary() },
        { QStringLiteral("args"), QJsonArray { test::everythingScript(), QStringLiteral("stdio") } } };
    QVERIFY(openWorkspaceWith(name, server));
    QVERIFY(showWindow());
    m_window->selectServer(name);
    ServerConnection* c = m_window->engine()->connection(name);
    QVERIFY(c);
    c->connectToServer();
    waitReady(name, 30000);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(c->breaker()->state(), CircuitBreaker::State::Closed);

    // echo without its required message: the server answers each call with an error.
    for (int i = 0; i < 3; ++i) {
        std::optional<CallRecord> finished;
        c->callTool(QStringLiteral("echo"), {}, {}, [&finished](const CallRecord& record) { finished = record; });
        QTRY_VERIFY_WITH_TIMEOUT(finished.has_value(), 20000);
        QVERIFY2(finished->outcome == CallOutcome::ToolError, qPrintable(mcpscope::outcomeName(finished->outcome)));
        if (i < 2) {
            // Below the threshold (3) the strikes count up and the breaker stays closed.
            QCOMPARE(c->breaker()->consecutiveFailures(), i + 1);
            QCOMPARE(c->breaker()->state(), CircuitBreaker::State::Closed);
        }
    }
    QCOMPARE(c->breaker()->state(), CircuitBreaker::State::Open);

    // The servers view (its model is the presentation proxy) shows the light as "open …".
    const QModelIndex row = serverRow(name);
    QVERIFY(row.isValid());
    const QModelIndex breaker = row.siblingAtColumn(ServerListModelColumn::BreakerState);
    QTRY_COMPARE(breaker.data(ServerListModelRole::BreakerStateRole).toInt(), int(CircuitBreaker::State::Open));
    QTRY_VERIFY2(breaker.data(Qt::DisplayRole).toString().startsWith(QStringLiteral("open")),
        qPrintable(breaker.data(Qt::DisplayRole).toString()));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
