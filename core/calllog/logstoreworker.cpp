#include "logstoreworker.h"

#include "calllog/logstore.h"
#include "calllog/logstoreerror.h"
#include "jsonrpc/translation.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QTimer>
#include <QVariant>

#include <algorithm>
#include <initializer_list>

// The calls and wire rows are bound and stepped through SQLite's own API on the handle of the Qt
// connection: QSqlResult::bindValue formats a ":N" name and looks it up in a hash for every value, and
// with its QVariant copies it took about as long as SQLite's inserts (perf, bench_calllog). Debian's Qt
// SQLite driver links the system libsqlite3, as this file does; openDatabase() checks that both are the
// same SQLite before it uses the handle.
#include <sqlite3.h>

namespace mcpscope {

namespace {
constexpr int RetryIntervalMs = 1000;
constexpr qint64 AutoPruneIntervalMs = 60 * 1000;
constexpr qint64 DayMs = 24LL * 60 * 60 * 1000;
constexpr int PruneChunk = 500;
/// Rows the worker gathers into one transaction at most; more wait for the next one.
constexpr qsizetype MaxTransactionRows = 10000;
/// The writing connection's page cache. The log is append-only: the writer needs the table's last
/// pages and the call-id index, not the whole file, and pages it lets go stay in the OS's file cache.
/// 32 MiB held about 20 MB of the app's RSS after 10,000 calls (issue 17); 8 MiB still holds the
/// call-id index of the most recent ~100k calls.
constexpr int WriteCacheKiB = 8 * 1024;
/// The page size of a new log. A record is about 1 KB: 16 KiB pages hold more of them per page, per WAL
/// frame and per write, and the call-id index is shallower. bench_calllog, 1M records: committed
/// 92k/s with 4 KiB pages, 112-115k/s with 16 KiB, and a file of 1.08-1.16 GB instead of 1.30 GB.
/// An existing log keeps its page size.
constexpr int PageBytes = 16 * 1024;
/// WAL bytes after which a commit folds the WAL back into the database.
constexpr int CheckpointBytes = 40 * 1024 * 1024;
/// Calls per multi-row upsert: one statement, and one trip through SQLite's VM set-up, for
/// many rows. Their 11 parameters each stay under 999, the smallest per-statement limit SQLite builds have.
constexpr qsizetype CallsPerStatement = 64;
constexpr int CallColumns = 11;

/// A failed prepare or step as QSQLiteResult reports it (driverText is its message), so
/// describeLogStoreError() reads SQLite's code from nativeErrorCode() either way.
QSqlError nativeError(sqlite3* handle, const QString& driverText, int code)
{
    return QSqlError(
        driverText, QString::fromUtf8(sqlite3_errmsg(handle)), QSqlError::StatementError, QString::number(code));
}

/// The first of some sqlite3_bind_* results that is not SQLITE_OK, or SQLITE_OK.
int firstFailure(std::initializer_list<int> codes)
{
    for (const int code : codes) {
        if (code != SQLITE_OK)
            return code;
    }
    return SQLITE_OK;
}

/// A null string or byte array is SQL NULL, as QSqlResult binds it. SQLITE_STATIC: the rows outlive the step.
int bindText(sqlite3_stmt* statement, int index, QStringView text)
{
    if (text.isNull())
        return sqlite3_bind_null(statement, index);
    return sqlite3_bind_text16(statement, index, text.utf16(), int(text.size() * sizeof(char16_t)), SQLITE_STATIC);
}

int bindBlob(sqlite3_stmt* statement, int index, const QByteArray& bytes)
{
    if (bytes.isNull())
        return sqlite3_bind_null(statement, index);
    return sqlite3_bind_blob(statement, index, bytes.constData(), int(bytes.size()), SQLITE_STATIC);
}
} // namespace

bool LogStoreWorker::fail(const QSqlError& error, QString* message)
{
    if (message)
        *message = describeLogStoreError(m_path, error);
    return false;
}

bool LogStoreWorker::exec(QSqlQuery& query, const QString& sql, QString* message)
{
    if (query.exec(sql))
        return true;
    return fail(query.lastError(), message);
}

bool LogStoreWorker::openDatabase(QString* error)
{
    const QFileInfo info(m_path);
    // Root ignores permission bits, so the user's "read-only" is checked by hand.
    constexpr auto AnyWrite = QFile::WriteOwner | QFile::WriteGroup | QFile::WriteOther;
    if (info.exists() && !(info.permissions() & AnyWrite)) {
        *error = McpScope::tr("%1 is read-only; McpScope cannot write its call log there").arg(m_path);
        return false;
    }
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    m_db.setDatabaseName(m_path);
    m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=2000"));
    bool ok = m_db.open() || fail(m_db.lastError(), error);
    if (ok) {
        QSqlQuery query(m_db);
        ok = exec(query, QStringLiteral("PRAGMA user_version"), error) && query.next();
        const int version = ok ? query.value(0).toInt() : 0;
        if (ok && version > LogStore::SchemaVersion) {
            *error
                = McpScope::tr("%1 was written by a newer McpScope (call log schema %2; this version reads up to %3)")
                      .arg(m_path)
                      .arg(version)
                      .arg(LogStore::SchemaVersion);
            ok = false;
        }
        // Before WAL mode: only a new, empty file takes it.
        ok = ok && exec(query, QStringLiteral("PRAGMA page_size=%1").arg(PageBytes), error);
        ok = ok && exec(query, QStringLiteral("PRAGMA journal_mode=WAL"), error) && query.next();
        if (ok && query.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
            *error = McpScope::tr("%1 cannot be opened for writing (journal mode stays %2)")
                         .arg(m_path, query.value(0).toString());
            ok = false;
        }
        ok = ok && exec(query, QStringLiteral("PRAGMA synchronous=NORMAL"), error);
        // The default cache (2 MB) holds too little of the call-id index: under a flood each upsert
        // would read its index pages back from the OS. A bound, not an allocation: pages come as used.
        ok = ok && exec(query, QStringLiteral("PRAGMA cache_size=-%1").arg(WriteCacheKiB), error);
        // Checkpoints every ~40 MB of WAL rather than every 4 MB: a page that several transactions changed
        // (an index page, the table's last page) is copied into the database once instead of each time.
        // Only when the WAL is folded back changes; every commit is as durable as before.
        ok = ok && exec(query, QStringLiteral("PRAGMA page_size"), error) && query.next();
        const int pageBytes = ok ? std::max(512, query.value(0).toInt()) : PageBytes;
        ok = ok && exec(query, QStringLiteral("PRAGMA wal_autocheckpoint=%1").arg(CheckpointBytes / pageBytes), error);
        // IMMEDIATE takes the write lock now, so a locked or read-only file fails here, not later.
        ok = ok && exec(query, QStringLiteral("BEGIN IMMEDIATE"), error);
        if (ok) {
            ok = exec(query,
                     QStringLiteral(
                         "CREATE TABLE IF NOT EXISTS calls(call_id TEXT PRIMARY KEY, server TEXT, tool TEXT, "
                         "method TEXT, started_at INTEGER, ended_at INTEGER, outcome TEXT, rule TEXT, "
                         "attempts INTEGER, compressed INTEGER, record BLOB)"),
                     error)
                && exec(query,
                    QStringLiteral("CREATE TABLE IF NOT EXISTS wire(id INTEGER PRIMARY KEY, at INTEGER, server TEXT, "
                                   "direction TEXT, compressed INTEGER, payload BLOB)"),
                    error)
                && exec(query, QStringLiteral("CREATE INDEX IF NOT EXISTS calls_started ON calls(started_at)"), error)
                && exec(query, QStringLiteral("CREATE INDEX IF NOT EXISTS calls_server ON calls(server)"), error)
                && exec(query, QStringLiteral("CREATE INDEX IF NOT EXISTS wire_at ON wire(at)"), error)
                && exec(query, QStringLiteral("CREATE INDEX IF NOT EXISTS wire_server ON wire(server)"), error)
                && exec(query, QStringLiteral("PRAGMA user_version=%1").arg(LogStore::SchemaVersion), error)
                && markInterrupted(error) && exec(query, QStringLiteral("COMMIT"), error);
            if (!ok)
                m_db.rollback();
        }
    }
    ok = ok && openNative(error);
    if (!ok) {
        finalizeStatements();
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
        return false;
    }
    m_retryTimer = new QTimer(this);
    m_retryTimer->setSingleShot(true);
    m_retryTimer->setInterval(RetryIntervalMs);
    connect(m_retryTimer, &QTimer::timeout, this, &LogStoreWorker::writeQueue);
    return true;
}

bool LogStoreWorker::markInterrupted(QString* message)
{
    QSqlQuery select(m_db);
    if (!exec(
            select, QStringLiteral("SELECT call_id, compressed, record FROM calls WHERE outcome = 'pending'"), message))
        return false;
    QSqlQuery update(m_db);
    update.prepare(QStringLiteral("UPDATE calls SET outcome = ?, compressed = ?, record = ? WHERE call_id = ?"));
    const QString interrupted = outcomeName(CallOutcome::Interrupted);
    while (select.next()) {
        std::optional<CallRecord> record = decodeRecord(select.value(2).toByteArray(), select.value(1).toBool());
        if (!record)
            continue; // leave an unreadable row as it is rather than lose it
        record->outcome = CallOutcome::Interrupted;
        const Encoded encoded = encode(QJsonDocument(record->toJson()).toJson(QJsonDocument::Compact));
        update.addBindValue(interrupted);
        update.addBindValue(encoded.compressed);
        update.addBindValue(encoded.blob);
        update.addBindValue(select.value(0));
        if (!update.exec())
            return fail(update.lastError(), message);
    }
    return true;
}

void LogStoreWorker::closeDatabase()
{
    if (!m_db.isValid())
        return;
    writeQueue();
    delete m_retryTimer;
    m_retryTimer = nullptr;
    finalizeStatements();
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connection);
}

void LogStoreWorker::write(EncodedBatch batch)
{
    m_queuedRows += batch.calls.size() + batch.wire.size();
    m_queue.append(std::move(batch));
    // While failing, the retry timer decides when to try again.
    if (!m_retryTimer || m_retryTimer->isActive())
        return;
    if (m_queuedRows >= MaxTransactionRows) {
        writeQueue();
        return;
    }
    // Batches that arrived while this one was encoded (or written) are already posted: writing after
    // them puts all of them into one transaction.
    if (!m_writeScheduled) {
        m_writeScheduled = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_writeScheduled = false;
                if (m_retryTimer && !m_retryTimer->isActive())
                    writeQueue();
            },
            Qt::QueuedConnection);
    }
}

bool LogStoreWorker::writeNow(QString* message)
{
    if (!m_db.isOpen()) {
        *message = McpScope::tr("The call log %1 is closed").arg(m_path);
        return false;
    }
    if (m_retryTimer)
        m_retryTimer->stop();
    writeQueue();
    *message = m_lastFailure;
    return m_queue.isEmpty();
}

namespace {
/// The upsert of rows calls at once. An upsert, not INSERT OR REPLACE: a row keeps its rowid (insertion
/// order) and its index entries are updated in place. SQLite takes the rows of one statement in order, so
/// a call that comes twice ends with its later version, as with one statement per row.
QString callUpsert(qsizetype rows)
{
    QString values = QStringLiteral("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    values.reserve(rows * (values.size() + 1));
    for (qsizetype i = 1; i < rows; ++i)
        values.append(QStringLiteral(", (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    return QStringLiteral("INSERT INTO calls(call_id, server, tool, method, started_at, ended_at, outcome, rule, "
                          "attempts, compressed, record) VALUES ")
        + values
        + QStringLiteral(" ON CONFLICT(call_id) DO UPDATE SET server = excluded.server, tool = excluded.tool, "
                         "method = excluded.method, started_at = excluded.started_at, ended_at = excluded.ended_at, "
                         "outcome = excluded.outcome, rule = excluded.rule, attempts = excluded.attempts, "
                         "compressed = excluded.compressed, record = excluded.record");
}

} // namespace

bool LogStoreWorker::openNative(QString* error)
{
    const QVariant handle = m_db.driver()->handle();
    if (handle.isValid() && qstrcmp(handle.typeName(), "sqlite3*") == 0)
        m_native = *static_cast<sqlite3* const*>(handle.constData());
    QSqlQuery query(m_db);
    if (!exec(query, QStringLiteral("SELECT sqlite_source_id()"), error) || !query.next())
        return false;
    const QByteArray driverSource = query.value(0).toString().toUtf8();
    if (!m_native || driverSource != sqlite3_sourceid()) {
        *error = McpScope::tr("Cannot write the call log %1: Qt's SQLite driver uses SQLite %2, but McpScope was "
                              "built with SQLite %3; build McpScope against the SQLite that Qt uses")
                     .arg(m_path, QString::fromUtf8(driverSource), QString::fromUtf8(sqlite3_sourceid()));
        m_native = nullptr;
        return false;
    }
    return prepare(callUpsert(CallsPerStatement), &m_callChunk, error)
        && prepare(QStringLiteral("INSERT INTO wire(at, server, direction, compressed, payload) VALUES(?, ?, ?, ?, ?)"),
            &m_wireInsert, error);
}

bool LogStoreWorker::prepare(const QString& sql, sqlite3_stmt** statement, QString* message)
{
    const int code = sqlite3_prepare16_v3(
        m_native, sql.utf16(), int(sql.size() * sizeof(char16_t)), SQLITE_PREPARE_PERSISTENT, statement, nullptr);
    if (code == SQLITE_OK)
        return true;
    *statement = nullptr;
    return fail(nativeError(m_native, QStringLiteral("Unable to prepare statement"), code), message);
}

void LogStoreWorker::finalizeStatements()
{
    sqlite3_finalize(m_callChunk);
    sqlite3_finalize(m_wireInsert);
    m_callChunk = nullptr;
    m_wireInsert = nullptr;
    m_native = nullptr;
}

bool LogStoreWorker::step(sqlite3_stmt* statement, int bound, QString* message)
{
    const int code = bound == SQLITE_OK ? sqlite3_step(statement) : bound;
    const QSqlError error = code == SQLITE_DONE
        ? QSqlError()
        : nativeError(m_native, QStringLiteral("Unable to execute statement"), code);
    sqlite3_reset(statement);
    // The bound rows leave the queue after the commit: no statement keeps pointing at them.
    sqlite3_clear_bindings(statement);
    return code == SQLITE_DONE || fail(error, message);
}

bool LogStoreWorker::writeBatches(qsizetype count, QString* message)
{
    QList<const CallRow*> calls;
    for (qsizetype b = 0; b < count; ++b) {
        for (const CallRow& row : m_queue.at(b).calls)
            calls.append(&row);
    }
    // Full chunks share one persistent statement; the rest of the rows take one statement sized for them.
    sqlite3_stmt* rest = nullptr;
    const qsizetype tail = calls.size() % CallsPerStatement;
    if (tail > 0 && !prepare(callUpsert(tail), &rest, message))
        return false;
    bool ok = true;
    for (qsizetype first = 0; ok && first < calls.size(); first += CallsPerStatement) {
        const qsizetype rows = std::min(CallsPerStatement, calls.size() - first);
        sqlite3_stmt* statement = rows == CallsPerStatement ? m_callChunk : rest;
        int bound = SQLITE_OK;
        for (qsizetype i = 0; i < rows && bound == SQLITE_OK; ++i) {
            const CallRow& row = *calls.at(first + i);
            const CallSummary& call = row.summary;
            const int at = int(i * CallColumns) + 1;
            bound = firstFailure({
                bindText(statement, at, call.callId),
                bindText(statement, at + 1, call.server),
                bindText(statement, at + 2, call.tool),
                bindText(statement, at + 3, call.method),
                sqlite3_bind_int64(statement, at + 4, call.startedAt),
                sqlite3_bind_int64(statement, at + 5, call.endedAt),
                bindText(statement, at + 6, outcomeName(call.outcome)), // the name table's literal outlives the step
                bindText(statement, at + 7, call.rule),
                sqlite3_bind_int(statement, at + 8, call.attempts),
                sqlite3_bind_int(statement, at + 9, row.record.compressed ? 1 : 0),
                bindBlob(statement, at + 10, row.record.blob),
            });
        }
        ok = step(statement, bound, message);
    }
    sqlite3_finalize(rest);
    for (qsizetype b = 0; ok && b < count; ++b) {
        for (const WireRow& row : m_queue.at(b).wire) {
            const int bound = firstFailure({
                sqlite3_bind_int64(m_wireInsert, 1, row.at),
                bindText(m_wireInsert, 2, row.server),
                bindText(m_wireInsert, 3, row.direction),
                sqlite3_bind_int(m_wireInsert, 4, row.payload.compressed ? 1 : 0),
                bindBlob(m_wireInsert, 5, row.payload.blob),
            });
            ok = step(m_wireInsert, bound, message);
            if (!ok)
                break;
        }
    }
    return ok;
}

void LogStoreWorker::writeQueue()
{
    while (!m_queue.isEmpty() && m_db.isOpen()) {
        // Everything queued goes into one transaction, except after a long outage or under a flood: then
        // a bounded number of rows per transaction, so no single commit grows without limit.
        qsizetype count = 0;
        qsizetype rows = 0;
        while (count < m_queue.size() && (count == 0 || rows < MaxTransactionRows)) {
            rows += m_queue.at(count).calls.size() + m_queue.at(count).wire.size();
            ++count;
        }
        QString message;
        bool ok = m_db.transaction() || fail(m_db.lastError(), &message);
        ok = ok && writeBatches(count, &message);
        ok = ok && (m_db.commit() || fail(m_db.lastError(), &message));
        if (!ok) {
            m_db.rollback();
            // The batches stay queued: a failed commit never drops a record.
            if (message != m_lastFailure)
                Q_EMIT writeFailed(message);
            m_lastFailure = message;
            m_retryTimer->start();
            return;
        }
        const qint64 upTo = m_queue.at(count - 1).upToSequence;
        m_queue.remove(0, count);
        m_queuedRows -= rows;
        m_lastFailure.clear();
        Q_EMIT committed(upTo);
        prune(false);
    }
}

void LogStoreWorker::prune(bool force)
{
    if (!m_db.isOpen())
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (!force && (now - m_lastPrune < AutoPruneIntervalMs || (m_retentionDays <= 0 && m_retentionBytes <= 0)))
        return;
    m_lastPrune = now;
    int calls = 0;
    int wireRows = 0;
    QString message;
    bool ok = m_db.transaction() || fail(m_db.lastError(), &message);
    QSqlQuery query(m_db);
    if (ok && m_retentionDays > 0) {
        const qint64 cutoff = now - m_retentionDays * DayMs;
        query.prepare(QStringLiteral("DELETE FROM calls WHERE outcome != 'pending' AND started_at < ?"));
        query.addBindValue(cutoff);
        ok = query.exec() || fail(query.lastError(), &message);
        calls += ok ? query.numRowsAffected() : 0;
        query.prepare(QStringLiteral("DELETE FROM wire WHERE at < ?"));
        query.addBindValue(cutoff);
        ok = ok && (query.exec() || fail(query.lastError(), &message));
        wireRows += ok ? query.numRowsAffected() : 0;
    }
    if (ok && m_retentionBytes > 0) {
        ok = exec(query,
                 QStringLiteral("SELECT (SELECT COALESCE(SUM(length(record)), 0) FROM calls) + "
                                "(SELECT COALESCE(SUM(length(payload)), 0) FROM wire)"),
                 &message)
            && query.next();
        qint64 total = ok ? query.value(0).toLongLong() : 0;
        while (ok && total > m_retentionBytes) {
            // Oldest first across both tables, a chunk at a time; pending calls are never pruned.
            struct Row
            {
                qint64 at;
                bool isCall;
                QVariant key;
                qint64 bytes;
            };
            QList<Row> rows;
            ok = exec(query,
                QStringLiteral("SELECT started_at, call_id, length(record) FROM calls WHERE outcome != 'pending' "
                               "ORDER BY started_at LIMIT %1")
                    .arg(PruneChunk),
                &message);
            while (ok && query.next())
                rows.append({ query.value(0).toLongLong(), true, query.value(1), query.value(2).toLongLong() });
            ok = ok
                && exec(query,
                    QStringLiteral("SELECT at, id, length(payload) FROM wire ORDER BY id LIMIT %1").arg(PruneChunk),
                    &message);
            while (ok && query.next())
                rows.append({ query.value(0).toLongLong(), false, query.value(1), query.value(2).toLongLong() });
            if (!ok || rows.isEmpty())
                break;
            std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.at < b.at; });
            QSqlQuery deleteCall(m_db);
            deleteCall.prepare(QStringLiteral("DELETE FROM calls WHERE call_id = ?"));
            QSqlQuery deleteWire(m_db);
            deleteWire.prepare(QStringLiteral("DELETE FROM wire WHERE id = ?"));
            for (const Row& row : std::as_const(rows)) {
                if (total <= m_retentionBytes)
                    break;
                QSqlQuery& del = row.isCall ? deleteCall : deleteWire;
                del.addBindValue(row.key);
                if (!del.exec()) {
                    ok = fail(del.lastError(), &message);
                    break;
                }
                total -= row.bytes;
                ++(row.isCall ? calls : wireRows);
            }
        }
    }
    ok = ok && (m_db.commit() || fail(m_db.lastError(), &message));
    if (!ok) {
        m_db.rollback();
        Q_EMIT writeFailed(message);
        return;
    }
    if (force || calls > 0 || wireRows > 0)
        Q_EMIT pruned(calls, wireRows);
}
} // namespace mcpscope
