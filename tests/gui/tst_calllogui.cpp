// The call log in the app: calls persist in the workspace's log store and come back (with their
// details) after a restart; File › Export writes the visible rows or a selection as JSONL, HAR or
// CSV off the GUI thread; File › Open Call Log shows a JSONL log read-only; bad logs and an
// unusable log store give messages naming the file while the app keeps working.
//
// Real servers: @modelcontextprotocol/server-everything over stdio and Streamable HTTP.

#include "calllog/calllogfile.h"
#include "calllog/exportjob.h"
#include "calllog/logstore.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "calls/timelineview.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "logstorereads.h"
#include "logviewers.h"
#include "mainwindow/mainwindow.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"
#include "peerprocess.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPointer>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include <memory>

using mcpscope::CallOutcome;
using mcpscope::CallRecord;
using mcpscope::CallsPanel;
using mcpscope::ExportJob;
using mcpscope::ExportRequest;
using mcpscope::LogViewerWindow;
using mcpscope::MainWindow;
using mcpscope::ServerConnection;
using mcpscope::WorkspaceSession;
namespace CallsModelRole = mcpscope::CallsModelRole;
namespace test = mcpscope::test;

namespace {

QTemporaryDir& configDir()
{
    static QTemporaryDir dir;
    return dir;
}

const QByteArray PlantedToken("planted-token-6f1d2c9e8a7b");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

CallRecord syntheticRecord(int n)
{
    CallRecord record;
    record.callId = QStringLiteral("synthetic-%1").arg(n, 5, 10, QLatin1Char('0'));
    record.server = n % 2 ? QStringLiteral("alpha") : QStringLiteral("beta");
    record.transport = QStringLiteral("stdio");
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("tool-%1").arg(n % 3);
    record.arguments = { { QStringLiteral("n"), n } };
    record.startedAt = 1764400000000 + n * 10;
    record.endedAt = record.startedAt + 7;
    mcpscope::CallAttempt attempt;
    attempt.requestId = QString::number(n);
    attempt.sessionId = QStringLiteral("pid:42");
    attempt.sentAt = record.startedAt;
    attempt.endedAt = record.endedAt;
    attempt.written = true;
    record.attempts = { attempt };
    record.outcome = n % 5 == 0 ? CallOutcome::ToolError : CallOutcome::Success;
    record.result = QJsonObject { { QStringLiteral("content"), QJsonArray {} } };
    return record;
}

QByteArray jsonLine(const CallRecord& record)
{
    return QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace

[[maybe_unused]] static const bool s_environment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(configDir().path()));
    return true;
}();

using namespace mcpscope::testing;

class TestCallLogUi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void callsSurviveARestartWithTheirDetails();
    void csvMatchesTheVisibleFilter();
    void selectionExportsAsJsonlAndReopensReadOnly();
    void harOfAnHttpServerIsValidAndRedacted();
    void openLogShowsEveryCompleteRecord();
    void badLogFilesAreNamedAndNothingOpens();
    void unusableLogStoreKeepsCallsInMemory();
    void exportJobReportsProgressAndCancels();

private:
    /// A window on a workspace with one server (written to the scratch folder), connected and ready.
    bool startWith(const QString& name, const QJsonObject& server);
    QString workspacePath() const { return m_scratch->filePath(QStringLiteral("workspace.json")); }
    /// Calls tool with arguments and waits until the call has finished; returns its record.
    CallRecord call(const QString& server, const QString& tool, const QJsonObject& arguments);
    /// Runs an export through the window's exporter and waits for it.
    bool runExport(mcpscope::CallsExporter* exporter, ExportRequest::Format format, CallsPanel::Scope scope,
        const QString& path, QString* message = nullptr);
    QJsonObject stdioServer() const;

    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

void TestCallLogUi::initTestCase()
{
    QVERIFY(configDir().isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("McpScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_calllogui"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, configDir().path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, configDir().path());
    QVERIFY2(QFile::exists(test::everythingScript()), qPrintable(test::everythingScript()));
}

void TestCallLogUi::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    qputenv("MCPSCOPE_LOG_DIR", QFile::encodeName(m_scratch->filePath(QStringLiteral("logs"))));
    m_window = std::make_unique<MainWindow>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_window->callsView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
}

void TestCallLogUi::cleanup()
{
    m_tester.reset();
    m_window.reset();
    test::closeLogViewers();
    m_scratch.reset();
}

QJsonObject TestCallLogUi::stdioServer() const
{
    return { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("command"), test::nodeBinary() },
        { QStringLiteral("args"), QJsonArray { test::everythingScript(), QStringLiteral("stdio") } } };
}

bool TestCallLogUi::startWith(const QString& name, const QJsonObject& server)
{
    const QJsonObject workspace { { QStringLiteral("mcpscopeWorkspace"), 1 },
        { QStringLiteral("servers"), QJsonObject { { name, server } } } };
    QFile file(workspacePath());
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(QJsonDocument(workspace).toJson());
    file.close();
    if (!m_window->openWorkspace(file.fileName()))
        return false;
    ServerConnection* c = m_window->engine()->connection(name);
    if (!c)
        return false;
    c->connectToServer();
    return QTest::qWaitFor(
        [c] { return c->state() == ServerConnection::State::Ready && c->session() && c->session()->toolsListed(); },
        40000);
}

CallRecord TestCallLogUi::call(const QString& server, const QString& tool, const QJsonObject& arguments)
{
    std::optional<CallRecord> finished;
    ServerConnection* c = m_window->engine()->connection(server);
    if (!c)
        return {};
    c->callTool(tool, arguments, {}, [&finished](const CallRecord& record) { finished = record; });
    if (!QTest::qWaitFor([&finished] { return finished.has_value(); }, 20000))
        return {};
    return *finished;
}

bool TestCallLogUi::runExport(mcpscope::CallsExporter* exporter, ExportRequest::Format format, CallsPanel::Scope scope,
    const QString& path, QString* message)
{
    QSignalSpy finished(exporter, &mcpscope::CallsExporter::finished);
    exporter->start(format, scope, path);
    if (finished.isEmpty() && !finished.wait(60000))
        return false;
    if (message)
        *message = finished.first().at(2).toString();
    return finished.first().at(0).toBool();
}

void TestCallLogUi::callsSurviveARestartWithTheirDetails()
{
    const QString name = QStringLiteral("everything-stdio");
    QVERIFY(startWith(name, stdioServer()));
    QStringList ids;
    for (int i = 1; i <= 3; ++i) {
        const CallRecord record = call(
            name, QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("persist-%1").arg(i) } });
        QCOMPARE(record.outcome, CallOutcome::Success);
        ids.append(record.callId);
    }
    // echo without its required message: a tool error, which must come back as one too.
    const CallRecord failed = call(name, QStringLiteral("echo"), {});
    QCOMPARE(failed.outcome, CallOutcome::ToolError);
    ids.append(failed.callId);
    QVERIFY(flushAndWait(*m_window->logStore()));
    QTRY_VERIFY(m_window->logStatusText().contains(QStringLiteral("4 call")));
    const QString storePath = m_window->logStore()->path();
    QVERIFY2(storePath.startsWith(m_scratch->filePath(QStringLiteral("logs"))), qPrintable(storePath));

    // Restart: a new window on the same workspace, no server connected.
    m_tester.reset();
    m_window = std::make_unique<MainWindow>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_window->callsView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(m_window->openWorkspace(workspacePath()));
    QAbstractItemModel* calls = m_window->callsView()->model();
    // The history is read on the log store's reader thread.
    QTRY_COMPARE(calls->rowCount(), 4);
    for (int row = 0; row < 4; ++row)
        QCOMPARE(calls->index(row, 0).data(CallsModelRole::CallIdRole).toString(), ids.at(row));
    QCOMPARE(calls->index(3, 0).data(CallsModelRole::OutcomeRole).toInt(), int(CallOutcome::ToolError));
    QCOMPARE(calls->index(0, 0).data(CallsModelRole::ToolRole).toString(), QStringLiteral("echo"));

    // Details load from the database when a row becomes current: the timeline and the stdio lines.
    m_window->selectCall(ids.at(1));
    QTRY_VERIFY(m_window->timeline()->plainTimeline().contains(QStringLiteral("persist-2")));
    const QString timeline = m_window->timeline()->plainTimeline();
    QVERIFY2(timeline.contains(QStringLiteral("Echo: persist-2")), qPrintable(timeline));
    QTRY_VERIFY(m_window->logStatusText().contains(QStringLiteral("4 call")));
}

void TestCallLogUi::csvMatchesTheVisibleFilter()
{
    const QString name = QStringLiteral("everything-stdio");
    QVERIFY(startWith(name, stdioServer()));
    for (int i = 0; i < 3; ++i)
        QCOMPARE(
            call(name, QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("m%1").arg(i) } }).outcome,
            CallOutcome::Success);
    QCOMPARE(call(name, QStringLiteral("echo"), {}).outcome, CallOutcome::ToolError);
    QCOMPARE(call(name, QStringLiteral("get-sum"), { { QStringLiteral("a"), 2 }, { QStringLiteral("b"), 3 } }).outcome,
        CallOutcome::Success);

    CallsPanel* panel = m_window->callsPanel();
    QAbstractItemModel* shown = m_window->callsView()->model();
    QTRY_COMPARE(shown->rowCount(), 5);

    struct Case
    {
        QString text;
        QString tool;
        std::optional<CallOutcome> outcome;
        int rows;
    };
    const Case cases[] = { { {}, {}, CallOutcome::ToolError, 1 }, { {}, QStringLiteral("echo"), std::nullopt, 4 },
        { QStringLiteral("sum"), {}, std::nullopt, 1 }, { {}, {}, std::nullopt, 5 } };
    for (const Case& c : cases) {
        panel->setFilter(c.text, {}, c.tool, c.outcome);
        QCOMPARE(shown->rowCount(), c.rows);
        const QString path = m_scratch->filePath(QStringLiteral("calls.csv"));
        QString message;
        QVERIFY2(
            runExport(m_window->exporter(), ExportRequest::Format::Csv, CallsPanel::Scope::Visible, path, &message),
            qPrintable(message));
        const QList<QByteArray> lines = readAll(path).split('\n');
        // Header, one line per visible row, and the empty string after the last CRLF.
        QCOMPARE(lines.size(), c.rows + 2);
        QCOMPARE(lines.first(), QByteArray("time,server,tool,duration_ms,attempts,rule,outcome,call_id\r"));
        for (int row = 0; row < c.rows; ++row) {
            const QModelIndex index = shown->index(row, 0);
            const QList<QByteArray> fields = lines.at(row + 1).chopped(1).split(',');
            QCOMPARE(fields.size(), 8);
            QCOMPARE(QString::fromUtf8(fields.at(1)), index.data(CallsModelRole::ServerRole).toString());
            QCOMPARE(QString::fromUtf8(fields.at(2)), index.data(CallsModelRole::ToolRole).toString());
            QCOMPARE(fields.at(3).toLongLong(), index.data(CallsModelRole::DurationRole).toLongLong());
            QCOMPARE(fields.at(4).toInt(), index.data(CallsModelRole::AttemptsRole).toInt());
            QCOMPARE(QString::fromUtf8(fields.at(6)),
                mcpscope::outcomeName(CallOutcome(index.data(CallsModelRole::OutcomeRole).toInt())));
            QCOMPARE(QString::fromUtf8(fields.at(7)), index.data(CallsModelRole::CallIdRole).toString());
        }
    }
}

void TestCallLogUi::selectionExportsAsJsonlAndReopensReadOnly()
{
    const QString name = QStringLiteral("everything-stdio");
    QVERIFY(startWith(name, stdioServer()));
    QList<CallRecord> made;
    for (int i = 0; i < 4; ++i)
        made.append(
            call(name, QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("sel-%1").arg(i) } }));
    QAbstractItemModel* shown = m_window->callsView()->model();
    QTRY_COMPARE(shown->rowCount(), 4);

    // Select rows 1 and 3 (Ctrl+click style).
    QItemSelectionModel* selection = m_window->callsView()->selectionModel();
    selection->clearSelection();
    for (int row : { 1, 3 })
        selection->select(shown->index(row, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(m_window->callsPanel()->selectedCount(), 2);

    const QString path = m_scratch->filePath(QStringLiteral("selected.jsonl"));
    QString message;
    QVERIFY2(
        runExport(m_window->exporter(), ExportRequest::Format::Jsonl, CallsPanel::Scope::Selection, path, &message),
        qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("2 call")), qPrintable(message));
    const mcpscope::CallLogReadResult read = mcpscope::CallLogReader::read(path);
    QVERIFY2(read.ok, qPrintable(read.error));
    QCOMPARE(read.records.size(), 2);
    QCOMPARE(read.records.at(0).callId, made.at(1).callId);
    QCOMPARE(read.records.at(1).callId, made.at(3).callId);
    // The exported record is the stored one, byte for byte as JSON, wire exchange included.
    const auto stored = readRecord(*m_window->logStore(), made.at(3).callId);
    QVERIFY(stored);
    QCOMPARE(read.records.at(1).toJson(), stored->toJson());
    QVERIFY(!read.records.at(1).attempts.isEmpty());
    QVERIFY(!read.records.at(1).attempts.first().exchange.stdio.isEmpty());

    // File › Open Call Log: the export, read-only, in the same calls view.
    QSignalSpy opened(m_window.get(), &MainWindow::logOpened);
    m_window->openLogFile(path);
    QVERIFY(opened.wait(20000));
    auto* viewer = opened.first().at(0).value<LogViewerWindow*>();
    QVERIFY(viewer);
    QAbstractItemModelTester tester(
        viewer->panel()->view()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(viewer->panel()->view()->model()->rowCount(), 2);
    QVERIFY(viewer->problemsText().isEmpty());
    viewer->panel()->selectCall(made.at(1).callId);
    const QString timeline = viewer->panel()->timeline()->plainTimeline();
    QVERIFY2(timeline.contains(QStringLiteral("sel-1")), qPrintable(timeline));
}

void TestCallLogUi::harOfAnHttpServerIsValidAndRedacted()
{
    const QString name = QStringLiteral("everything-http");
    const quint16 port = test::freePort();
    QVERIFY(port != 0);
    const QJsonObject server { { QStringLiteral("transport"), QStringLiteral("http") },
        { QStringLiteral("url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port) },
        { QStringLiteral("headers"),
            QJsonObject { { QStringLiteral("Authorization"),
                QString(QStringLiteral("Bearer ") + QString::fromLatin1(PlantedToken)) } } },
        { QStringLiteral("launchCommand"),
            QStringLiteral("env PORT=%1 %2 %3 streamableHttp")
                .arg(port)
                .arg(test::nodeBinary(), test::everythingScript()) } };
    QVERIFY(startWith(name, server));
    for (int i = 0; i < 2; ++i)
        QCOMPARE(call(name, QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("har-%1").arg(i) } })
                     .outcome,
            CallOutcome::Success);
    QTRY_COMPARE(m_window->callsView()->model()->rowCount(), 2);

    const QString har = m_scratch->filePath(QStringLiteral("calls.har"));
    QString message;
    QVERIFY2(runExport(m_window->exporter(), ExportRequest::Format::Har, CallsPanel::Scope::Visible, har, &message),
        qPrintable(message));
    const QJsonObject log = QJsonDocument::fromJson(readAll(har)).object().value(QLatin1String("log")).toObject();
    QCOMPARE(log.value(QLatin1String("version")).toString(), QStringLiteral("1.2"));
    const QJsonArray entries = log.value(QLatin1String("entries")).toArray();
    QCOMPARE(entries.size(), 2); // one POST per call, first try
    for (const QJsonValue& entry : entries) {
        const QJsonObject request = entry.toObject().value(QLatin1String("request")).toObject();
        QCOMPARE(request.value(QLatin1String("method")).toString(), QStringLiteral("POST"));
        QCOMPARE(request.value(QLatin1String("url")).toString(), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
        QVERIFY(request.value(QLatin1String("postData"))
                    .toObject()
                    .value(QLatin1String("text"))
                    .toString()
                    .contains(QStringLiteral("tools/call")));
        QCOMPARE(
            entry.toObject().value(QLatin1String("response")).toObject().value(QLatin1String("status")).toInt(), 200);
    }
    // The HAR 1.2 schema (npm har-schema), checked by the validator the peers package ships.
    QProcess validate;
    validate.setWorkingDirectory(test::peersDir());
    validate.start(test::nodeBinary(), { test::peersDir() + QStringLiteral("/validate-har.mjs"), har });
    QVERIFY(validate.waitForFinished(30000));
    QVERIFY2(validate.exitCode() == 0, validate.readAllStandardError().constData());

    // The planted Authorization header is in no export and in no file of the log store.
    const QString jsonl = m_scratch->filePath(QStringLiteral("calls.jsonl"));
    QVERIFY(runExport(m_window->exporter(), ExportRequest::Format::Jsonl, CallsPanel::Scope::Visible, jsonl));
    QVERIFY(readAll(jsonl).contains("Authorization"));
    // Each attempt says when its answer began to arrive: the HTTP response's first byte.
    const mcpscope::CallLogReadResult exported = mcpscope::CallLogReader::read(jsonl);
    QCOMPARE(exported.records.size(), 2);
    for (const CallRecord& record : exported.records) {
        QCOMPARE(record.attempts.size(), 1);
        const mcpscope::CallAttempt& a = record.attempts.first();
        QCOMPARE(a.exchange.http.size(), 1);
        QCOMPARE(a.firstByteAt, a.exchange.http.first().firstByteAt);
        QVERIFY(a.firstByteAt >= a.sentAt && a.firstByteAt <= a.endedAt);
    }
    const QString csv = m_scratch->filePath(QStringLiteral("calls.csv"));
    QVERIFY(runExport(m_window->exporter(), ExportRequest::Format::Csv, CallsPanel::Scope::Visible, csv));
    QVERIFY(flushAndWait(*m_window->logStore()));
    QStringList files { har, jsonl, csv };
    const QDir logs(m_scratch->filePath(QStringLiteral("logs")));
    for (const QString& file : logs.entryList(QDir::Files))
        files.append(logs.filePath(file));
    QVERIFY(files.size() >= 4);
    for (const QString& file : std::as_const(files))
        QVERIFY2(!readAll(file).contains(PlantedToken), qPrintable(file));
}

void TestCallLogUi::openLogShowsEveryCompleteRecord()
{
    QByteArray bytes;
    for (int i = 0; i < 5; ++i)
        bytes += jsonLine(syntheticRecord(i));
    bytes += "{\"callId\":\"synthetic-cut\",\"schema\":1,\"server\":\"al"; // cut off mid-line
    const QString path = m_scratch->filePath(QStringLiteral("truncated.jsonl"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();

    QSignalSpy opened(m_window.get(), &MainWindow::logOpened);
    m_window->openLogFile(path);
    QVERIFY(opened.wait(20000));
    auto* viewer = opened.first().at(0).value<LogViewerWindow*>();
    QVERIFY(viewer);
    QCOMPARE(viewer->recordCount(), 5);
    QCOMPARE(viewer->panel()->view()->model()->rowCount(), 5);
    QVERIFY2(viewer->problemsText().contains(QStringLiteral("truncated.jsonl:6: truncated last line")),
        qPrintable(viewer->problemsText()));
    QVERIFY(viewer->windowTitle().contains(QStringLiteral("read-only")));
    // The same filters as the live view.
    viewer->panel()->setFilter({}, QStringLiteral("alpha"), {}, std::nullopt);
    QCOMPARE(viewer->panel()->view()->model()->rowCount(), 2);
    viewer->panel()->setFilter({}, {}, {}, CallOutcome::ToolError);
    QCOMPARE(viewer->panel()->view()->model()->rowCount(), 1);
}

void TestCallLogUi::badLogFilesAreNamedAndNothingOpens()
{
    struct Case
    {
        const char* name;
        QByteArray bytes;
        const char* expected;
    };
    QJsonObject newer = syntheticRecord(1).toJson();
    newer.insert(QStringLiteral("schema"), 99);
    const Case cases[] = {
        { "notes.jsonl", "hello\nthis is not a log\n", "is not a McpScope call log" },
        { "newer.jsonl", QJsonDocument(newer).toJson(QJsonDocument::Compact) + '\n', "newer than this McpScope" },
        { "missing.jsonl", {}, "cannot read" },
    };
    for (const Case& c : cases) {
        const QString path = m_scratch->filePath(QString::fromLatin1(c.name));
        if (!c.bytes.isEmpty()) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(c.bytes);
        }
        QSignalSpy failed(m_window.get(), &MainWindow::logOpenFailed);
        QSignalSpy opened(m_window.get(), &MainWindow::logOpened);
        m_window->openLogFile(path);
        QVERIFY2(failed.wait(20000), c.name);
        QCOMPARE(opened.size(), 0);
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains(QString::fromLatin1(c.name)), qPrintable(message));
        QVERIFY2(message.contains(QString::fromLatin1(c.expected)), qPrintable(message));
    }
}

void TestCallLogUi::unusableLogStoreKeepsCallsInMemory()
{
    // Where the workspace's log database should be, a file that is not a database.
    const QString storePath = WorkspaceSession::logStorePathFor(workspacePath());
    QVERIFY(QDir().mkpath(QFileInfo(storePath).absolutePath()));
    {
        QFile garbage(storePath);
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write(QByteArray(8192, 'x'));
    }
    const QString name = QStringLiteral("everything-stdio");
    QVERIFY(startWith(name, stdioServer()));
    QVERIFY(!m_window->logStore()->isOpen());
    QVERIFY2(m_window->logStatusText().contains(QStringLiteral("in memory")), qPrintable(m_window->logStatusText()));
    auto* status = m_window->findChild<QLabel*>(QStringLiteral("logStatus"));
    QVERIFY(status);
    QVERIFY2(status->toolTip().contains(QFileInfo(storePath).fileName()), qPrintable(status->toolTip()));

    // Calls still work, show their details and export.
    const CallRecord record
        = call(name, QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("kept-in-memory") } });
    QCOMPARE(record.outcome, CallOutcome::Success);
    m_window->selectCall(record.callId);
    QVERIFY(m_window->timeline()->plainTimeline().contains(QStringLiteral("kept-in-memory")));
    const QString path = m_scratch->filePath(QStringLiteral("memory.jsonl"));
    QVERIFY(runExport(m_window->exporter(), ExportRequest::Format::Jsonl, CallsPanel::Scope::Visible, path));
    const mcpscope::CallLogReadResult read = mcpscope::CallLogReader::read(path);
    QCOMPARE(read.records.size(), 1);
    QCOMPARE(read.records.first().callId, record.callId);
    // The garbage was not overwritten.
    QCOMPARE(readAll(storePath), QByteArray(8192, 'x'));
}

void TestCallLogUi::exportJobReportsProgressAndCancels()
{
    ExportRequest request;
    for (int i = 0; i < 20000; ++i)
        request.records.append(syntheticRecord(i));
    request.path = m_scratch->filePath(QStringLiteral("big.jsonl"));
    {
        ExportJob job(request);
        QSignalSpy finished(&job, &ExportJob::finished);
        QSignalSpy progress(&job, &ExportJob::progress);
        job.start();
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
        QCOMPARE(finished.first().at(1).toInt(), 20000);
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toLongLong(), 20000);
        QCOMPARE(progress.last().at(1).toLongLong(), 20000);
        QCOMPARE(mcpscope::CallLogReader::read(request.path).records.size(), 20000);
    }
    // A cancelled export writes nothing and leaves the older file as it was.
    const QByteArray before = readAll(request.path);
    {
        ExportJob job(request);
        QSignalSpy finished(&job, &ExportJob::finished);
        job.cancel();
        job.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QVERIFY2(finished.first().at(2).toString().contains(QStringLiteral("cancelled")),
            qPrintable(finished.first().at(2).toString()));
    }
    QCOMPARE(readAll(request.path), before);
    // A job destroyed while it runs does not wait for its worker: the worker stops, writes nothing, and
    // nothing of the job arrives after it is gone.
    {
        ExportRequest abandoned = request;
        abandoned.path = m_scratch->filePath(QStringLiteral("abandoned.jsonl"));
        auto job = std::make_unique<ExportJob>(abandoned);
        job->start();
        QVERIFY(job->isRunning());
        job.reset();
        QThreadPool::globalInstance()->waitForDone();
        QVERIFY(!QFile::exists(abandoned.path));
    }
    // A folder that does not exist: a message naming the file, nothing written.
    request.path = m_scratch->filePath(QStringLiteral("no/such/folder/out.jsonl"));
    ExportJob job(request);
    QSignalSpy finished(&job, &ExportJob::finished);
    job.start();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY2(finished.first().at(2).toString().contains(request.path), qPrintable(finished.first().at(2).toString()));
    QVERIFY(!QFile::exists(request.path));
}

QTEST_MAIN(TestCallLogUi)
#include "tst_calllogui.moc"
