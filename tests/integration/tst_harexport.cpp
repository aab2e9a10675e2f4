// Real calls through mcpscope-cli against @modelcontextprotocol/server-everything, over Streamable
// HTTP and over stdio, logged with --log; then `export --format har` (validated against the HAR 1.2
// schema by tests/peers/validate-har.mjs) and `export --format jsonl`. The wire exchange of every
// attempt must be in the log, and a planted Authorization token nowhere in the log or the exports.

#include "calllog/callrecord.h"
#include "peerprocess.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {
const QByteArray Token = "planted-token-5f3a9c1e";
constexpr int Calls = 3;

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QList<CallRecord> readLog(const QString& path)
{
    QList<CallRecord> records;
    const QList<QByteArray> lines = readAll(path).split('\n');
    for (const QByteArray& line : lines) {
        if (!line.trimmed().isEmpty())
            records.append(CallRecord::fromJson(QJsonDocument::fromJson(line).object()));
    }
    return records;
}

/// "exit code: output" of validate-har.mjs on path.
QPair<int, QByteArray> validateHar(const QString& path)
{
    QProcess node;
    node.setWorkingDirectory(peersDir());
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(nodeBinary(), { QStringLiteral("validate-har.mjs"), path });
    if (!node.waitForFinished(60000))
        return { -1, "validate-har.mjs did not finish" };
    return { node.exitStatus() == QProcess::NormalExit ? node.exitCode() : -1, node.readAll() };
}

QString writeScript(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("calls.script"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("call echo {\"message\": \"one\"}\n"
               "call get-sum {\"a\": 2, \"b\": 3}\n"
               "call echo {\"message\": \"three\"}\n");
    return path;
}

QStringList exportArgs(const QString& log, const QString& format, const QString& out)
{
    return { QStringLiteral("export"), log, QStringLiteral("--format"), format, QStringLiteral("--out"), out };
}
} // namespace

class TestHarExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void httpCallsBecomeHarEntries_data();
    void httpCallsBecomeHarEntries();
    void retriedAttemptIsAnEntryOfItsOwn();
    void stdioCallsStayInTheJsonl();
    void stdioRequestWithoutAnswerKeepsItsLine();

private:
    QTemporaryDir m_dir;
    QString m_script;
};

void TestHarExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_script = writeScript(m_dir);
    QVERIFY(!m_script.isEmpty());
}

void TestHarExport::httpCallsBecomeHarEntries_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("transport");
    QTest::addColumn<int>("status");
    QTest::newRow("streamable http: the answer is the POST's response")
        << QStringLiteral("streamableHttp") << QStringLiteral("/mcp") << QStringLiteral("http") << 200;
    QTest::newRow("legacy sse: the POST is accepted, the answer comes on the event stream")
        << QStringLiteral("sse") << QStringLiteral("/sse") << QStringLiteral("sse") << 202;
}

void TestHarExport::httpCallsBecomeHarEntries()
{
    QFETCH(QString, mode);
    QFETCH(QString, path);
    QFETCH(QString, transport);
    QFETCH(int, status);
    const quint16 port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PORT"), QString::number(port));
    PeerProcess server;
    QVERIFY(server.start(everythingScript(), { mode }, QString::number(port), env));

    // server-everything ignores the Authorization header; McpScope must keep it out of every file.
    const QString log = m_dir.filePath(mode + QStringLiteral(".jsonl"));
    const CliRun run = runCli({ QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:%1").arg(port) + path,
        QStringLiteral("--transport"), transport, QStringLiteral("--header"),
        QStringLiteral("Authorization: Bearer ") + QString::fromLatin1(Token), QStringLiteral("--log"), log,
        QStringLiteral("run"), m_script });
    QVERIFY2(run.exitCode == 0, run.err.constData());

    // The log: every attempt carries its HTTP exchange, redacted.
    const QByteArray logBytes = readAll(log);
    QVERIFY2(!logBytes.contains(Token), logBytes.constData());
    const QList<CallRecord> records = readLog(log);
    QCOMPARE(records.size(), Calls);
    int httpRequests = 0;
    for (const CallRecord& record : records) {
        QCOMPARE(record.outcome, CallOutcome::Success);
        for (const CallAttempt& attempt : record.attempts) {
            QVERIFY2(!attempt.exchange.http.isEmpty(), qPrintable(record.callId));
            QVERIFY(attempt.exchange.stdio.isEmpty());
            const HttpExchange& post = attempt.exchange.http.first();
            QCOMPARE(post.method, QStringLiteral("POST"));
            // Legacy SSE: the answer may come on the event stream before the POST's 202 is read; the
            // exchange then honestly has no response.
            const bool answeredFirst = status == 202 && post.status == 0 && !post.answerOnStream.isEmpty();
            if (!answeredFirst)
                QCOMPARE(post.status, status);
            QVERIFY(post.startedAt >= attempt.sentAt);
            QVERIFY(post.endedAt >= post.startedAt);
            QVERIFY(post.requestBody.contains("\"method\":\"tools/call\""));
            const QByteArray id = "\"id\":" + attempt.requestId.toUtf8();
            QVERIFY(post.requestBody.contains(id));
            const QByteArray answer = status == 202 ? post.answerOnStream : post.responseBody;
            QVERIFY2(answer.contains(id), answer.constData());
            bool authorization = false;
            for (const auto& [name, value] : post.requestHeaders) {
                if (name.compare("Authorization", Qt::CaseInsensitive) == 0) {
                    authorization = true;
                    QCOMPARE(value, QByteArray("[redacted]"));
                }
            }
            QVERIFY(authorization);
            httpRequests += int(attempt.exchange.http.size());
        }
    }

    // HAR: one entry per HTTP request of every attempt, valid HAR 1.2.
    const QString har = m_dir.filePath(mode + QStringLiteral(".har"));
    const CliRun exported = runCli(exportArgs(log, QStringLiteral("har"), har));
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    QVERIFY2(exported.err.contains(QStringLiteral("(%1 HTTP request(s))").arg(httpRequests).toUtf8()),
        exported.err.constData());
    const auto [code, output] = validateHar(har);
    QVERIFY2(code == 0, output.constData());
    QVERIFY2(output.contains(QStringLiteral("valid: %1 entries").arg(httpRequests).toUtf8()), output.constData());
    const QByteArray harBytes = readAll(har);
    QVERIFY2(!harBytes.contains(Token), harBytes.constData());
    const QJsonArray entries = QJsonDocument::fromJson(harBytes)
                                   .object()
                                   .value(QLatin1String("log"))
                                   .toObject()
                                   .value(QLatin1String("entries"))
                                   .toArray();
    QCOMPARE(entries.size(), httpRequests);
    for (const QJsonValue& value : entries) {
        const QJsonObject entry = value.toObject();
        const QJsonObject request = entry.value(QLatin1String("request")).toObject();
        QCOMPARE(request.value(QLatin1String("method")).toString(), QStringLiteral("POST"));
        QVERIFY(request.value(QLatin1String("postData"))
                    .toObject()
                    .value(QLatin1String("text"))
                    .toString()
                    .contains(QLatin1String("\"method\":\"tools/call\"")));
        const int entryStatus
            = entry.value(QLatin1String("response")).toObject().value(QLatin1String("status")).toInt();
        QVERIFY2(
            entryStatus == status || (status == 202 && entryStatus == 0), qPrintable(QString::number(entryStatus)));
        QVERIFY(
            !entry.value(QLatin1String("_mcpscope")).toObject().value(QLatin1String("callId")).toString().isEmpty());
    }

    // JSONL export: the exchanges are kept, the token is not.
    const QString jsonl = m_dir.filePath(mode + QStringLiteral("-export.jsonl"));
    const CliRun exportedJsonl = runCli(exportArgs(log, QStringLiteral("jsonl"), jsonl));
    QVERIFY2(exportedJsonl.exitCode == 0, exportedJsonl.err.constData());
    const QByteArray jsonlBytes = readAll(jsonl);
    QVERIFY2(!jsonlBytes.contains(Token), jsonlBytes.constData());
    QCOMPARE(jsonlBytes.count("\"exchange\""), Calls);
}

void TestHarExport::retriedAttemptIsAnEntryOfItsOwn()
{
    const quint16 port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PORT"), QString::number(port));
    PeerProcess server;
    QVERIFY(server.start(everythingScript(), { QStringLiteral("streamableHttp") }, QString::number(port), env));
    const QString script = m_dir.filePath(QStringLiteral("expire.script"));
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    // echo is read-only: after the server forgets the session, the call heals and is sent again.
    file.write("call echo {\"message\": \"before\"}\nexpire server\ncall echo {\"message\": \"after\"}\n");
    file.close();

    const QString log = m_dir.filePath(QStringLiteral("expire.jsonl"));
    const CliRun run = runCli(
        { QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port), QStringLiteral("--transport"),
            QStringLiteral("http"), QStringLiteral("--log"), log, QStringLiteral("run"), script });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QList<CallRecord> records = readLog(log);
    QCOMPARE(records.size(), 2);
    const CallRecord& retried = records.last();
    QCOMPARE(retried.outcome, CallOutcome::Success);
    QCOMPARE(retried.attempts.size(), 2);
    const CallAttempt& expired = retried.attempts.first();
    QCOMPARE(expired.failureKind, std::optional<FailureKind>(FailureKind::SessionExpired));
    QCOMPARE(expired.exchange.http.size(), 1);
    const HttpExchange& refused = expired.exchange.http.first();
    QVERIFY2(refused.status == 404 || refused.status == 400, qPrintable(QString::number(refused.status)));
    QCOMPARE(refused.status, expired.httpStatus);
    QVERIFY(!refused.statusText.isEmpty());
    QCOMPARE(retried.attempts.last().exchange.http.size(), 1);
    QCOMPARE(retried.attempts.last().exchange.http.first().status, 200);
    // The two attempts went out on different sessions, each with its own request.
    QVERIFY(retried.attempts.first().sessionId != retried.attempts.last().sessionId);

    const QString har = m_dir.filePath(QStringLiteral("expire.har"));
    const CliRun exported = runCli(exportArgs(log, QStringLiteral("har"), har));
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    const auto [code, output] = validateHar(har);
    QVERIFY2(code == 0, output.constData());
    QVERIFY2(output.contains("valid: 3 entries"), output.constData());
    const QJsonArray entries = QJsonDocument::fromJson(readAll(har))
                                   .object()
                                   .value(QLatin1String("log"))
                                   .toObject()
                                   .value(QLatin1String("entries"))
                                   .toArray();
    QCOMPARE(entries.size(), 3);
    const QJsonObject failed = entries.at(1).toObject();
    QCOMPARE(failed.value(QLatin1String("response")).toObject().value(QLatin1String("status")).toInt(), refused.status);
    const QJsonObject custom = failed.value(QLatin1String("_mcpscope")).toObject();
    QCOMPARE(custom.value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(custom.value(QLatin1String("failureKind")).toString(), QStringLiteral("session_expired"));
    QCOMPARE(
        entries.at(2).toObject().value(QLatin1String("_mcpscope")).toObject().value(QLatin1String("attempt")).toInt(),
        2);
}

void TestHarExport::stdioCallsStayInTheJsonl()
{
    const QString log = m_dir.filePath(QStringLiteral("stdio.jsonl"));
    const QString command = u'"' + nodeBinary() + QStringLiteral("\" \"") + everythingScript() + u'"';
    const CliRun run
        = runCli({ QStringLiteral("--stdio"), command, QStringLiteral("--log"), log, QStringLiteral("run"), m_script });
    QVERIFY2(run.exitCode == 0, run.err.constData());

    const QList<CallRecord> records = readLog(log);
    QCOMPARE(records.size(), Calls);
    for (const CallRecord& record : records) {
        QCOMPARE(record.outcome, CallOutcome::Success);
        QCOMPARE(record.attempts.size(), 1);
        const WireExchange& exchange = record.attempts.first().exchange;
        QVERIFY(exchange.http.isEmpty());
        QCOMPARE(exchange.stdio.size(), 2);
        const StdioLine& out = exchange.stdio.at(0);
        const StdioLine& in = exchange.stdio.at(1);
        QVERIFY(out.outgoing);
        QVERIFY(!in.outgoing);
        QVERIFY(out.line.contains("\"method\":\"tools/call\""));
        QVERIFY(!out.line.endsWith('\n'));
        const QByteArray id = "\"id\":" + record.attempts.first().requestId.toUtf8();
        QVERIFY(out.line.contains(id));
        QVERIFY2(in.line.contains(id), in.line.constData());
        QVERIFY(in.line.contains("\"result\""));
        QVERIFY(in.at >= out.at);
        QVERIFY(out.at > 0);
    }

    // HAR has nothing to show for stdio: a valid document with no entries.
    const QString har = m_dir.filePath(QStringLiteral("stdio.har"));
    const CliRun exported = runCli(exportArgs(log, QStringLiteral("har"), har));
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    QVERIFY2(exported.err.contains("(0 HTTP request(s))"), exported.err.constData());
    const auto [code, output] = validateHar(har);
    QVERIFY2(code == 0, output.constData());
    QVERIFY2(output.contains("valid: 0 entries"), output.constData());

    // The JSONL export keeps the stdio lines.
    const QString jsonl = m_dir.filePath(QStringLiteral("stdio-export.jsonl"));
    const CliRun exportedJsonl = runCli(exportArgs(log, QStringLiteral("jsonl"), jsonl));
    QVERIFY2(exportedJsonl.exitCode == 0, exportedJsonl.err.constData());
    const QByteArray jsonlBytes = readAll(jsonl);
    QCOMPARE(jsonlBytes.count("\"direction\":\"out\""), Calls);
    QCOMPARE(jsonlBytes.count("\"direction\":\"in\""), Calls);
}

void TestHarExport::stdioRequestWithoutAnswerKeepsItsLine()
{
    const QString script = m_dir.filePath(QStringLiteral("kill.script"));
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    // The server dies right after the request is written: that line is all the attempt has. (The CLI
    // respawns it and sends the read-only echo once more, R4: the second attempt has its answer.)
    file.write("fault kill-after-write\ncall echo {\"message\": \"killed\"}\n");
    file.close();
    const QString log = m_dir.filePath(QStringLiteral("kill.jsonl"));
    const QString command = u'"' + nodeBinary() + QStringLiteral("\" \"") + everythingScript() + u'"';
    const CliRun run
        = runCli({ QStringLiteral("--stdio"), command, QStringLiteral("--log"), log, QStringLiteral("run"), script });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QList<CallRecord> records = readLog(log);
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().rule, QStringLiteral("R4"));
    QCOMPARE(records.first().attempts.size(), 2);
    QCOMPARE(records.first().attempts.last().exchange.stdio.size(), 2);
    const CallAttempt& killed = records.first().attempts.first();
    QVERIFY(killed.written);
    QCOMPARE(killed.signal, 9);
    QCOMPARE(killed.exchange.stdio.size(), 1);
    const StdioLine& line = killed.exchange.stdio.first();
    QVERIFY(line.outgoing);
    QVERIFY(line.line.contains("\"killed\""));
    const QByteArray id = "\"id\":" + killed.requestId.toUtf8();
    QVERIFY(line.line.contains(id));
}

QTEST_GUILESS_MAIN(TestHarExport)
#include "tst_harexport.moc"
