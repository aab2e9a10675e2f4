// Everyday friction a new user meets in the main window (issue 14), against the real server-everything:
// the banner over a failed server's tabs, the Overview's transport before any connect, the composer
// keeping its tool and arguments across a reconnect, Ctrl+Return from the tools table, the result
// clearing on a switch of tool, and a declined elicitation that is not shown as a success.

#include "calllog/callrecord.h"
#include "calllog/callsummary.h"
#include "composer/callcomposer.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "guiconnect.h"
#include "guienvironment.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/serverbanner.h"
#include "mainwindow/workspacesession.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"
#include "models/serverlistmodeldefs.h"
#include "models/toolsmodeldefs.h"
#include "peerprocess.h"
#include "presentation/presentation.h"
#include "requests/serverrequestsdock.h"
#include "result/resultview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUuid>

#include <memory>
#include <optional>
#include <vector>

using namespace mcpscope;

namespace {

QJsonObject everythingStdio()
{
    return { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("command"), test::nodeBinary() },
        { QStringLiteral("args"), QJsonArray { test::everythingScript(), QStringLiteral("stdio") } } };
}

} // namespace

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestEverydayFriction : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void failedStartShowsBannerOverEveryTab();
    void overviewOfDisconnectedHttpServerShowsItsTransport();
    void composerKeepsArgumentsAcrossReconnect();
    void ctrlReturnCallsFromToolsTable();
    void declinedElicitationIsNotSuccess();
    void actionsWithoutServerSayWhy();
    void faultBarRoutesHttpServerThroughProxy();
    void callsListFollowsNewCallsUnlessScrolledAway();
    void figuresAndBadgesFitTheWindow();

private:
    bool openWorkspace(const QJsonObject& servers);
    bool showWindow();
    /// Opens a workspace with server-everything (and extra servers), selects it and waits until it is ready.
    ServerConnection* connectEverything(const QJsonObject& extra = {});
    /// Waits for the next finished record of tool and returns it.
    std::optional<CallRecord> waitFinished(QSignalSpy& spy, const QString& tool);
    QLineEdit* messageField() const;

    std::unique_ptr<MainWindow> m_window;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
    std::unique_ptr<QTemporaryDir> m_scratch;
};

void TestEverydayFriction::initTestCase()
{
    QVERIFY(test::scratchConfigDir().isValid());
    test::useScratchSettings(QStringLiteral("tst_everydayfriction"));
    QVERIFY2(QFile::exists(test::everythingScript()), qPrintable(test::everythingScript()));
}

void TestEverydayFriction::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    m_window = std::make_unique<MainWindow>();
    auto* servers = m_window->findChild<QTreeView*>(QStringLiteral("serversView"));
    QVERIFY(servers);
    for (QAbstractItemModel* model :
        { servers->model(), m_window->toolsView()->model(), m_window->callsView()->model() })
        m_testers.push_back(
            std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest));
}

void TestEverydayFriction::cleanup()
{
    m_testers.clear();
    m_window.reset();
    m_scratch.reset();
}

bool TestEverydayFriction::openWorkspace(const QJsonObject& servers)
{
    const QJsonObject workspace { { QStringLiteral("mcpscopeWorkspace"), 1 }, { QStringLiteral("servers"), servers } };
    QFile file(m_scratch->filePath(QStringLiteral("workspace.json")));
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(QJsonDocument(workspace).toJson());
    file.close();
    return m_window->openWorkspace(file.fileName());
}

bool TestEverydayFriction::showWindow()
{
    m_window->resize(1440, 900);
    m_window->show();
    QApplication::setActiveWindow(m_window.get());
    return QTest::qWaitForWindowActive(m_window.get());
}

ServerConnection* TestEverydayFriction::connectEverything(const QJsonObject& extra)
{
    QJsonObject servers = extra;
    servers.insert(QStringLiteral("everything"), everythingStdio());
    if (!openWorkspace(servers) || !showWindow())
        return nullptr;
    return test::selectAndConnect(m_window.get(), QStringLiteral("everything"));
}

std::optional<CallRecord> TestEverydayFriction::waitFinished(QSignalSpy& spy, const QString& tool)
{
    std::optional<CallRecord> found;
    (void)QTest::qWaitFor(
        [&] {
            for (const QList<QVariant>& args : std::as_const(spy)) {
                const auto record = args.at(0).value<CallRecord>();
                if (record.tool == tool && record.isFinished())
                    found = record;
            }
            return found.has_value();
        },
        30000);
    return found;
}

QLineEdit* TestEverydayFriction::messageField() const
{
    return m_window->composer()->findChild<QLineEdit*>(QStringLiteral("args.message"));
}

void TestEverydayFriction::failedStartShowsBannerOverEveryTab()
{
    const QJsonObject broken { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("command"), m_scratch->filePath(QStringLiteral("no-such-server")) } };
    QVERIFY(openWorkspace({ { QStringLiteral("broken"), broken } }));
    QVERIFY(showWindow());
    m_window->selectServer(QStringLiteral("broken"));
    auto* banner = m_window->findChild<ServerBanner*>(QStringLiteral("serverBanner"));
    QVERIFY(banner);
    // Not connected yet: the banner offers to connect.
    QVERIFY(banner->isVisible());
    QCOMPARE(banner->button()->text(), QStringLiteral("Connect"));

    ServerConnection* c = m_window->engine()->connection(QStringLiteral("broken"));
    QVERIFY(c);
    banner->button()->click();
    QTRY_COMPARE_WITH_TIMEOUT(c->state(), ServerConnection::State::Failed, 20000);
    QVERIFY(!c->lastError().isEmpty());
    QVERIFY2(
        banner->text().contains(QStringLiteral("broken")) && banner->text().contains(QStringLiteral("no-such-server")),
        qPrintable(banner->text()));
    QCOMPARE(banner->button()->text(), QStringLiteral("Reconnect"));

    // The banner is above the tabs, not in one of them: it stays on each tab.
    QTabWidget* tabs = m_window->centreTabs();
    QVERIFY(!tabs->isAncestorOf(banner));
    for (int tab = 0; tab < tabs->count(); ++tab) {
        if (!tabs->isTabVisible(tab))
            continue;
        tabs->setCurrentIndex(tab);
        QVERIFY(banner->isVisible());
        QVERIFY(banner->geometry().bottom() <= tabs->geometry().top());
    }
    // The Reconnect button tries again (and fails again, with the same error).
    QSignalSpy failed(c, &ServerConnection::failed);
    banner->button()->click();
    QVERIFY(failed.wait(20000));
    QVERIFY(banner->isVisible());
}

void TestEverydayFriction::overviewOfDisconnectedHttpServerShowsItsTransport()
{
    const QJsonObject http { { QStringLiteral("transport"), QStringLiteral("http") },
        { QStringLiteral("url"), QStringLiteral("http://127.0.0.1:9/mcp") } };
    QVERIFY(openWorkspace({ { QStringLiteral("remote"), http } }));
    QVERIFY(showWindow());
    m_window->selectServer(QStringLiteral("remote"));
    auto* overview = m_window->findChild<QLabel*>(QStringLiteral("overview"));
    QVERIFY(overview);
    QVERIFY2(overview->text().contains(QStringLiteral("<b>Transport:</b> HTTP")), qPrintable(overview->text()));
    QVERIFY(!overview->text().contains(QStringLiteral("stdio")));
}

void TestEverydayFriction::composerKeepsArgumentsAcrossReconnect()
{
    ServerConnection* c = connectEverything();
    QVERIFY(c);
    m_window->selectTool(QStringLiteral("echo"));
    QLineEdit* message = messageField();
    QVERIFY(message);
    message->setText(QStringLiteral("kept across the reconnect"));
    const QString before = c->sessionId();

    // The Server menu's Reconnect Now (F5): a new session, which lists the tools again.
    QAction* reconnect = nullptr;
    for (QAction* action : m_window->findChildren<QAction*>())
        if (action->text() == QStringLiteral("&Reconnect Now"))
            reconnect = action;
    QVERIFY(reconnect);
    QVERIFY(reconnect->isEnabled());
    reconnect->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(c->sessionId() != before && c->state() == ServerConnection::State::Ready
            && c->session()->toolsListed() && m_window->toolsView()->currentIndex().isValid(),
        30000);

    QCOMPARE(
        m_window->toolsView()->currentIndex().data(ToolsModelRole::ToolNameRole).toString(), QStringLiteral("echo"));
    QCOMPARE(m_window->composer()->tool().value(QLatin1String("name")).toString(), QStringLiteral("echo"));
    QVERIFY(messageField());
    QCOMPARE(messageField()->text(), QStringLiteral("kept across the reconnect"));

    QSignalSpy updates(m_window->engine(), &Engine::callUpdated);
    m_window->callSelectedTool();
    const std::optional<CallRecord> record = waitFinished(updates, QStringLiteral("echo"));
    QVERIFY(record);
    QCOMPARE(record->outcome, CallOutcome::Success);
    QCOMPARE(record->arguments.value(QLatin1String("message")).toString(), QStringLiteral("kept across the reconnect"));

    // Another tool: the composer and the result start afresh.
    auto* raw = m_window->resultView()->findChild<QPlainTextEdit*>();
    QTRY_VERIFY(raw && !raw->toPlainText().isEmpty());
    m_window->selectTool(QStringLiteral("get-sum"));
    QCOMPARE(m_window->composer()->tool().value(QLatin1String("name")).toString(), QStringLiteral("get-sum"));
    QVERIFY(raw->toPlainText().isEmpty());
}

void TestEverydayFriction::ctrlReturnCallsFromToolsTable()
{
    const QJsonObject other { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("command"), m_scratch->filePath(QStringLiteral("not-started")) } };
    ServerConnection* c = connectEverything({ { QStringLiteral("other"), other } });
    QVERIFY(c);
    m_window->selectTool(QStringLiteral("echo"));
    QVERIFY(messageField());
    messageField()->setText(QStringLiteral("from the table"));
    QTableView* tools = m_window->toolsView();
    tools->setFocus();
    QTRY_VERIFY(tools->hasFocus());
    QSignalSpy updates(m_window->engine(), &Engine::callUpdated);
    QTest::keyClick(tools, Qt::Key_Return, Qt::ControlModifier);
    const std::optional<CallRecord> record = waitFinished(updates, QStringLiteral("echo"));
    QVERIFY(record);
    QCOMPARE(record->arguments.value(QLatin1String("message")).toString(), QStringLiteral("from the table"));
    // The calls list shows it.
    QTRY_COMPARE(m_window->callsView()->model()->rowCount(), 1);

    // Another server: the composer and the result pane start empty.
    auto* raw = m_window->resultView()->findChild<QPlainTextEdit*>();
    QTRY_VERIFY(raw && !raw->toPlainText().isEmpty());
    m_window->selectServer(QStringLiteral("other"));
    QVERIFY(raw->toPlainText().isEmpty());
    QVERIFY(m_window->composer()->tool().isEmpty());
    auto* resultBanner = m_window->resultView()->findChild<QLabel*>(QStringLiteral("resultBanner"));
    QVERIFY(resultBanner && !resultBanner->isVisible());
    // Ctrl+Return with no tool says why instead of calling.
    QSignalSpy noCall(m_window->engine(), &Engine::callUpdated);
    tools->setFocus();
    QTest::keyClick(tools, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(noCall.count(), 0);
    // The status bar says why.
    bool said = false;
    for (const QLabel* label : m_window->statusBar()->findChildren<QLabel*>())
        said = said || label->text().contains(QStringLiteral("Select a server and a tool first"));
    QVERIFY(said);
}

void TestEverydayFriction::declinedElicitationIsNotSuccess()
{
    ServerConnection* c = connectEverything();
    QVERIFY(c);
    const QString tool = QStringLiteral("trigger-elicitation-request");
    // Registered once the server saw the elicitation capability McpScope declares.
    QTRY_VERIFY_WITH_TIMEOUT(m_window->composer() && c->session()->tool(tool) != nullptr, 20000);
    QTRY_VERIFY(m_window->toolsView()->model()->rowCount() > 0);
    m_window->selectTool(tool);
    QCOMPARE(m_window->composer()->tool().value(QLatin1String("name")).toString(), tool);
    QSignalSpy updates(m_window->engine(), &Engine::callUpdated);
    m_window->callSelectedTool();
    // The request waits in the server requests panel; the user declines it there.
    ServerRequestsDock* dock = m_window->serverRequestsDock();
    QTRY_VERIFY_WITH_TIMEOUT(dock->currentEditor() != nullptr, 20000);
    auto* decline = dock->currentEditor()->findChild<QPushButton*>(QStringLiteral("elicitationDecline"));
    QVERIFY(decline);
    QTest::mouseClick(decline, Qt::LeftButton);
    const std::optional<CallRecord> record = waitFinished(updates, tool);
    QVERIFY(record);
    // The server ran the tool and answered; the user had declined what it asked for.
    QCOMPARE(record->outcome, CallOutcome::Success);
    QVERIFY(CallSummary::declinedInput(*record));

    QAbstractItemModel* calls = m_window->callsView()->model();
    QTRY_COMPARE(calls->rowCount(), 1);
    const QModelIndex outcome = calls->index(0, CallsModelColumn::Outcome);
    QTRY_VERIFY(outcome.data(CallsModelRole::InputDeclinedRole).toBool());
    QCOMPARE(outcome.data(Qt::DisplayRole).toString(), QStringLiteral("input declined"));
    const QColor background = outcome.data(Qt::BackgroundRole).value<QColor>();
    QVERIFY2(background.isValid() && background != Presentation::outcomeColour(CallOutcome::Success),
        qPrintable(background.name()));

    auto* banner = m_window->resultView()->findChild<QLabel*>(QStringLiteral("resultBanner"));
    QVERIFY(banner);
    QTRY_VERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("Input declined")), qPrintable(banner->text()));
}

void TestEverydayFriction::actionsWithoutServerSayWhy()
{
    // An empty window: nothing is selected, so the server actions are off and say why.
    QVERIFY(showWindow());
    for (const QString& text :
        { QStringLiteral("&Connect"), QStringLiteral("&Disconnect"), QStringLiteral("&Reconnect Now"),
            QStringLiteral("&Edit…"), QStringLiteral("Re&move"), QStringLiteral("Copy Session &Id"),
            QStringLiteral("Expire (server)"), QStringLiteral("Kill transport"), QStringLiteral("Arm") }) {
        QAction* action = nullptr;
        for (QAction* candidate : m_window->findChildren<QAction*>())
            if (candidate->text() == text)
                action = candidate;
        QVERIFY2(action, qPrintable(text));
        QVERIFY2(!action->isEnabled(), qPrintable(text));
        QVERIFY2(action->statusTip().contains(QStringLiteral("Select a server"))
                || action->toolTip().contains(QStringLiteral("Select a server")),
            qPrintable(text + QStringLiteral(": ") + action->toolTip()));
    }
    // A ready server: Connect is off (it is connected), Disconnect and Copy Session Id are on.
    ServerConnection* c = connectEverything();
    QVERIFY(c);
    QAction* connectAction = nullptr;
    QAction* copyId = nullptr;
    for (QAction* candidate : m_window->findChildren<QAction*>()) {
        if (candidate->text() == QStringLiteral("&Connect"))
            connectAction = candidate;
        if (candidate->text() == QStringLiteral("Copy Session &Id"))
            copyId = candidate;
    }
    QVERIFY(connectAction && copyId);
    QTRY_VERIFY(!connectAction->isEnabled());
    QVERIFY(connectAction->toolTip().contains(QStringLiteral("already connected")));
    QVERIFY(copyId->isEnabled());
    auto* banner = m_window->findChild<ServerBanner*>(QStringLiteral("serverBanner"));
    QVERIFY(banner && !banner->isVisible());
}

void TestEverydayFriction::faultBarRoutesHttpServerThroughProxy()
{
    const QString name = QStringLiteral("everything-http");
    const quint16 port = test::freePort();
    QVERIFY(port != 0);
    const QJsonObject server { { QStringLiteral("transport"), QStringLiteral("http") },
        { QStringLiteral("url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port) },
        { QStringLiteral("launchCommand"),
            QStringLiteral("env PORT=%1 %2 %3 streamableHttp")
                .arg(port)
                .arg(test::nodeBinary(), test::everythingScript()) } };
    QVERIFY(openWorkspace({ { name, server } }));
    QVERIFY(showWindow());
    m_window->selectServer(name);
    ServerConnection* c = m_window->engine()->connection(name);
    QVERIFY(c);
    c->connectToServer();
    QTRY_VERIFY_WITH_TIMEOUT(c->state() == ServerConnection::State::Ready, 30000);
    QVERIFY(!c->faultProxy());

    // Not behind the proxy: the bar says so and offers to put it there.
    auto* armed = m_window->findChild<QLabel*>(QStringLiteral("armedFaults"));
    auto* route = m_window->findChild<QAction*>(QStringLiteral("routeThroughFaultProxy"));
    QVERIFY(armed && route);
    QTRY_VERIFY(route->isVisible());
    QVERIFY2(armed->text().contains(QStringLiteral("not behind the fault proxy")), qPrintable(armed->text()));
    route->trigger();

    // The option is on in the workspace, and the server reconnects through the proxy.
    QVERIFY(m_window->session()->workspace().servers.value(0).viaFaultProxy);
    QVERIFY(c->config().viaFaultProxy);
    QTRY_VERIFY_WITH_TIMEOUT(c->state() == ServerConnection::State::Ready && c->faultProxy(), 30000);
    m_window->selectServer(name);
    QTRY_VERIFY(!route->isVisible());
    auto* kinds = m_window->findChild<QComboBox*>(QStringLiteral("faultKind"));
    QVERIFY(kinds);
    QTRY_VERIFY(kinds->isEnabled() && kinds->count() > 0);
    QVERIFY2(armed->text().contains(QStringLiteral("nothing armed")), qPrintable(armed->text()));
}

void TestEverydayFriction::callsListFollowsNewCallsUnlessScrolledAway()
{
    QVERIFY(showWindow());
    CallsModel* model = m_window->callsModel();
    QTableView* view = m_window->callsView();
    const qint64 start = QDateTime::currentMSecsSinceEpoch();
    int added = 0;
    const auto addCalls = [&](int count) {
        for (int i = 0; i < count; ++i, ++added) {
            CallRecord record;
            record.callId = QUuid::createUuid().toString(QUuid::WithoutBraces);
            record.server = QStringLiteral("everything");
            record.method = QStringLiteral("tools/call");
            record.tool = QStringLiteral("echo");
            record.startedAt = start + added;
            record.endedAt = start + added + 5;
            record.outcome = CallOutcome::Success;
            model->ingest(record);
        }
    };
    addCalls(200);
    QTRY_COMPARE(view->model()->rowCount(), 200);
    QScrollBar* bar = view->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    // At the end of the list: new calls come into view.
    QTRY_COMPARE(bar->value(), bar->maximum());
    addCalls(20);
    QTRY_COMPARE(view->model()->rowCount(), 220);
    QTRY_COMPARE(bar->value(), bar->maximum());
    // Scrolled up to read, with a call selected: the place is kept.
    view->setCurrentIndex(view->model()->index(10, 0));
    bar->setValue(0);
    addCalls(20);
    QTRY_COMPARE(view->model()->rowCount(), 240);
    // rowsInserted has run (the rows are there): a follow would have moved the bar by now.
    QCOMPARE(bar->value(), 0);
    // Back at the end, with the selection still on an old call: new calls are followed again.
    view->scrollToBottom();
    QCOMPARE(bar->value(), bar->maximum());
    addCalls(5);
    QTRY_COMPARE(view->model()->rowCount(), 245);
    QTRY_COMPARE(bar->value(), bar->maximum());
    QVERIFY(view->rowAt(view->viewport()->height() - 2) >= 240);
}

// In the default 1440x900 window the tools table's On expiry column and per-tool figures (Calls, Errors, p50,
// p99), and the servers list's State and Breaker badges, are in view without scrolling: the free-text columns
// give way. A wider window gives the Title its room back; a column sized by hand keeps its width.
void TestEverydayFriction::figuresAndBadgesFitTheWindow()
{
    QVERIFY(connectEverything());
    m_window->selectTool(QStringLiteral("echo"));
    QTabWidget* tabs = m_window->centreTabs();
    for (int tab = 0; tab < tabs->count(); ++tab) {
        if (tabs->tabText(tab) == QStringLiteral("Tools"))
            tabs->setCurrentIndex(tab);
    }
    QTableView* tools = m_window->toolsView();
    QTRY_VERIFY(tools->isVisible() && tools->model()->rowCount() > 5);
    QHeaderView* header = tools->horizontalHeader();
    const auto fits = [](QHeaderView* h, QWidget* viewport) { return h->length() <= viewport->width(); };
    QTRY_VERIFY2(fits(header, tools->viewport()),
        qPrintable(QStringLiteral("columns %1 px, table %2 px").arg(header->length()).arg(tools->viewport()->width())));
    QVERIFY(!tools->horizontalScrollBar()->isVisible());
    QCOMPARE(header->visualIndex(ToolsModelColumn::P99), ToolsModelColumn::Count - 1);
    const int narrowTitle = tools->columnWidth(ToolsModelColumn::Title);
    QVERIFY2(narrowTitle < 170, qPrintable(QString::number(narrowTitle))); // it gave way from its usual cap
    auto* servers = m_window->findChild<QTreeView*>(QStringLiteral("serversView"));
    QTRY_VERIFY2(fits(servers->header(), servers->viewport()),
        qPrintable(QStringLiteral("columns %1 px, list %2 px")
                       .arg(servers->header()->length())
                       .arg(servers->viewport()->width())));

    m_window->resize(1800, 900);
    QTRY_VERIFY(tools->columnWidth(ToolsModelColumn::Title) > narrowTitle);
    QVERIFY(fits(header, tools->viewport()));

    header->resizeSection(ToolsModelColumn::Name, 260); // by hand
    const int wide = tools->viewport()->width();
    m_window->resize(1500, 900);
    QTRY_VERIFY(tools->viewport()->width() < wide);
    QTest::qWait(300); // longer than the refit's delay
    QCOMPARE(tools->columnWidth(ToolsModelColumn::Name), 260);
}

QTEST_MAIN(TestEverydayFriction)
#include "tst_everydayfriction.moc"
