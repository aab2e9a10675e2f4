// The app stopping with a call in flight (RECOVERY.md §3, issue 12): the window closes and goes, as
// the app's main does on quit, window close or SIGTERM, and the call the server ran is in the
// workspace's log store as interrupted, with its dispatch verdict; a write is marked as possibly
// executed. The ledger peer (tests/peers/ledger-peer.mjs) counts what the server ran.

#include "calllog/logstore.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "ledger.h"
#include "logstorereads.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/workspacesession.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using mcpscope::CallOutcome;
using mcpscope::CallRecord;
using mcpscope::DispatchVerdict;

class TestWorkspaceShutdown : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void closedWindowLogsTheCallInFlight_data();
    void closedWindowLogsTheCallInFlight();

private:
    QTemporaryDir m_config;
};

void TestWorkspaceShutdown::initTestCase()
{
    QVERIFY(m_config.isValid());
    QCoreApplication::setOrganizationName(u"McpScopeTest"_s);
    QCoreApplication::setApplicationName(u"tst_workspaceshutdown"_s);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_config.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_config.path());
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
}

void TestWorkspaceShutdown::closedWindowLogsTheCallInFlight_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<bool>("possiblyExecuted");
    QTest::newRow("write in flight: interrupted, possibly executed") << u"sleep-write"_s << true;
    QTest::newRow("read-only call in flight: interrupted, nothing uncertain") << u"sleep"_s << false;
}

void TestWorkspaceShutdown::closedWindowLogsTheCallInFlight()
{
    QFETCH(QString, tool);
    QFETCH(bool, possiblyExecuted);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    qputenv("MCPSCOPE_LOG_DIR", QFile::encodeName(dir.filePath(u"logs"_s)));
    const mcpscope::test::Ledger ledger { dir.filePath(u"ledger.jsonl"_s) };
    const QJsonObject server { { u"transport"_s, u"stdio"_s }, { u"command"_s, QStringLiteral(MCPSCOPE_NODE) },
        { u"args"_s,
            QJsonArray {
                QString(QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/ledger-peer.mjs"_s), u"stdio"_s, ledger.path } } };
    const QString workspace = dir.filePath(u"workspace.json"_s);
    {
        QFile file(workspace);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(
            QJsonObject { { u"mcpscopeWorkspace"_s, 1 }, { u"servers"_s, QJsonObject { { u"ledger"_s, server } } } })
                       .toJson());
    }

    auto window = std::make_unique<mcpscope::MainWindow>();
    QVERIFY(window->openWorkspace(workspace));
    mcpscope::ServerConnection* connection = window->engine()->connection(u"ledger"_s);
    QVERIFY(connection);
    QSignalSpy ready(connection, &mcpscope::ServerConnection::ready);
    connection->connectToServer();
    QVERIFY(ready.wait(60000));

    std::optional<CallRecord> ended;
    const QString callId = window->engine()->call(u"ledger"_s, u"tools/call"_s,
        { { u"name"_s, tool }, { u"arguments"_s, QJsonObject { { u"ms"_s, 600000 } } } }, {},
        [&ended](const CallRecord& record) { ended = record; });
    QTRY_COMPARE_WITH_TIMEOUT(ledger.runsOf(tool), 1, 60000);
    QVERIFY(!ended);

    // What the app's main does once its event loop returned.
    window->close();
    window.reset();
    QVERIFY(ended);
    QCOMPARE(ended->outcome, CallOutcome::Interrupted);

    mcpscope::LogStore store;
    QString error;
    QVERIFY2(store.open(mcpscope::WorkspaceSession::logStorePathFor(workspace), &error), qPrintable(error));
    const std::optional<CallRecord> stored = mcpscope::testing::readRecord(store, callId);
    QVERIFY(stored);
    QCOMPARE(stored->outcome, CallOutcome::Interrupted);
    QCOMPARE(ledger.runsOfCall(callId), 1);
    QCOMPARE(stored->attempts.size(), 1);
    QCOMPARE(stored->attempts.first().verdict, std::optional<DispatchVerdict>(DispatchVerdict::Unknown));
    QCOMPARE(stored->error.value("dispatch"_L1).toString(), u"unknown"_s);
    QCOMPARE(stored->result.toObject().value("outcome"_L1).toString(), possiblyExecuted ? u"uncertain"_s : QString());
}

QTEST_MAIN(TestWorkspaceShutdown)
#include "tst_workspaceshutdown.moc"
