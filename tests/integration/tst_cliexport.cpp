// Runs the real mcpscope-cli export on call logs written by the test.

#include "calllog/callrecord.h"
#include "config/workspace.h"
#include "peerprocess.h"
#include "plantedtokens.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace mcpscope;
using mcpscope::test::runCli;

namespace {

/// Record i: server alpha/beta by parity, tool echo/add by i%3 != 0, outcome success or timeout by i%4.
CallRecord makeRecord(int i)
{
    CallRecord r;
    r.callId = QStringLiteral("call-%1").arg(i);
    r.server = i % 2 ? QStringLiteral("beta") : QStringLiteral("alpha");
    r.transport = QStringLiteral("http");
    r.method = QStringLiteral("tools/call");
    r.tool = i % 3 ? QStringLiteral("echo") : QStringLiteral("add");
    r.startedAt = 1764400000000 + i;
    r.endedAt = r.startedAt + 5;
    CallAttempt attempt;
    attempt.requestId = QString::number(i);
    attempt.sentAt = r.startedAt;
    attempt.endedAt = r.endedAt;
    attempt.written = true;
    if (i == 7)
        attempt.error = QStringLiteral("401 with Authorization: Bearer sekret-token-123");
    r.attempts.append(attempt);
    r.outcome = i % 4 ? CallOutcome::Success : CallOutcome::Timeout;
    return r;
}

/// A log of one record, written as an older McpScope wrote it (unredacted).
bool writeLog(const QString& path, const CallRecord& record)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly)
        && file.write(QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n') > 0;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestCliExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_log = m_dir.filePath(QStringLiteral("calls.jsonl"));
        QFile file(m_log);
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (int i = 0; i < 20; ++i)
            file.write(QJsonDocument(makeRecord(i).toJson()).toJson(QJsonDocument::Compact) + '\n');
        file.write("not json at all\n");
    }

    void exportJsonl_data()
    {
        QTest::addColumn<QStringList>("filters");
        QTest::addColumn<int>("expected");
        QTest::newRow("all") << QStringList {} << 20;
        QTest::newRow("server") << QStringList { QStringLiteral("--server"), QStringLiteral("beta") } << 10;
        // echo: i%3 != 0 -> 13 of 20
        QTest::newRow("tool") << QStringList { QStringLiteral("--tool"), QStringLiteral("echo") } << 13;
        QTest::newRow("outcome") << QStringList { QStringLiteral("--outcome"), QStringLiteral("timeout") } << 5;
        QTest::newRow("two outcomes") << QStringList { QStringLiteral("--outcome"), QStringLiteral("timeout"),
            QStringLiteral("--outcome"), QStringLiteral("success") }
                                      << 20;
        // alpha (even) and add (i%3==0): 0, 6, 12, 18
        QTest::newRow("server and tool") << QStringList { QStringLiteral("--server"), QStringLiteral("alpha"),
            QStringLiteral("--tool"), QStringLiteral("add") }
                                         << 4;
        QTest::newRow("text") << QStringList { QStringLiteral("--text"), QStringLiteral("CALL-1") } << 11;
    }

    void exportJsonl()
    {
        QFETCH(QStringList, filters);
        QFETCH(int, expected);
        const QString out = m_dir.filePath(QStringLiteral("out.jsonl"));
        const auto run = runCli(QStringList { QStringLiteral("export"), m_log, QStringLiteral("--format"),
                                    QStringLiteral("jsonl"), QStringLiteral("--out"), out }
            + filters);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.contains("calls.jsonl:21: not JSON"), run.err.constData());
        QVERIFY2(run.err.contains(QStringLiteral("exported %1 of 20 call(s) to %2").arg(expected).arg(out).toUtf8()),
            run.err.constData());
        const QByteArray bytes = readAll(out);
        QCOMPARE(bytes.count('\n'), expected);
        QVERIFY(!bytes.contains("sekret-token-123"));
    }

    void exportCsv()
    {
        const QString out = m_dir.filePath(QStringLiteral("out.csv"));
        const auto run = runCli({ QStringLiteral("export"), m_log, QStringLiteral("--format"), QStringLiteral("csv"),
            QStringLiteral("--out"), out, QStringLiteral("--server"), QStringLiteral("alpha"),
            QStringLiteral("--outcome"), QStringLiteral("timeout") });
        QVERIFY2(run.exitCode == 0, run.err.constData());
        // alpha and timeout: i%4==0 -> 0, 4, 8, 12, 16
        const QList<QByteArray> lines = readAll(out).split('\n');
        QCOMPARE(lines.size(), 1 + 5 + 1); // header, 5 rows, the empty rest after the last CRLF
        QCOMPARE(lines.first(), QByteArray("time,server,tool,duration_ms,attempts,rule,outcome,call_id\r"));
        QCOMPARE(lines.at(1), QByteArray("2025-11-29T07:06:40.000Z,alpha,add,5,1,,timeout,call-0\r"));
        QCOMPARE(lines.at(5), QByteArray("2025-11-29T07:06:40.016Z,alpha,echo,5,1,,timeout,call-16\r"));
    }

    void exportHarWithoutExchanges()
    {
        // Records logged before wire exchanges were kept have no HTTP requests: a valid, empty HAR.
        const QString out = m_dir.filePath(QStringLiteral("out.har"));
        const auto run = runCli({ QStringLiteral("export"), m_log, QStringLiteral("--format"), QStringLiteral("har"),
            QStringLiteral("--out"), out });
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.contains("exported 20 of 20 call(s)"), run.err.constData());
        QVERIFY2(run.err.contains("(0 HTTP request(s))"), run.err.constData());
        const QJsonObject log = QJsonDocument::fromJson(readAll(out)).object().value(QLatin1String("log")).toObject();
        QCOMPARE(log.value(QLatin1String("version")).toString(), QStringLiteral("1.2"));
        QVERIFY(log.value(QLatin1String("entries")).isArray());
        QCOMPARE(log.value(QLatin1String("entries")).toArray().size(), 0);
    }

    void oldLogSecretValuesScrubbedWithConfig()
    {
        // A log written before the value redactor existed: record 3's error and result hold a secretEnv
        // value, the bearer token and the URL password in plain text. The record is built here and
        // written as such a McpScope wrote it (unredacted); no real server is needed for an old file.
        const QString envSecret = QStringLiteral("env-planted-4711-value");
        const QString token = QStringLiteral("tok-planted-0815-bearer");
        const QString password = QStringLiteral("pw-planted-9999");
        CallRecord r = makeRecord(3);
        r.server = QStringLiteral("alpha");
        r.attempts.first().error
            = QStringLiteral("403: token %1 rejected, env %2, url pass %3").arg(token, envSecret, password);
        QJsonObject result;
        result.insert(QStringLiteral("echo"), QString(envSecret + QLatin1Char(' ') + token));
        r.result = result;
        const QString oldLog = m_dir.filePath(QStringLiteral("old.jsonl"));
        QVERIFY(writeLog(oldLog, r));

        Workspace workspace;
        ServerConfig alpha;
        alpha.name = QStringLiteral("alpha");
        alpha.transport = TransportKind::Stdio;
        alpha.command = QStringLiteral("node");
        alpha.env.insert(QStringLiteral("PLANTED"), envSecret);
        alpha.secretEnv = { QStringLiteral("PLANTED") };
        ServerConfig beta;
        beta.name = QStringLiteral("beta");
        beta.transport = TransportKind::AutoHttp;
        beta.url = QUrl(QStringLiteral("http://user:%1@127.0.0.1:9/mcp").arg(password));
        beta.headers.append({ QStringLiteral("Authorization"), QStringLiteral("Bearer ") + token });
        workspace.servers = { alpha, beta };
        const QString config = m_dir.filePath(QStringLiteral("old-workspace.json"));
        QString error;
        QVERIFY2(workspace.save(config, &error), qPrintable(error));

        for (const QString& format : { QStringLiteral("jsonl"), QStringLiteral("har"), QStringLiteral("csv") }) {
            const QString out = m_dir.filePath(QStringLiteral("old-out.") + format);
            const auto run = runCli({ QStringLiteral("export"), oldLog, QStringLiteral("--format"), format,
                QStringLiteral("--out"), out, QStringLiteral("--config"), config });
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QByteArray written = readAll(out) + run.out + run.err;
            for (const QString& secret : { envSecret, token, password })
                QVERIFY2(!written.contains(secret.toUtf8()), qPrintable(format + QLatin1String(": ") + secret));
            if (format == QLatin1String("jsonl"))
                QVERIFY2(written.contains("[redacted]"), written.constData());
        }
        // Without the workspace the old file's values are not known: the test can fail.
        const QString out = m_dir.filePath(QStringLiteral("old-bare.jsonl"));
        const auto bare = runCli({ QStringLiteral("export"), oldLog, QStringLiteral("--format"),
            QStringLiteral("jsonl"), QStringLiteral("--out"), out });
        QCOMPARE(bare.exitCode, 0);
        QVERIFY(readAll(out).contains(envSecret.toUtf8()));
    }

    void oldLogTokensFromTheTokenStoreAreScrubbed()
    {
        // A log an older McpScope wrote: the server echoed its OAuth tokens and client secrets into a result
        // and an error, in plain text. The token store still keeps them (planted here as ServerAuth keeps
        // them), for the server the log's own attempt went to and for the same server in a workspace.
        const QUrl url(QStringLiteral("http://127.0.0.1:9/mcp-") + QUuid::createUuid().toString(QUuid::Id128));
        test::PlantedTokens planted;
        PLANT_TOKENS_OR_SKIP(planted, QStringLiteral("gamma"), url);
        CallRecord r = makeRecord(5);
        r.server = QStringLiteral("gamma");
        HttpExchange post;
        post.method = QStringLiteral("POST");
        post.url = url.toString();
        post.status = 403;
        r.attempts.first().exchange.http = { post };
        r.attempts.first().error
            = QStringLiteral("403 for %1 (refresh %2)").arg(planted.accessToken, planted.refreshToken);
        r.result = QJsonObject { { QStringLiteral("echo"), planted.all().join(QLatin1Char(' ')) } };
        const QString oldLog = m_dir.filePath(QStringLiteral("old-oauth.jsonl"));
        QVERIFY(writeLog(oldLog, r));
        Workspace workspace;
        ServerConfig gamma;
        gamma.name = QStringLiteral("gamma");
        gamma.transport = TransportKind::AutoHttp;
        gamma.url = url;
        workspace.servers = { gamma };
        const QString config = m_dir.filePath(QStringLiteral("oauth-workspace.json"));
        QString error;
        QVERIFY2(workspace.save(config, &error), qPrintable(error));

        const auto exportTo = [&](const QString& format, const QStringList& extra) {
            const QString out = m_dir.filePath(QStringLiteral("oauth-out.") + format);
            const auto run = runCli(QStringList { QStringLiteral("export"), oldLog, QStringLiteral("--format"), format,
                                        QStringLiteral("--out"), out }
                + extra);
            return std::pair { run.exitCode, QByteArray(readAll(out) + run.out + run.err) };
        };
        for (const QStringList& extra : { QStringList {}, QStringList { QStringLiteral("--config"), config } }) {
            for (const QString& format : { QStringLiteral("jsonl"), QStringLiteral("har"), QStringLiteral("csv") }) {
                const auto [exitCode, written] = exportTo(format, extra);
                QVERIFY2(exitCode == 0, written.constData());
                for (const QString& secret : planted.all())
                    QVERIFY2(!written.contains(secret.toUtf8()), qPrintable(format + QLatin1String(": ") + secret));
                if (format == QLatin1String("jsonl"))
                    QVERIFY2(written.contains("[redacted]"), written.constData());
            }
        }
        // Once the store forgot them, nothing names them any more: the test can fail.
        planted.remove();
        const auto [exitCode, written] = exportTo(QStringLiteral("jsonl"), {});
        QCOMPARE(exitCode, 0);
        QVERIFY(written.contains(planted.accessToken.toUtf8()));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("message");
        const QString out = QStringLiteral("/nonexistent-dir/out");
        QTest::newRow("no format") << QStringList { QStringLiteral("--out"), out } << QByteArray("--format");
        QTest::newRow("unknown format") << QStringList { QStringLiteral("--format"), QStringLiteral("xml"),
            QStringLiteral("--out"), out }
                                        << QByteArray("unknown format 'xml'");
        QTest::newRow("no out") << QStringList { QStringLiteral("--format"), QStringLiteral("csv") }
                                << QByteArray("--out");
        QTest::newRow("unknown outcome") << QStringList { QStringLiteral("--format"), QStringLiteral("csv"),
            QStringLiteral("--out"), out, QStringLiteral("--outcome"), QStringLiteral("great") }
                                         << QByteArray("unknown outcome 'great'");
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, message);
        const auto run = runCli(QStringList { QStringLiteral("export"), m_log } + args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), run.err.constData());
        const auto noLog = runCli({ QStringLiteral("export") });
        QCOMPARE(noLog.exitCode, 2);
    }

    void missingLog()
    {
        const QString missing = m_dir.filePath(QStringLiteral("missing.jsonl"));
        const auto run = runCli({ QStringLiteral("export"), missing, QStringLiteral("--format"),
            QStringLiteral("jsonl"), QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.jsonl")) });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(missing.toUtf8()), run.err.constData());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("x.jsonl"))));
    }

    void notALog()
    {
        const QString path = m_dir.filePath(QStringLiteral("settings.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"theme\": \"dark\"}\n");
        file.close();
        const auto run = runCli({ QStringLiteral("export"), path, QStringLiteral("--format"), QStringLiteral("csv"),
            QStringLiteral("--out"), m_dir.filePath(QStringLiteral("y.csv")) });
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("settings.json is not a McpScope call log"), run.err.constData());
        QVERIFY2(!run.err.contains("warning:"), run.err.constData());
    }

    void emptyLog()
    {
        // An empty log (what --log leaves before the first call ends) exports nothing, successfully.
        const QString path = m_dir.filePath(QStringLiteral("empty.jsonl"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QString out = m_dir.filePath(QStringLiteral("empty-out.jsonl"));
        const auto run = runCli({ QStringLiteral("export"), path, QStringLiteral("--format"), QStringLiteral("jsonl"),
            QStringLiteral("--out"), out });
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("holds no call records yet"), run.err.constData());
        QVERIFY2(run.err.contains("exported 0 of 0 call(s)"), run.err.constData());
        QVERIFY(QFile::exists(out));
        QCOMPARE(readAll(out), QByteArray());
    }

private:
    QTemporaryDir m_dir;
    QString m_log;
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cliexport.moc"
