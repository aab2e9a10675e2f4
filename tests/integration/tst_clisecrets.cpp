// Plants secrets every way a caller hands them to a server (a bearer header, a secretEnv value, URL
// userinfo) against tests/peers/echo-secrets.mjs, which echoes them back in results, error results,
// JSON-RPC errors, HTTP 403 bodies, log notifications and stderr; then greps every output the real
// mcpscope-cli and a workspace's log store (SQLite and its WAL) produce for them, and the texts the
// app's traffic and calls views show.

#include "calllog/callrecordstore.h"
#include "calllog/logstore.h"
#include "config/workspace.h"
#include "engine/engine.h"
#include "models/callsmodel.h"
#include "models/trafficmodel.h"
#include "peerprocess.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using mcpscope::test::CliRun;
using mcpscope::test::PeerProcess;
using mcpscope::test::runCli;

namespace {

QString planted(const char* kind)
{
    return QStringLiteral("%1-%2").arg(QLatin1String(kind)).arg(QRandomGenerator::global()->generate64(), 0, 16);
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString script(const QTemporaryDir& dir, const QStringList& steps)
{
    const QString path = dir.filePath(QStringLiteral("steps.txt"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(steps.join(QLatin1Char('\n')).toUtf8() + '\n');
    return path;
}

} // namespace

class TestCliSecrets : public QObject
{
    Q_OBJECT

private:
    /// Every output of one CLI run and of its log exported to each format, by name.
    QList<QPair<QString, QByteArray>> cliOutputs(
        const QTemporaryDir& dir, const QStringList& selection, const QStringList& steps)
    {
        QList<QPair<QString, QByteArray>> outputs;
        const QString log = dir.filePath(QStringLiteral("calls.jsonl"));
        const CliRun run = runCli(
            selection + QStringList { QStringLiteral("--log"), log, QStringLiteral("run"), script(dir, steps) });
        outputs.append({ QStringLiteral("run stdout"), run.out });
        outputs.append({ QStringLiteral("run stderr"), run.err });
        outputs.append({ QStringLiteral("--log"), readAll(log) });
        for (const QString& format : { QStringLiteral("jsonl"), QStringLiteral("har"), QStringLiteral("csv") }) {
            const QString out = dir.filePath(QStringLiteral("export.") + format);
            const CliRun exported = runCli(
                { QStringLiteral("export"), log, QStringLiteral("--format"), format, QStringLiteral("--out"), out });
            outputs.append({ QStringLiteral("export %1 stderr").arg(format), exported.out + exported.err });
            outputs.append({ QStringLiteral("export.%1").arg(format), readAll(out) });
        }
        for (const QString& command : { QStringLiteral("info"), QStringLiteral("tools") }) {
            const CliRun other = runCli(selection + QStringList { command });
            outputs.append({ command, other.out + other.err });
        }
        const CliRun call = runCli(selection + QStringList { QStringLiteral("call"), QStringLiteral("echo") });
        outputs.append({ QStringLiteral("call"), call.out + call.err });
        return outputs;
    }

    static void verifyClean(const QList<QPair<QString, QByteArray>>& outputs, const QStringList& secrets)
    {
        QByteArray all;
        for (const auto& [name, bytes] : outputs) {
            all += bytes;
            for (const QString& secret : secrets)
                QVERIFY2(!bytes.contains(secret.toUtf8()),
                    qPrintable(QStringLiteral("%1 holds %2:\n%3").arg(name, secret, QString::fromUtf8(bytes))));
        }
        // The servers did echo: without the placeholder, a clean output would prove nothing.
        QVERIFY2(all.contains("[redacted]"), all.constData());
    }

private Q_SLOTS:
    void stdioSecretEnv()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString secret = planted("env");
        ServerConfig config;
        config.name = QStringLiteral("leaky");
        config.command = test::nodeBinary();
        config.args = { test::peersDir() + QStringLiteral("/echo-secrets.mjs"), QStringLiteral("stdio") };
        config.env.insert(QStringLiteral("PLANTED_SECRET"), secret);
        config.secretEnv = { QStringLiteral("PLANTED_SECRET") };
        Workspace workspace;
        workspace.servers.append(config);
        const QString path = dir.filePath(QStringLiteral("workspace.json"));
        QString error;
        QVERIFY2(workspace.save(path, &error), qPrintable(error));

        const auto outputs
            = cliOutputs(dir, { QStringLiteral("--server"), QStringLiteral("leaky"), QStringLiteral("--config"), path },
                { QStringLiteral("call echo {}"), QStringLiteral("call fail {}"), QStringLiteral("call throw {}") });
        verifyClean(outputs, { secret });
        // The log notification and the stderr line did arrive, redacted.
        QVERIFY(outputs.at(1).second.contains("log sees [redacted]"));
        QVERIFY(outputs.at(1).second.contains("stderr sees [redacted]"));
    }

    void httpBearerAndUserinfo()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString token = planted("token");
        const QString apiKey = planted("apikey");
        const QString password = planted("pass");
        PeerProcess peer;
        QVERIFY(peer.start(
            QStringLiteral("echo-secrets.mjs"), { QStringLiteral("http"), password }, QStringLiteral("listening on")));
        const QRegularExpressionMatch port
            = QRegularExpression(QStringLiteral("listening on (\\d+)")).match(QString::fromUtf8(peer.output()));
        QVERIFY(port.hasMatch());
        const QString url = QStringLiteral("http://someone:%1@127.0.0.1:%2/mcp").arg(password, port.captured(1));

        const auto outputs = cliOutputs(dir,
            { QStringLiteral("--url"), url, QStringLiteral("--header"),
                QStringLiteral("Authorization: Bearer ") + token, QStringLiteral("--secret-header"),
                QStringLiteral("X-Api-Key: ") + apiKey },
            { QStringLiteral("call echo {}"), QStringLiteral("call forbidden {}") });
        verifyClean(outputs, { token, apiKey, password, QStringLiteral("someone:") });
        // The server did receive the marked header: its own stderr (not an output of ours) shows the value.
        QTRY_VERIFY_WITH_TIMEOUT(peer.output().contains(apiKey.toUtf8()), 10000);
        QVERIFY(outputs.at(2).second.contains("403"));
    }

    void viewsShowRedactedText()
    {
        const QString secret = planted("env");
        ServerConfig config;
        config.name = QStringLiteral("leaky");
        config.command = test::nodeBinary();
        config.args = { test::peersDir() + QStringLiteral("/echo-secrets.mjs"), QStringLiteral("stdio") };
        config.env.insert(QStringLiteral("PLANTED_SECRET"), secret);
        config.secretEnv = { QStringLiteral("PLANTED_SECRET") };
        Engine engine;
        TrafficModel traffic;
        traffic.setEngine(&engine);
        CallsModel calls;
        calls.setEngine(&engine);
        CallRecordStore records;
        connect(&engine, &Engine::callUpdated, &records, &CallRecordStore::ingest);
        calls.setRecordLookup([&records](const QString& callId) { return records.record(callId); });
        ServerConnection* connection = engine.addServer(config);
        QSignalSpy ready(connection, &ServerConnection::ready);
        connection->connectToServer();
        QVERIFY(ready.wait(20000));
        int finished = 0;
        for (const QString& tool : { QStringLiteral("echo"), QStringLiteral("fail"), QStringLiteral("throw") })
            engine.call(config.name, QStringLiteral("tools/call"), { { QStringLiteral("name"), tool } }, {},
                [&finished](const CallRecord&) { ++finished; });
        QTRY_COMPARE_WITH_TIMEOUT(finished, 3, 20000);
        // The stderr line arrives on its own pipe: wait until the traffic view has shown it.
        const auto shownText = [](const QAbstractItemModel& model) {
            QByteArray text;
            for (int row = 0; row < model.rowCount(); ++row) {
                for (int column = 0; column < model.columnCount(); ++column) {
                    for (int role = 0; role < Qt::UserRole + 32; ++role) {
                        const QVariant value = model.data(model.index(row, column), role);
                        if (value.canConvert<QString>())
                            text += value.toString().toUtf8() + '\n';
                    }
                }
            }
            return text;
        };
        QTRY_VERIFY_WITH_TIMEOUT(shownText(traffic).contains("stderr sees [redacted]"), 20000);
        QVERIFY(shownText(traffic).contains("log sees [redacted]"));
        verifyClean({ { QStringLiteral("traffic view"), shownText(traffic) },
                        { QStringLiteral("calls view"), shownText(calls) } },
            { secret });
        // The result and timeline views show the full record the calls view looks up.
        calls.flush();
        QCOMPARE(calls.rowCount(), 3);
        for (int row = 0; row < calls.rowCount(); ++row) {
            const std::optional<CallRecord> record = calls.recordFor(row);
            QVERIFY(record);
            QVERIFY2(!record->toCompactJson().contains(secret.toUtf8()), qPrintable(record->tool));
        }
    }

    void logStoreAndWal()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString token = planted("token");
        const QString password = planted("pass");
        PeerProcess peer;
        QVERIFY(peer.start(
            QStringLiteral("echo-secrets.mjs"), { QStringLiteral("http"), password }, QStringLiteral("listening on")));
        const QRegularExpressionMatch port
            = QRegularExpression(QStringLiteral("listening on (\\d+)")).match(QString::fromUtf8(peer.output()));
        QVERIFY(port.hasMatch());

        ServerConfig config;
        config.name = QStringLiteral("leaky-http");
        config.transport = TransportKind::StreamableHttp;
        config.url = QUrl(QStringLiteral("http://someone:%1@127.0.0.1:%2/mcp").arg(password, port.captured(1)));
        config.headers.append({ QStringLiteral("Authorization"), QStringLiteral("Bearer ") + token });

        // Wired as WorkspaceSession wires the app's store.
        Engine engine;
        LogStore store;
        const QString path = dir.filePath(QStringLiteral("calls.mcpscope-log"));
        QString error;
        QVERIFY2(store.open(path, &error), qPrintable(error));
        connect(&engine, &Engine::callUpdated, &store, &LogStore::append);
        connect(&engine, &Engine::traffic, &store,
            [&store](const QString& server, WireDirection direction, const QByteArray& bytes) {
                store.appendWire(server, direction, bytes, QDateTime::currentMSecsSinceEpoch());
            });
        connect(&engine, &Engine::redactorChanged, &store, [&] { store.setRedactor(engine.redactor()); });
        QStringList shown;
        connect(&engine, &Engine::serverLog, this, [&shown](const QString&, const QString& line) { shown << line; });
        connect(&engine, &Engine::logMessage, this,
            [&shown](const QString&, const QString&, const QString&, const QJsonValue& data) {
                shown << QString::fromUtf8(QJsonDocument(QJsonArray { data }).toJson());
            });
        ServerConnection* connection = engine.addServer(config);
        QSignalSpy ready(connection, &ServerConnection::ready);
        connection->connectToServer();
        QVERIFY(ready.wait(20000));

        QList<CallRecord> done;
        for (const QString& tool : { QStringLiteral("echo"), QStringLiteral("forbidden") })
            engine.call(config.name, QStringLiteral("tools/call"), { { QStringLiteral("name"), tool } }, {},
                [&done](const CallRecord& record) { done.append(record); });
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 20000);
        bool flushed = false;
        store.flushThen(this, [&flushed](bool ok, const QString&) { flushed = ok; });
        QTRY_VERIFY_WITH_TIMEOUT(flushed, 20000);

        QList<QPair<QString, QByteArray>> outputs;
        for (const CallRecord& record : done)
            outputs.append({ QStringLiteral("record ") + record.tool, record.toCompactJson() });
        outputs.append({ QStringLiteral("log notifications"), shown.join(QLatin1Char('\n')).toUtf8() });
        // Read while the store is open: the WAL still holds the last commits.
        outputs.append({ QStringLiteral("database"), readAll(path) });
        outputs.append({ QStringLiteral("database -wal"), readAll(path + QStringLiteral("-wal")) });
        QVERIFY(QFile::exists(path + QStringLiteral("-wal")));
        // Large records are stored compressed, where a grep cannot see: read them back as well.
        int read = 0;
        for (const CallRecord& record : done)
            store.readRecord(record.callId, this, [&outputs, &read](std::optional<CallRecord> stored) {
                outputs.append({ QStringLiteral("stored record"), stored ? stored->toCompactJson() : QByteArray() });
                ++read;
            });
        QTRY_COMPARE_WITH_TIMEOUT(read, 2, 20000);
        store.close();
        outputs.append({ QStringLiteral("database after close"), readAll(path) });
        verifyClean(outputs, { token, password, QStringLiteral("someone:") });
    }

    void usageErrorsKeepSecrets_data()
    {
        // Errors printed before any engine (and so any redactor of its own) exists.
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("secret");
        const QString password = planted("password");
        QTest::newRow("a URL with a password and a wrong scheme") << QStringList { QStringLiteral("--url"),
            QStringLiteral("ftp://user:%1@127.0.0.1/mcp").arg(password), QStringLiteral("tools") }
                                                                  << password;
        const QString secret = planted("secret");
        QTest::newRow("a client secret with a broken grant") << QStringList { QStringLiteral("--url"),
            QStringLiteral("http://127.0.0.1:1/mcp"), QStringLiteral("--client-id"), QStringLiteral("c"),
            QStringLiteral("--client-secret"), secret, QStringLiteral("--grant"), secret, QStringLiteral("tools") }
                                                             << secret;
        const QString header = planted("bearer");
        QTest::newRow("a header without its colon") << QStringList { QStringLiteral("--url"),
            QStringLiteral("http://127.0.0.1:1/mcp"), QStringLiteral("--header"),
            QStringLiteral("Authorization Bearer ") + header, QStringLiteral("tools") }
                                                    << header;
    }

    void usageErrorsKeepSecrets()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, secret);
        const CliRun run = runCli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(!run.err.isEmpty(), "a usage error is printed");
        QVERIFY2(!run.err.contains(secret.toUtf8()), run.err.constData());
        QVERIFY2(!run.out.contains(secret.toUtf8()), run.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliSecrets)
#include "tst_clisecrets.moc"
