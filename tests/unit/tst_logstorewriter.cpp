// How the call log's writer stores rows (issue 17): it binds them through SQLite's own API on the Qt
// connection's handle, a new log uses 16 KiB pages while an existing log keeps its own, and the store's
// encoder and writer threads run behind the thread that opened it. What reaches the file must be what
// the Qt Sql binding stored: each column's value, NULL for a null string, the record and wire blobs.

#include "calllog/logstore.h"
#include "logstorereads.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#endif

using namespace mcpscope;
using namespace mcpscope::testing;

namespace {
constexpr int Calls = 150; // two full 64-row statements and a 22-row rest

CallRecord makeRecord(int n)
{
    CallRecord record;
    record.callId = QStringLiteral("call-%1").arg(n);
    record.server = n % 2 ? QStringLiteral("alpha") : QStringLiteral("bêta");
    record.transport = QStringLiteral("stdio");
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("echo");
    record.arguments = { { QStringLiteral("n"), n } };
    record.startedAt = 1700000000000 + n;
    record.endedAt = record.startedAt + 5;
    CallAttempt attempt;
    attempt.requestId = QString::number(n);
    attempt.sentAt = record.startedAt;
    attempt.endedAt = record.endedAt;
    attempt.written = true;
    record.attempts.append(attempt);
    record.outcome = n % 3 ? CallOutcome::Success : CallOutcome::OutcomeUncertain;
    if (n % 5 == 0)
        record.rule = QStringLiteral("R4");
    return record;
}

/// A connection of its own to path, as another process would open it.
struct RawDb
{
    explicit RawDb(const QString& path)
    {
        db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(path);
        db.open();
    }
    ~RawDb()
    {
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    }
    QVariant value(const QString& sql)
    {
        QSqlQuery query(db);
        return query.exec(sql) && query.next() ? query.value(0) : QVariant();
    }
    QSqlDatabase db;
};

#ifdef Q_OS_LINUX
/// The nice value of each of this process's threads called name (/proc/self/task/*/comm), in no order.
QList<int> threadNices(const QByteArray& name)
{
    QList<int> nices;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString& tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (!comm.open(QIODevice::ReadOnly) || comm.readAll().trimmed() != name)
            continue;
        QFile stat(tasks.filePath(tid + QStringLiteral("/stat")));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        // After "(comm)": state is field 3, nice field 19.
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        nices.append(fields.value(19 - 3).toInt());
    }
    return nices;
}
#endif
} // namespace

class TestLogStoreWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storesEachColumnAsTheQtBindingDid();
    void existingLogKeepsItsPageSize();
    void workerThreadsRunBehindTheOpener();

private:
    QTemporaryDir m_dir;
};

void TestLogStoreWriter::storesEachColumnAsTheQtBindingDid()
{
    const QString path = m_dir.filePath(QStringLiteral("new.mcplog"));
    QList<CallRecord> records;
    {
        LogStore store;
        QVERIFY(store.open(path));
        for (int n = 0; n < Calls; ++n) {
            records.append(makeRecord(n));
            store.append(records.last());
        }
        store.appendWire(QStringLiteral("alpha"), WireDirection::Outgoing, QByteArray("{\"id\":1}"), 1700000000001);
        store.appendWire(QStringLiteral("bêta"), WireDirection::Incoming, QByteArray(6000, 'w'), 1700000000002);
        QVERIFY(flushAndWait(store));
        QCOMPARE(readCallCount(store), qint64(Calls));
        QCOMPARE(readRecord(store, QStringLiteral("call-149"))->toJson(), records.at(149).toJson());
        QCOMPARE(readWireCount(store), qint64(2));
        QCOMPARE(readWirePayload(store, 2), std::optional<QByteArray>(QByteArray(6000, 'w')));
    }
    RawDb raw(path);
    QVERIFY(raw.db.isOpen());
    QCOMPARE(raw.value(QStringLiteral("PRAGMA page_size")).toInt(), 16384);
    QSqlQuery query(raw.db);
    QVERIFY(query.exec(QStringLiteral("SELECT call_id, server, tool, method, started_at, ended_at, outcome, rule, "
                                      "attempts, typeof(rule), typeof(record) FROM calls ORDER BY rowid")));
    int n = 0;
    for (; query.next(); ++n) {
        const CallRecord& r = records.at(n);
        QCOMPARE(query.value(0).toString(), r.callId);
        QCOMPARE(query.value(1).toString(), r.server);
        QCOMPARE(query.value(2).toString(), r.tool);
        QCOMPARE(query.value(3).toString(), r.method);
        QCOMPARE(query.value(4).toLongLong(), r.startedAt);
        QCOMPARE(query.value(5).toLongLong(), r.endedAt);
        QCOMPARE(query.value(6).toString(), outcomeName(r.outcome));
        QCOMPARE(query.value(7).toString(), r.rule);
        QCOMPARE(query.value(8).toInt(), 1);
        QCOMPARE(query.value(9).toString(), r.rule.isNull() ? QStringLiteral("null") : QStringLiteral("text"));
        QCOMPARE(query.value(10).toString(), QStringLiteral("blob"));
    }
    QCOMPARE(n, Calls);
    QCOMPARE(
        raw.value(QStringLiteral("SELECT server || ' ' || direction || ' ' || at FROM wire WHERE id = 2")).toString(),
        QStringLiteral("bêta in 1700000000002"));
}

void TestLogStoreWriter::existingLogKeepsItsPageSize()
{
    const QString path = m_dir.filePath(QStringLiteral("old.mcplog"));
    {
        RawDb raw(path);
        QVERIFY(raw.db.isOpen());
        QSqlQuery query(raw.db);
        QVERIFY(query.exec(QStringLiteral("PRAGMA page_size=4096")));
        QVERIFY(query.exec(QStringLiteral("CREATE TABLE older(x)")));
    }
    {
        LogStore store;
        QVERIFY(store.open(path));
        for (int n = 0; n < Calls; ++n)
            store.append(makeRecord(n));
        QVERIFY(flushAndWait(store));
        QCOMPARE(readCallCount(store), qint64(Calls));
        QCOMPARE(readRecord(store, QStringLiteral("call-64"))->toJson(), makeRecord(64).toJson());
    }
    RawDb raw(path);
    QCOMPARE(raw.value(QStringLiteral("PRAGMA page_size")).toInt(), 4096);
    QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM calls")).toInt(), Calls);
}

void TestLogStoreWriter::workerThreadsRunBehindTheOpener()
{
#ifdef Q_OS_LINUX
    const int own = getpriority(PRIO_PROCESS, 0);
    const int expected = std::min(own + 5, 19);
    // Twice: open() starts the threads anew each time, and each start lowers the new thread.
    for (int round = 0; round < 2; ++round) {
        LogStore store;
        QVERIFY(store.open(m_dir.filePath(QStringLiteral("nice-%1.mcplog").arg(round))));
        // The writer opened the file in its thread already; the encoder may still be starting, named but not
        // yet lowered. A thread of the round before may still be leaving: QThread::wait() returns before
        // the thread is gone, and it was lowered too.
        const auto allLowered = [expected](const QByteArray& name) {
            const QList<int> nices = threadNices(name);
            return !nices.isEmpty() && nices.count(expected) == nices.size();
        };
        QVERIFY(allLowered("LogStore"));
        QTRY_VERIFY(allLowered("LogStore encode")); // comm holds 15 bytes
        QCOMPARE(getpriority(PRIO_PROCESS, 0), own);
    }
#else
    QSKIP("per-thread nice values are Linux's");
#endif
}

QTEST_GUILESS_MAIN(TestLogStoreWriter)
#include "tst_logstorewriter.moc"
