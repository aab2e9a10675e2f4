// The window against a real server-everything: Ping (its round trip in the status bar and on the
// Overview, one call record with method ping), the server's stderr in the Server Output view with
// its search and copy, and the Traffic dock's filters with each log notification shown once.

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "guienvironment.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/serveractions.h"
#include "mainwindow/serveroverview.h"
#include "mainwindow/trafficdock.h"
#include "models/trafficfilter.h"
#include "models/trafficmodeldefs.h"
#include "output/serveroutputview.h"
#include "peerprocess.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QJsonObject>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestServerOutput : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void pingShowsTheRoundTrip();
    void failedPingNamesTheServer();
    void stderrLinesInTheirViewWithSearchAndCopy();
    void trafficFiltersAndOneRowPerLogNotification();

private:
    MainWindow* m_window = nullptr;
    ServerConnection* m_connection = nullptr;
    const QString m_name = QStringLiteral("everything");
};

void TestServerOutput::initTestCase()
{
    m_window = new MainWindow;
    ServerConfig config;
    config.name = m_name;
    config.command = test::nodeBinary();
    config.args = QStringList { test::everythingScript(), QStringLiteral("stdio") };
    m_window->session()->addServer(config);
    m_window->show();
    m_window->selectServer(m_name);
    m_connection = m_window->engine()->connection(m_name);
    QVERIFY(m_connection);
    // Not connected yet: Ping is disabled and says why.
    QAction* ping = m_window->serverActions()->pingServer();
    QVERIFY(!ping->isEnabled());
    QVERIFY2(ping->toolTip().contains(QStringLiteral("not connected")), qPrintable(ping->toolTip()));
    QSignalSpy ready(m_connection, &ServerConnection::ready);
    m_connection->connectToServer();
    QVERIFY(ready.wait(30000));
}

void TestServerOutput::cleanupTestCase()
{
    delete m_window;
}

void TestServerOutput::pingShowsTheRoundTrip()
{
    QAction* ping = m_window->serverActions()->pingServer();
    QTRY_VERIFY(ping->isEnabled());
    QStringList pingRecords;
    // Scoped to this function: the list it fills goes with it.
    QObject scope;
    connect(m_window->engine(), &Engine::callUpdated, &scope, [&pingRecords](const CallRecord& record) {
        if (record.isFinished() && record.method == QLatin1String("ping"))
            pingRecords << outcomeName(record.outcome);
    });
    QSignalSpy status(m_window->serverActions(), &ServerActions::statusMessage);
    QSignalSpy pinged(m_window->serverActions(), &ServerActions::pinged);
    ping->trigger();
    QVERIFY(pinged.wait(20000));
    QCOMPARE(pinged.first().first().toString(), m_name);
    QCOMPARE(pingRecords, QStringList { QStringLiteral("success") });
    const QString line = status.last().first().toString();
    QVERIFY2(line.startsWith(QStringLiteral("Ping everything: ")) && line.endsWith(QStringLiteral(" ms round trip")),
        qPrintable(line));
    const QString text = m_window->serverActions()->lastPingText(m_name);
    QVERIFY2(text.contains(QStringLiteral(" ms at ")), qPrintable(text));
    QVERIFY2(m_window->overview()->text().contains(QStringLiteral("<b>Last ping:</b> ") + text),
        qPrintable(m_window->overview()->text()));
}

void TestServerOutput::failedPingNamesTheServer()
{
    // An open breaker ends the ping at once, before it reaches the server.
    m_connection->openBreaker();
    QSignalSpy status(m_window->serverActions(), &ServerActions::statusMessage);
    QSignalSpy pinged(m_window->serverActions(), &ServerActions::pinged);
    m_window->serverActions()->pingServer()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(pinged.size(), 1, 20000);
    m_connection->resetBreaker();
    const QString line = status.last().first().toString();
    QVERIFY2(line.startsWith(QStringLiteral("Ping to 'everything' failed (")), qPrintable(line));
    const QString text = m_window->serverActions()->lastPingText(m_name);
    QVERIFY2(text.startsWith(QStringLiteral("failed at ")), qPrintable(text));
    QVERIFY2(m_window->overview()->text().contains(QStringLiteral("<b>Last ping:</b> failed at ")),
        qPrintable(m_window->overview()->text()));
}

void TestServerOutput::stderrLinesInTheirViewWithSearchAndCopy()
{
    ServerOutputView* view = m_window->serverOutputView();
    QCOMPARE(view->server(), m_name);
    // server-everything announces itself on stderr as it starts.
    const QString start = QStringLiteral("Starting default (STDIO) server...");
    QTRY_VERIFY2(view->shownLines().contains(start), qPrintable(view->shownLines().join(u'\n')));
    QVERIFY(view->textView()->toPlainText().contains(start));

    view->setSearchText(QStringLiteral("default (stdio)"));
    QCOMPARE(view->shownLines(), QStringList { start });
    QCOMPARE(view->matchCount(), 1);
    view->setSearchText(QStringLiteral("no such line anywhere"));
    QVERIFY(view->shownLines().isEmpty());
    QCOMPARE(view->matchCount(), 0);
    QCOMPARE(view->textView()->placeholderText(), QStringLiteral("No line contains 'no such line anywhere'."));
    view->setSearchText(QString());
    QVERIFY(view->shownLines().contains(start));

    view->textView()->selectAll();
    view->textView()->copy();
    QVERIFY2(QApplication::clipboard()->text().contains(start), qPrintable(QApplication::clipboard()->text()));

    // Another server shows its own output (none), and the view comes back to this one's.
    view->showServer(QStringLiteral("other"));
    QVERIFY(view->shownLines().isEmpty());
    QCOMPARE(view->textView()->placeholderText(), QStringLiteral("'other' has written nothing to stderr yet."));
    view->showServer(m_name);
    QVERIFY(view->shownLines().contains(start));
}

void TestServerOutput::trafficFiltersAndOneRowPerLogNotification()
{
    TrafficDock* dock = m_window->trafficDock();
    QAbstractItemModelTester tester(dock->filter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::optional<CallRecord> setLevel;
    m_window->engine()->call(m_name, QStringLiteral("logging/setLevel"),
        { { QStringLiteral("level"), QStringLiteral("debug") } }, {},
        [&setLevel](const CallRecord& record) { setLevel = record; });
    QTRY_VERIFY_WITH_TIMEOUT(setLevel.has_value(), 20000);
    QCOMPARE(setLevel->outcome, CallOutcome::Success);
    // The tool sends one log message at once (then one every 5 s, until toggled off).
    std::optional<CallRecord> toggled;
    m_window->engine()->call(m_name, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("toggle-simulated-logging") },
            { QStringLiteral("arguments"), QJsonObject() } },
        {}, [&toggled](const CallRecord& record) { toggled = record; });
    QTRY_VERIFY_WITH_TIMEOUT(toggled.has_value(), 20000);

    const QAbstractItemModel* shown = dock->view()->model();
    const auto logRows = [shown] {
        QList<int> rows;
        for (int row = 0; row < shown->rowCount(); ++row) {
            if (shown->index(row, 0).data(TrafficModelRole::DirectionRole).toInt() == int(TrafficDirection::Log))
                rows << row;
        }
        return rows;
    };
    QTRY_VERIFY_WITH_TIMEOUT(!logRows().isEmpty(), 20000);
    for (int row = 0; row < shown->rowCount(); ++row) {
        // No raw twin: the notification on the wire is the log row.
        const QModelIndex index = shown->index(row, 0);
        QVERIFY(index.data(TrafficModelRole::DirectionRole).toInt() != int(TrafficDirection::Incoming)
            || index.data(TrafficModelRole::MethodRole).toString() != QLatin1String("notifications/message"));
        // McpScope says nothing as the server's stderr here: every stderr row is the server's.
        if (index.data(TrafficModelRole::DirectionRole).toInt() == int(TrafficDirection::Stderr))
            QVERIFY(!index.data(TrafficModelRole::TextRole).toString().startsWith(QStringLiteral("Server '")));
    }
    const int log = logRows().first();
    const QString direction = shown->index(log, TrafficModelColumn::Direction).data().toString();
    QVERIFY2(direction.startsWith(QStringLiteral("log · ")), qPrintable(direction));
    const QString message = shown->index(log, TrafficModelColumn::Text).data().toString();
    QVERIFY2(message.contains(QStringLiteral("message")), qPrintable(message));

    // The text filter finds that row by its text; the server filter keeps this server's rows.
    dock->textFilter()->setText(message);
    QVERIFY(shown->rowCount() >= 1);
    for (int row = 0; row < shown->rowCount(); ++row)
        QVERIFY(shown->index(row, TrafficModelColumn::Text).data().toString().contains(message));
    dock->textFilter()->setText(QString());
    const int all = shown->rowCount();
    QComboBox* servers = dock->serverFilter();
    QCOMPARE(servers->itemText(0), QStringLiteral("All servers"));
    const int index = servers->findData(m_name);
    QVERIFY(index > 0);
    servers->setCurrentIndex(index);
    QVERIFY(shown->rowCount() > 0 && shown->rowCount() <= all);
    for (int row = 0; row < shown->rowCount(); ++row)
        QCOMPARE(shown->index(row, 0).data(TrafficModelRole::ServerRole).toString(), m_name);
    servers->setCurrentIndex(0);
    // Stop the simulated logging.
    toggled.reset();
    m_window->engine()->call(m_name, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("toggle-simulated-logging") },
            { QStringLiteral("arguments"), QJsonObject() } },
        {}, [&toggled](const CallRecord& record) { toggled = record; });
    QTRY_VERIFY_WITH_TIMEOUT(toggled.has_value(), 20000);
}

QTEST_MAIN(TestServerOutput)
#include "tst_serveroutput.moc"
