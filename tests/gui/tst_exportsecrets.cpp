// The app's exports of calls written before a secret was known (issue 12). The stored or opened records
// hold the secrets in plain text, as an older McpScope wrote them; what the workspace knows now must
// still keep them out of every export:
// - the workspace's own call log (SQLite): a stored record that holds a known secret value is decoded and
//   redacted again on export (ExportJob), with the session's redactor, which knows the workspace's
//   secretEnv values and the OAuth tokens its token store keeps;
// - a JSONL log opened read-only: its export and its call details use the same session redactor, plus
//   what the token store keeps for the file's own HTTP servers.
// The tokens are planted in the real Secret Service (tests/support/plantedtokens.h); no server runs:
// nothing is connected, the records are written by the test.

#include "calllog/calllogfile.h"
#include "calllog/logstore.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "calls/timelineview.h"
#include "engine/engine.h"
#include "guienvironment.h"
#include "logviewers.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/workspacesession.h"
#include "plantedtokens.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace mcpscope;
using namespace Qt::StringLiterals;

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

namespace {

constexpr int WaitMs = 30000;

const QString EnvSecret = u"env-planted-2718-value"_s;

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// A finished call of server whose result and error carry text, as an older McpScope logged it.
CallRecord echoed(const QString& callId, const QString& server, const QUrl& url, const QString& text)
{
    CallRecord r;
    r.callId = callId;
    r.server = server;
    r.transport = url.isEmpty() ? u"stdio"_s : u"http"_s;
    r.method = u"tools/call"_s;
    r.tool = u"echo"_s;
    r.startedAt = QDateTime::currentMSecsSinceEpoch() - 60000;
    r.endedAt = r.startedAt + 5;
    CallAttempt attempt;
    attempt.requestId = u"1"_s;
    attempt.sentAt = r.startedAt;
    attempt.endedAt = r.endedAt;
    attempt.written = true;
    // The answer on the wire, which the call's details show under its timeline.
    const QByteArray answer = QJsonDocument(QJsonObject { { u"echo"_s, text } }).toJson(QJsonDocument::Compact);
    if (url.isEmpty()) {
        attempt.exchange.stdio = { StdioLine::make(r.endedAt, false, answer) };
    } else {
        HttpExchange post;
        post.method = u"POST"_s;
        post.url = url.toString();
        post.status = 200;
        post.setRequestBody(R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})");
        post.appendResponseBody(answer);
        attempt.exchange.http = { post };
    }
    attempt.error = u"the server said: "_s + text;
    r.attempts.append(attempt);
    r.result = QJsonObject { { u"content"_s,
        QJsonArray { QJsonObject { { u"type"_s, u"text"_s }, { u"text"_s, text } } } } };
    r.outcome = CallOutcome::ToolError;
    return r;
}

} // namespace

class TestExportSecrets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void storedRecordHoldingAKnownSecretIsRedactedAgain();
    void openedLogIsExportedWithTheSessionsSecrets();

private:
    /// Writes the workspace (an HTTP server at url, never connected, and a stdio server with a secretEnv
    /// value) and returns its path.
    QString writeWorkspace(const QUrl& url);
    bool runExport(CallsExporter* exporter, ExportRequest::Format format, const QString& path, QString* message);
    /// Exports every call of exporter in each format; the files' texts, by format name.
    QMap<QString, QByteArray> exportAll(CallsExporter* exporter);

    std::unique_ptr<QTemporaryDir> m_scratch;
    std::unique_ptr<MainWindow> m_window;
};

void TestExportSecrets::initTestCase()
{
    test::useScratchSettings(u"tst_exportsecrets"_s);
}

void TestExportSecrets::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    qputenv("MCPSCOPE_LOG_DIR", QFile::encodeName(m_scratch->filePath(u"logs"_s)));
}

void TestExportSecrets::cleanup()
{
    m_window.reset();
    test::closeLogViewers();
    m_scratch.reset();
}

QString TestExportSecrets::writeWorkspace(const QUrl& url)
{
    const QJsonObject servers { { u"remote"_s,
                                    QJsonObject { { u"transport"_s, u"http"_s }, { u"url"_s, url.toString() } } },
        { u"local"_s,
            QJsonObject { { u"transport"_s, u"stdio"_s }, { u"command"_s, u"node"_s },
                { u"env"_s, QJsonObject { { u"PLANTED"_s, EnvSecret } } },
                { u"secretEnv"_s, QJsonArray { u"PLANTED"_s } } } } };
    const QString path = m_scratch->filePath(u"workspace.json"_s);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(QJsonDocument(QJsonObject { { u"mcpscopeWorkspace"_s, 1 }, { u"servers"_s, servers } }).toJson());
    return path;
}

bool TestExportSecrets::runExport(
    CallsExporter* exporter, ExportRequest::Format format, const QString& path, QString* message)
{
    QSignalSpy finished(exporter, &CallsExporter::finished);
    exporter->start(format, CallsPanel::Scope::Visible, path);
    if (finished.isEmpty() && !finished.wait(WaitMs))
        return false;
    *message = finished.first().at(2).toString();
    return finished.first().at(0).toBool();
}

QMap<QString, QByteArray> TestExportSecrets::exportAll(CallsExporter* exporter)
{
    QMap<QString, QByteArray> written;
    for (const ExportRequest::Format format :
        { ExportRequest::Format::Jsonl, ExportRequest::Format::Har, ExportRequest::Format::Csv }) {
        const QString name = ExportRequest::formatName(format);
        const QString path = m_scratch->filePath(u"export"_s + ExportRequest::suffix(format));
        QString message;
        if (!runExport(exporter, format, path, &message))
            written.insert(name, u"export failed: %1"_s.arg(message).toUtf8());
        else
            written.insert(name, readAll(path) + message.toUtf8());
    }
    return written;
}

void TestExportSecrets::storedRecordHoldingAKnownSecretIsRedactedAgain()
{
    const QUrl url(u"http://127.0.0.1:9/mcp-"_s + QUuid::createUuid().toString(QUuid::Id128));
    test::PlantedTokens planted;
    PLANT_TOKENS_OR_SKIP(planted, u"remote"_s, url);
    const QString workspace = writeWorkspace(url);
    const QStringList secrets = planted.all() << EnvSecret;

    // The workspace's call log as a McpScope that knew none of these values left it.
    const QString storePath = WorkspaceSession::logStorePathFor(workspace);
    QVERIFY(QDir().mkpath(QFileInfo(storePath).absolutePath()));
    {
        LogStore old;
        QString error;
        QVERIFY2(old.open(storePath, &error), qPrintable(error));
        old.append(echoed(u"old-remote"_s, u"remote"_s, url, planted.all().join(u' ')));
        old.append(echoed(u"old-local"_s, u"local"_s, {}, EnvSecret));
    }
    QVERIFY(readAll(storePath).contains(planted.accessToken.toUtf8()));

    m_window = std::make_unique<MainWindow>();
    QVERIFY(m_window->openWorkspace(workspace));
    // The session learns the planted tokens from the token store (ServerAuth restores them).
    QTRY_VERIFY_WITH_TIMEOUT(m_window->engine()->redactor().containsSecretValue(planted.refreshToken.toUtf8()), WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->callsPanel()->callIds(CallsPanel::Scope::Visible).size(), 2, WaitMs);

    const QMap<QString, QByteArray> written = exportAll(m_window->exporter());
    for (auto it = written.cbegin(); it != written.cend(); ++it) {
        QVERIFY2(!it.value().startsWith("export failed"), it.value().constData());
        for (const QString& secret : secrets)
            QVERIFY2(!it.value().contains(secret.toUtf8()), qPrintable(it.key() + u": "_s + secret));
    }
    const CallLogReadResult jsonl = CallLogReader::read(m_scratch->filePath(u"export.jsonl"_s));
    QCOMPARE(jsonl.records.size(), 2);
    QVERIFY2(written.value(u"jsonl"_s).contains("[redacted]"), written.value(u"jsonl"_s).constData());
}

void TestExportSecrets::openedLogIsExportedWithTheSessionsSecrets()
{
    // The file's HTTP server is not in the workspace: only the token store knows its tokens.
    const QUrl faraway(u"http://127.0.0.1:9/faraway-"_s + QUuid::createUuid().toString(QUuid::Id128));
    test::PlantedTokens planted;
    PLANT_TOKENS_OR_SKIP(planted, u"faraway"_s, faraway);
    const QString workspace = writeWorkspace(QUrl(u"http://127.0.0.1:9/unused"_s));
    const QString logPath = m_scratch->filePath(u"old.jsonl"_s);
    {
        QFile file(logPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (const CallRecord& record : { echoed(u"old-faraway"_s, u"faraway"_s, faraway, planted.all().join(u' ')),
                 echoed(u"old-local"_s, u"local"_s, {}, EnvSecret) })
            file.write(QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n');
    }
    m_window = std::make_unique<MainWindow>();
    QVERIFY(m_window->openWorkspace(workspace));
    QSignalSpy opened(m_window.get(), &MainWindow::logOpened);
    m_window->openLogFile(logPath);
    QVERIFY(opened.wait(WaitMs));
    auto* viewer = opened.first().at(0).value<LogViewerWindow*>();
    QVERIFY(viewer);
    QTRY_VERIFY_WITH_TIMEOUT(viewer->redactor().containsSecretValue(planted.accessToken.toUtf8()), WaitMs);

    const QStringList secrets = planted.all() << EnvSecret;
    const QMap<QString, QByteArray> written = exportAll(viewer->exporter());
    for (auto it = written.cbegin(); it != written.cend(); ++it) {
        QVERIFY2(!it.value().startsWith("export failed"), it.value().constData());
        for (const QString& secret : secrets)
            QVERIFY2(!it.value().contains(secret.toUtf8()), qPrintable(it.key() + u": "_s + secret));
    }
    QVERIFY2(written.value(u"jsonl"_s).contains("[redacted]"), written.value(u"jsonl"_s).constData());

    // The call's details on screen too.
    for (const QString& callId : { u"old-faraway"_s, u"old-local"_s }) {
        viewer->panel()->selectCall(callId);
        const QString timeline = viewer->panel()->timeline()->plainTimeline();
        QTRY_VERIFY2_WITH_TIMEOUT(
            viewer->panel()->timeline()->plainTimeline().contains(u"[redacted]"_s), qPrintable(timeline), WaitMs);
        for (const QString& secret : secrets)
            QVERIFY2(
                !viewer->panel()->timeline()->plainTimeline().contains(secret), qPrintable(callId + u": "_s + secret));
    }
}

QTEST_MAIN(TestExportSecrets)
#include "tst_exportsecrets.moc"
