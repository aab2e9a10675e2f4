#include "calllog/logstore.h"
#include "calllog/logstorereader.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"
#include "logstorereads.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::testing;

namespace {
CallRecord makeRecord(int n, qint64 startedAt)
{
    CallRecord record;
    record.callId = QStringLiteral("call-%1").arg(n);
    record.server = n % 2 ? QStringLiteral("alpha") : QStringLiteral("beta");
    record.transport = QStringLiteral("stdio");
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("echo");
    record.arguments = { { QStringLiteral("n"), n } };
    record.startedAt = startedAt;
    CallAttempt attempt;
    attempt.requestId = QString::number(n);
    attempt.sessionId = QStringLiteral("session-1");
    attempt.sentAt = startedAt;
    attempt.written = true;
    record.attempts.append(attempt);
    return record;
}

void finish(CallRecord& record, int n)
{
    record.attempts[0].endedAt = record.startedAt + 3;
    record.attempts[0].failureKind = FailureKind::SessionExpired;
    record.attempts[0].verdict = DispatchVerdict::NotDispatched;
    record.attempts[0].error = QStringLiteral("HTTP 404: session expired");
    record.decisions.append(
        { 1, QStringLiteral("R2"), QStringLiteral("reconnect_and_retry"), QStringLiteral("clean expiry") });
    record.reconnects.append(
        { QStringLiteral("session-1"), QStringLiteral("session-2"), record.startedAt + 4, 2, true, {} });
    CallAttempt second;
    second.number = 2;
    second.requestId = QString::number(n) + QStringLiteral("-2");
    second.sessionId = QStringLiteral("session-2");
    second.sentAt = record.startedAt + 6;
    second.endedAt = record.startedAt + 9;
    second.written = true;
    record.attempts.append(second);
    record.outcome = CallOutcome::Success;
    record.rule = QStringLiteral("R2");
    record.healed = true;
    record.endedAt = record.startedAt + 9;
    // Every tenth result is large, so compressed rows are read back too.
    record.result = QJsonObject { { QStringLiteral("text"),
        n % 10 ? QStringLiteral("ok %1").arg(n) : QString(4000, QLatin1Char('x')) } };
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
} // namespace

class TestLogStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    void keepsThousandsOfRecordsAcrossReopen()
    {
        const QString path = m_dir.filePath(QStringLiteral("many.mcplog"));
        constexpr int Count = 5000;
        QList<CallRecord> expected;
        {
            LogStore store;
            QString error;
            QVERIFY2(store.open(path, &error), qPrintable(error));
            for (int n = 0; n < Count; ++n) {
                expected.append(makeRecord(n, 1700000000000 + n));
                store.append(expected.last());
            }
            // Not committed yet or not: the lookup sees the newest version either way.
            QCOMPARE(readRecord(store, QStringLiteral("call-7"))->toJson(), expected.at(7).toJson());
            qint64 last = 0;
            for (int n = 0; n < Count; ++n) {
                finish(expected[n], n);
                last = store.append(expected.at(n));
            }
            store.flush();
            QTRY_COMPARE_WITH_TIMEOUT(store.committedSequence(), last, 30000);
            QCOMPARE(readCallCount(store), qint64(Count));
        }
        LogStore store;
        QString error;
        QVERIFY2(store.open(path, &error), qPrintable(error));
        QCOMPARE(readCallCount(store), qint64(Count));
        for (const CallRecord& record : std::as_const(expected)) {
            const std::optional<CallRecord> stored = readRecord(store, record.callId);
            QVERIFY2(stored, qPrintable(record.callId));
            QCOMPARE(stored->toJson(), record.toJson());
        }
        const QList<CallSummary> recent = readRecentCalls(store, 3);
        QCOMPARE(recent.size(), 3);
        QCOMPARE(recent.first().callId, QStringLiteral("call-4999"));
        QCOMPARE(recent.first().attempts, 2);
        QCOMPARE(recent.first().outcome, CallOutcome::Success);
        QCOMPARE(recent.first().rule, QStringLiteral("R2"));
    }

    // The summary columns are bound as UTF-8 the encoder made: text outside ASCII, an empty column and a
    // null one come back from the table as they went in.
    void summaryColumnsKeepTheirText()
    {
        const QString path = m_dir.filePath(QStringLiteral("summary.mcplog"));
        CallRecord unicode = makeRecord(1, 1700000000001);
        unicode.server = QStringLiteral("caf\u00e9-\u5de5\u5177 \U0001F600");
        unicode.tool = QStringLiteral("\u00fcber");
        unicode.rule = QStringLiteral("R2\u2013\u00e9");
        CallRecord plain = makeRecord(2, 1700000000002);
        plain.tool = QString(); // null: SQL NULL
        plain.rule = QStringLiteral("");
        LogStore store;
        QString error;
        QVERIFY2(store.open(path, &error), qPrintable(error));
        store.append(unicode);
        const qint64 last = store.append(plain);
        store.flush();
        QTRY_COMPARE_WITH_TIMEOUT(store.committedSequence(), last, 30000);
        const QList<CallSummary> recent = readRecentCalls(store, 10);
        QCOMPARE(recent.size(), 2);
        QCOMPARE(recent.at(1).callId, unicode.callId);
        QCOMPARE(recent.at(1).server, unicode.server);
        QCOMPARE(recent.at(1).tool, unicode.tool);
        QCOMPARE(recent.at(1).rule, unicode.rule);
        QCOMPARE(recent.at(1).method, unicode.method);
        QCOMPARE(recent.at(1).outcome, unicode.outcome);
        QCOMPARE(recent.at(0).callId, plain.callId);
        QCOMPARE(recent.at(0).server, plain.server);
        QVERIFY(recent.at(0).tool.isEmpty());
        QVERIFY(recent.at(0).rule.isEmpty());
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("summary-check"));
        {
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery query(db);
            QVERIFY(query.exec(QStringLiteral("SELECT tool IS NULL, rule IS NULL, typeof(server) FROM calls "
                                              "WHERE call_id = '%1'")
                                   .arg(plain.callId)));
            QVERIFY(query.next());
            QCOMPARE(query.value(0).toInt(), 1);
            QCOMPARE(query.value(1).toInt(), 0);
            QCOMPARE(query.value(2).toString(), QStringLiteral("text"));
            db.close();
        }
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("summary-check"));
    }

    void pendingCallsComeBackInterrupted()
    {
        const QString path = m_dir.filePath(QStringLiteral("pending.mcplog"));
        CallRecord pending = makeRecord(1, 1700000000000);
        CallRecord done = makeRecord(2, 1700000000100);
        finish(done, 2);
        {
            LogStore store;
            QVERIFY(store.open(path));
            store.append(pending);
            store.append(done);
        }
        LogStore store;
        QVERIFY(store.open(path));
        const std::optional<CallRecord> interrupted = readRecord(store, pending.callId);
        QVERIFY(interrupted);
        QCOMPARE(interrupted->outcome, CallOutcome::Interrupted);
        CallRecord expected = pending;
        expected.outcome = CallOutcome::Interrupted;
        QCOMPARE(interrupted->toJson(), expected.toJson());
        QCOMPARE(readRecord(store, done.callId)->toJson(), done.toJson());
        const QList<CallSummary> recent = readRecentCalls(store, 10);
        QCOMPARE(recent.size(), 2);
        QCOMPARE(recent.last().outcome, CallOutcome::Interrupted);
    }

    void refusesFilesItCannotUse_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expectedText");
        QTest::newRow("a log from a newer McpScope") << QStringLiteral("newer") << QStringLiteral("newer McpScope");
        QTest::newRow("a file that is not a database")
            << QStringLiteral("garbage") << QStringLiteral("not an SQLite database");
        QTest::newRow("a read-only log") << QStringLiteral("readonly") << QStringLiteral("read-only");
        QTest::newRow("a log another process holds locked") << QStringLiteral("locked") << QStringLiteral("locked");
    }

    void refusesFilesItCannotUse()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expectedText);
        const QString path = m_dir.filePath(kind + QStringLiteral(".mcplog"));
        const QString other = QStringLiteral("other-") + kind;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), other);
            db.setDatabaseName(path);
            if (kind == QLatin1String("garbage")) {
                QFile file(path);
                QVERIFY(file.open(QIODevice::WriteOnly));
                file.write(QByteArray("this is a text file, not a call log\n").repeated(100));
            } else if (kind == QLatin1String("newer")) {
                QVERIFY(db.open());
                QSqlQuery(db).exec(QStringLiteral("PRAGMA user_version=%1").arg(LogStore::SchemaVersion + 1));
                db.close();
            } else if (kind == QLatin1String("readonly")) {
                {
                    LogStore store;
                    QVERIFY(store.open(path));
                }
                QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
            }
            std::unique_ptr<QSqlQuery> lock;
            if (kind == QLatin1String("locked")) {
                QVERIFY(db.open());
                lock = std::make_unique<QSqlQuery>(db);
                QVERIFY(lock->exec(QStringLiteral("CREATE TABLE t(x)")));
                QVERIFY(lock->exec(QStringLiteral("BEGIN EXCLUSIVE")));
            }
            LogStore store;
            QString error;
            QVERIFY(!store.open(path, &error));
            QVERIFY(!store.isOpen());
            QVERIFY2(error.contains(path), qPrintable(error));
            QVERIFY2(error.contains(expectedText), qPrintable(error));
            if (lock) {
                lock->exec(QStringLiteral("ROLLBACK"));
                lock.reset();
            }
            db.close();
        }
        QSqlDatabase::removeDatabase(other);
    }

    void reportsFailedWritesAndRetriesWithoutDropping()
    {
        const QString path = m_dir.filePath(QStringLiteral("busy.mcplog"));
        LogStore store;
        QVERIFY(store.open(path));
        QSignalSpy failed(&store, &LogStore::writeFailed);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("holder"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery lock(db);
            QVERIFY(lock.exec(QStringLiteral("BEGIN IMMEDIATE")));
            CallRecord record = makeRecord(1, 1700000000000);
            finish(record, 1);
            const qint64 sequence = store.append(record);
            store.flush();
            QVERIFY(failed.wait(10000));
            QVERIFY2(failed.first().first().toString().contains(path), qPrintable(failed.first().first().toString()));
            QVERIFY(store.committedSequence() < sequence);
            QCOMPARE(readRecord(store, record.callId)->toJson(), record.toJson());
            QVERIFY(lock.exec(QStringLiteral("ROLLBACK")));
            QTRY_COMPARE_WITH_TIMEOUT(store.committedSequence(), sequence, 10000);
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("holder"));
        store.close();
        QVERIFY(store.open(path));
        QCOMPARE(readCallCount(store), qint64(1));
    }

    void redactsSecretsBeforeTheyReachTheFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("secrets.mcplog"));
        const QString headerToken = QStringLiteral("tok-AUTH-5b1e0c9a");
        const QString configToken = QStringLiteral("tok-CONFIG-77aa41");
        const QString envToken = QStringLiteral("tok-ENV-9d3f22");
        const QString cookieToken = QStringLiteral("tok-COOKIE-31c8");
        const QString markedToken = QStringLiteral("tok-MARKED-e6d0");
        const QString control = QStringLiteral("visible-control-marker");

        ServerConfig config;
        config.name = QStringLiteral("weather");
        config.env.insert(QStringLiteral("API_KEY"), envToken);
        config.env.insert(QStringLiteral("PLAIN"), QStringLiteral("plain-value"));
        config.secretEnv = { QStringLiteral("API_KEY") };
        config.headers = { { QStringLiteral("Authorization"), QStringLiteral("Bearer ") + configToken } };
        Redactor redactor;
        redactor.addServer(config);
        redactor.addSensitiveHeader(QStringLiteral("X-Api-Key"));

        CallRecord record = makeRecord(1, 1700000000000);
        finish(record, 1);
        record.attempts[0].error
            = QStringLiteral("HTTP 401 %1; sent Authorization: Bearer %2").arg(control, headerToken);
        record.attempts[1].error = QStringLiteral("key %1 rejected").arg(envToken);
        record.events.append({ 1, QStringLiteral("fault"), QStringLiteral("X-Api-Key: ") + markedToken });
        record.arguments = { { QStringLiteral("token"), configToken },
            { QStringLiteral("headers"), QJsonObject { { QStringLiteral("Cookie"), cookieToken } } } };
        record.error = { { QStringLiteral("message"), QString(QStringLiteral("env API_KEY=") + envToken) } };

        const QByteArray httpWire = QStringLiteral("POST /mcp HTTP/1.1\r\nAuthorization: Bearer %1\r\nCookie: s=%2\r\n"
                                                   "X-Trace: %3\r\n\r\n{}")
                                        .arg(headerToken, cookieToken, control)
                                        .toUtf8();
        const QByteArray jsonWire
            = QStringLiteral("{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{\"headers\":{\"authorization\":\"Bearer %1\"},"
                             "\"env\":\"%2\",\"note\":\"%3\",\"x-api-key\":\"%4\"}}")
                  .arg(headerToken, envToken, control, markedToken)
                  .toUtf8();

        LogStore store;
        store.setRedactor(redactor);
        QVERIFY(store.open(path));
        store.append(record);
        store.appendWire(config.name, WireDirection::Outgoing, httpWire, 1700000000001);
        const qint64 last = store.appendWire(config.name, WireDirection::Incoming, jsonWire, 1700000000002);
        store.flush();
        QTRY_COMPARE(store.committedSequence(), last);

        const QList<QByteArray> tokens { headerToken.toUtf8(), configToken.toUtf8(), envToken.toUtf8(),
            cookieToken.toUtf8(), markedToken.toUtf8() };
        auto checkFiles = [&] {
            QByteArray all;
            for (const QString& suffix : { QString(), QStringLiteral("-wal"), QStringLiteral("-shm") })
                all += readAll(path + suffix);
            QVERIFY(!all.isEmpty());
            // The control proves the text is stored readable, so a missing token means it was redacted.
            QVERIFY(all.contains(control.toUtf8()));
            for (const QByteArray& token : tokens)
                QVERIFY2(!all.contains(token), token.constData());
        };
        checkFiles();
        if (QTest::currentTestFailed())
            return;

        const CallRecord stored = *readRecord(store, record.callId);
        QVERIFY(stored.attempts[0].error.contains(QStringLiteral("Authorization: [redacted]")));
        QVERIFY(stored.attempts[0].error.contains(control));
        QCOMPARE(stored.attempts[1].error, QStringLiteral("key [redacted] rejected"));
        QCOMPARE(stored.events[0].text, QStringLiteral("X-Api-Key: [redacted]"));
        QCOMPARE(stored.arguments.value(QStringLiteral("token")).toString(), QStringLiteral("[redacted]"));
        QCOMPARE(readWireCount(store), qint64(2));
        QVERIFY(readWirePayload(store, 1)->contains("Authorization: [redacted]\r\nCookie: [redacted]\r\n"));
        QVERIFY(readWirePayload(store, 2)->contains("\"authorization\":\"[redacted]\""));

        store.close();
        checkFiles();
    }

    void prunesOnlyBeyondTheRetentionLimits()
    {
        const QString path = m_dir.filePath(QStringLiteral("retention.mcplog"));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const qint64 old = now - 30 * 24 * 3600 * 1000LL;
        LogStore store;
        QVERIFY(store.open(path));
        QSignalSpy pruned(&store, &LogStore::pruned);
        int n = 0;
        for (int i = 0; i < 10; ++i) { // old and finished: pruned by age
            CallRecord record = makeRecord(++n, old + i);
            finish(record, n);
            store.append(record);
        }
        for (int i = 0; i < 5; ++i) // old but still pending: never pruned
            store.append(makeRecord(++n, old + 100 + i));
        for (int i = 0; i < 10; ++i) { // recent
            CallRecord record = makeRecord(++n, now - 1000 + i);
            finish(record, n);
            store.append(record);
        }
        for (int i = 0; i < 4; ++i)
            store.appendWire(QStringLiteral("alpha"), WireDirection::Outgoing, "{\"old\":true}", old + i);
        for (int i = 0; i < 3; ++i)
            store.appendWire(QStringLiteral("alpha"), WireDirection::Incoming, "{\"old\":false}", now - 10 + i);

        store.setRetention(0, 100 * 1024 * 1024);
        store.pruneNow();
        QVERIFY(pruned.wait());
        QCOMPARE(pruned.takeFirst(), (QVariantList { 0, 0 }));
        // Count what is committed: under ASan on a loaded machine the count raced the batches' commit.
        QVERIFY(flushAndWait(store));
        QCOMPARE(readCallCount(store), qint64(25));

        store.setRetention(7, 0);
        store.pruneNow();
        QVERIFY(pruned.wait());
        QCOMPARE(pruned.takeFirst(), (QVariantList { 10, 4 }));
        QCOMPARE(readCallCount(store), qint64(15));
        QCOMPARE(readWireCount(store), qint64(3));
        QVERIFY(!readRecord(store, QStringLiteral("call-1")));
        QCOMPARE(readRecord(store, QStringLiteral("call-11"))->outcome, CallOutcome::Pending);
        QVERIFY(readRecord(store, QStringLiteral("call-25")));

        // A one-byte budget leaves only what may never be pruned: the pending calls.
        store.setRetention(0, 1);
        store.pruneNow();
        QVERIFY(pruned.wait());
        QCOMPARE(pruned.takeFirst(), (QVariantList { 10, 3 }));
        QCOMPARE(readCallCount(store), qint64(5));
        QCOMPARE(readWireCount(store), qint64(0));
        QCOMPARE(store.prunedCalls(), qint64(20));
        QCOMPARE(store.prunedWireRows(), qint64(7));
    }

    /// The encoder stores a record's own text when no sensitive name or secret value is in it, and the full
    /// redaction otherwise: the names are searched for in the JSON text with any case, at any place.
    void storesExactlyWhatRedactionGives_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("nothing secret") << QStringLiteral("plain words, cooki and authorizatio and set-cooki");
        QTest::newRow("name alone") << QStringLiteral("Cookie");
        QTest::newRow("name at the end") << QStringLiteral("sent a set-cookie");
        QTest::newRow("name in odd case") << QStringLiteral("pRoXy-AuThOrIzAtIoN: Basic x");
        QTest::newRow("header line") << QStringLiteral("Authorization: Bearer abc");
        QTest::newRow("user's header name") << QStringLiteral("x-API-key: zzz");
        QTest::newRow("name split by an escape") << QStringLiteral("Cook\nie: x");
        QTest::newRow("secret value") << QStringLiteral("key tok-SECRET-8a1c rejected");
        QTest::newRow("secret value needing escapes") << QStringLiteral("\"quoted\\tok\" in it");
        QTest::newRow("non-ASCII around a name") << QStringLiteral("\u00e9Cookie\u20ac: \U0001F600");
    }

    void storesExactlyWhatRedactionGives()
    {
        QFETCH(QString, text);
        Redactor redactor;
        redactor.addSensitiveHeader(QStringLiteral("X-Api-Key"));
        redactor.addSecretValue(QStringLiteral("tok-SECRET-8a1c"));
        redactor.addSecretValue(QStringLiteral("\"quoted\\tok\""));
        const QString path = m_dir.filePath(QStringLiteral("exact.mcplog"));
        QFile::remove(path);
        LogStore store;
        store.setRedactor(redactor);
        QVERIFY(store.open(path));
        QList<CallRecord> records;
        for (int n = 0; n < 6; ++n) {
            CallRecord record = makeRecord(n, 1700000000000 + n);
            if (n % 2)
                finish(record, 10); // 10: a result above the compression threshold
            switch (n) {
            case 0:
                record.attempts[0].error = text;
                break;
            case 1:
                record.arguments.insert(text, 1);
                break;
            case 2:
                record.arguments.insert(QStringLiteral("v"), text);
                break;
            case 3:
                record.tool = text;
                break;
            case 4:
                record.events.append({ 1, QStringLiteral("fault"), text });
                break;
            default:
                record.result = QJsonObject { { QStringLiteral("headers"),
                    QJsonArray {
                        QJsonObject { { QStringLiteral("name"), text }, { QStringLiteral("value"), text } } } } };
                break;
            }
            store.append(record);
            records.append(record);
        }
        QVERIFY(flushAndWait(store));
        LogStoreReader reader;
        QString error;
        QVERIFY2(reader.open(path, &error), qPrintable(error));
        QStringList stored;
        QStringList exact;
        QVERIFY(reader.forEachRecordJson(
            [&](const QString& callId, const QByteArray& json) {
                for (const CallRecord& record : std::as_const(records)) {
                    if (record.callId != callId)
                        continue;
                    stored.append(callId);
                    if (QJsonDocument::fromJson(json).object() == redactor.redactRecord(record))
                        exact.append(callId);
                    else
                        qWarning("%s is stored as %s", qPrintable(callId), json.constData());
                }
                return true;
            },
            &error));
        QCOMPARE(stored.size(), records.size());
        QCOMPARE(exact, stored);
    }

    /// The worker writes many calls per statement: a call changed in several batches of one transaction
    /// ends as its newest version, and every call keeps the place of its first write.
    void upsertsInChunksKeepTheNewestVersionAndTheFirstPlace()
    {
        const QString path = m_dir.filePath(QStringLiteral("chunks.mcplog"));
        LogStore store;
        QVERIFY(store.open(path));
        constexpr int Calls = 300; // several full statements and a partial one
        QList<CallRecord> records;
        for (int round = 0; round < 3; ++round) {
            // Each round flushes without waiting, so rounds meet in the worker's queue.
            for (int n = round * 50; n < Calls; ++n) {
                CallRecord record = makeRecord(n, 1700000000000 + n);
                record.arguments.insert(QStringLiteral("round"), round);
                if (round == 0)
                    records.append(record);
                else
                    records[n] = record;
                store.append(record);
            }
            store.flush();
        }
        QVERIFY(flushAndWait(store));
        for (const CallRecord& record : std::as_const(records)) {
            const std::optional<CallRecord> stored = readRecord(store, record.callId);
            QVERIFY(stored);
            QCOMPARE(stored->toJson(), record.toJson());
        }
        store.close();
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("chunks"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery query(db);
            QVERIFY(query.exec(QStringLiteral("SELECT call_id FROM calls ORDER BY rowid")));
            int n = 0;
            while (query.next())
                QCOMPARE(query.value(0).toString(), records.at(n++).callId);
            QCOMPARE(n, Calls);
        }
        QSqlDatabase::removeDatabase(QStringLiteral("chunks"));
    }

    /// LogStoreReader, the streaming side of exports: committed calls in start order (ties in the order of
    /// their first write, which a later update keeps), as redacted and decompressed JSON.
    void readerStreamsCommittedCallsInStartOrder()
    {
        const QString path = m_dir.filePath(QStringLiteral("reader.mcplog"));
        Redactor redactor;
        redactor.addSecretValue(QStringLiteral("tok-READER-5e1f"));
        QList<CallRecord> expected;
        LogStore store;
        store.setRedactor(redactor);
        QVERIFY(store.open(path));
        // Start times out of append order, with a tie between call-1 and call-2.
        const qint64 starts[] = { 1700000000500, 1700000000500, 1700000000100, 1700000000900, 1700000000300 };
        for (int n = 0; n < 5; ++n) {
            CallRecord record = makeRecord(n, starts[n]);
            record.arguments.insert(QStringLiteral("secret"), QStringLiteral("tok-READER-5e1f"));
            store.append(record);
            expected.append(record);
        }
        store.flush();
        QTRY_COMPARE(store.committedSequence(), store.lastSequence());
        // Updates (call-0 finishes with a compressed result) keep each call's place among ties.
        for (int n : { 1, 0 }) {
            finish(expected[n], n);
            store.append(expected.at(n));
        }
        store.flush();
        QTRY_COMPARE(store.committedSequence(), store.lastSequence());

        LogStoreReader reader;
        QString error;
        QVERIFY2(reader.open(path, &error), qPrintable(error));
        QCOMPARE(reader.count(&error), qint64(5));
        QStringList order;
        QVERIFY(reader.forEachRecordJson(
            [&](const QString& callId, const QByteArray& json) {
                order.append(callId);
                const QJsonObject object = QJsonDocument::fromJson(json).object();
                const auto it = std::find_if(expected.cbegin(), expected.cend(),
                    [&](const CallRecord& record) { return record.callId == callId; });
                if (it == expected.cend() || object != redactor.redactRecord(*it))
                    order.append(QStringLiteral("mismatch ") + callId);
                return true;
            },
            &error));
        QCOMPARE(order,
            QStringList({ QStringLiteral("call-2"), QStringLiteral("call-4"), QStringLiteral("call-0"),
                QStringLiteral("call-1"), QStringLiteral("call-3") }));

        int visited = 0;
        QVERIFY(reader.forEachRecordJson([&](const QString&, const QByteArray&) { return ++visited < 2; }));
        QCOMPARE(visited, 2);
    }

    /// What an export does before it opens a LogStoreReader: everything appended so far is readable at once.
    void flushAndWaitMakesAppendsVisibleToReaders()
    {
        const QString path = m_dir.filePath(QStringLiteral("flushwait.mcplog"));
        LogStore store;
        QVERIFY(store.open(path));
        for (int n = 0; n < 100; ++n)
            store.append(makeRecord(n, 1700000000000 + n));
        QString error;
        QVERIFY2(flushAndWait(store, &error), qPrintable(error));
        LogStoreReader reader;
        QVERIFY2(reader.open(path, &error), qPrintable(error));
        QCOMPARE(reader.count(), qint64(100));

        // A failed write returns false at once with the reason, and keeps the change for the next try.
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("flushwait-holder"));
        db.setDatabaseName(path);
        QVERIFY(db.open());
        {
            QSqlQuery lock(db);
            QVERIFY(lock.exec(QStringLiteral("BEGIN IMMEDIATE")));
            store.append(makeRecord(100, 1700000000100));
            QVERIFY(!flushAndWait(store, &error));
            QVERIFY2(error.contains(path) && error.contains(QLatin1String("locked")), qPrintable(error));
            QVERIFY(lock.exec(QStringLiteral("ROLLBACK")));
        }
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("flushwait-holder"));
        QVERIFY2(flushAndWait(store, &error), qPrintable(error));
        QCOMPARE(reader.count(), qint64(101));
        QVERIFY(readRecord(store, QStringLiteral("call-100")));
    }

    void readerRefusesFilesItCannotRead()
    {
        LogStoreReader reader;
        QString error;
        const QString missing = m_dir.filePath(QStringLiteral("missing.mcplog"));
        QVERIFY(!reader.open(missing, &error));
        QVERIFY2(error.contains(missing) && error.contains(QLatin1String("does not exist")), qPrintable(error));

        const QString garbage = m_dir.filePath(QStringLiteral("garbage-for-reader.mcplog"));
        {
            QFile file(garbage);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray("not a database\n").repeated(200));
        }
        QVERIFY(!reader.open(garbage, &error));
        QVERIFY2(error.contains(garbage) && error.contains(QLatin1String("not an SQLite database")), qPrintable(error));
        QVERIFY(!reader.isOpen());
        QCOMPARE(reader.count(&error), qint64(-1));
        QVERIFY(!reader.forEachRecordJson([](const QString&, const QByteArray&) { return true; }, &error));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestLogStore)
#include "tst_logstore.moc"
