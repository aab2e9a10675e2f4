#include "logstore.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <QVariant>

#include <algorithm>

namespace mcpscope {

namespace {
constexpr qsizetype CompressAbove = 1024;
constexpr int RetryIntervalMs = 1000;
constexpr qint64 AutoPruneIntervalMs = 60 * 1000;
constexpr qint64 DayMs = 24LL * 60 * 60 * 1000;
constexpr int PruneChunk = 500;

// Primary SQLite result codes (sqlite3.h); the Qt driver reports them as nativeErrorCode().
enum SqliteCode {
    SqliteBusy = 5,
    SqliteLocked = 6,
    SqliteReadOnly = 8,
    SqliteCorrupt = 11,
    SqliteFull = 13,
    SqliteCantOpen = 14,
    SqliteNotADb = 26,
};

int sqliteCode(const QSqlError& error)
{
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    return ok ? (code & 0xff) : -1;
}

QString logText(const char* text)
{
    return QCoreApplication::translate("LogStore", text);
}

QString describe(const QString& path, const QSqlError& error)
{
    switch (sqliteCode(error)) {
    case SqliteNotADb:
        return logText("%1 is not a call log: the file is not an SQLite database").arg(path);
    case SqliteCorrupt:
        return logText("%1 is damaged: %2").arg(path, error.databaseText());
    case SqliteBusy:
    case SqliteLocked:
        return logText("%1 is locked by another process").arg(path);
    case SqliteReadOnly:
        return logText("%1 is read-only; McpScope cannot write its call log there").arg(path);
    case SqliteFull:
        return logText("Cannot write the call log %1: the disk is full").arg(path);
    case SqliteCantOpen:
        return logText("Cannot open the call log %1: %2").arg(path, error.databaseText());
    default:
        break;
    }
    return logText("Call log %1: %2").arg(path, error.text());
}

struct Encoded
{
    QByteArray blob;
    bool compressed = false;
};

Encoded encode(const QByteArray& bytes)
{
    if (bytes.size() > CompressAbove)
        return { qCompress(bytes), true };
    return { bytes, false };
}

QByteArray decode(const QByteArray& blob, bool compressed)
{
    return compressed ? qUncompress(blob) : blob;
}

std::optional<CallRecord> decodeRecord(const QByteArray& blob, bool compressed)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(decode(blob, compressed), &parseError);
    if (!document.isObject())
        return std::nullopt;
    return CallRecord::fromJson(document.object());
}

QString directionName(WireDirection direction)
{
    return direction == WireDirection::Outgoing ? QStringLiteral("out") : QStringLiteral("in");
}
} // namespace

/// Owns the writing connection; lives on LogStore's thread, because a QSqlDatabase connection may
/// only be used on the thread that opened it.
class LogStoreWorker : public QObject
{
    Q_OBJECT
public:
    LogStoreWorker(QString path, QString connectionName)
        : m_path(std::move(path))
        , m_connection(std::move(connectionName))
    { }

    bool openDatabase(QString* error);
    void closeDatabase();
    void write(LogBatch batch);
    void setRetention(int days, qint64 bytes)
    {
        m_retentionDays = days;
        m_retentionBytes = bytes;
    }
    void prune(bool force);

Q_SIGNALS:
    void committed(qint64 upToSequence);
    void writeFailed(const QString& message);
    void pruned(int calls, int wireRows);

private:
    bool fail(const QSqlError& error, QString* message);
    bool exec(QSqlQuery& query, const QString& sql, QString* message);
    void writeQueue();
    bool writeBatch(const LogBatch& batch, QString* message);
    bool markInterrupted(QString* message);

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;
    QList<LogBatch> m_queue;
    QTimer* m_retryTimer = nullptr;
    QString m_lastFailure;
    int m_retentionDays = 0;
    qint64 m_retentionBytes = 0;
    qint64 m_lastPrune = 0;
};

bool LogStoreWorker::fail(const QSqlError& error, QString* message)
{
    if (message)
        *message = describe(m_path, error);
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
        *error = logText("%1 is read-only; McpScope cannot write its call log there").arg(m_path);
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
            *error = logText("%1 was written by a newer McpScope (call log schema %2; this version reads up to %3)")
                         .arg(m_path)
                         .arg(version)
                         .arg(LogStore::SchemaVersion);
            ok = false;
        }
        ok = ok && exec(query, QStringLiteral("PRAGMA journal_mode=WAL"), error) && query.next();
        if (ok && query.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
            *error = logText("%1 cannot be opened for writing (journal mode stays %2)")
                         .arg(m_path, query.value(0).toString());
            ok = false;
        }
        ok = ok && exec(query, QStringLiteral("PRAGMA synchronous=NORMAL"), error);
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
    if (!ok) {
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
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connection);
}

void LogStoreWorker::write(LogBatch batch)
{
    m_queue.append(std::move(batch));
    // While failing, the retry timer decides when to try again.
    if (!m_retryTimer->isActive())
        writeQueue();
}

bool LogStoreWorker::writeBatch(const LogBatch& batch, QString* message)
{
    QSqlQuery call(m_db);
    call.prepare(
        QStringLiteral("INSERT OR REPLACE INTO calls(call_id, server, tool, method, started_at, ended_at, "
                       "outcome, rule, attempts, compressed, record) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const LogBatch::Call& item : batch.calls) {
        const CallSummary& s = item.summary;
        const Encoded encoded = encode(QJsonDocument(item.record).toJson(QJsonDocument::Compact));
        call.addBindValue(s.callId);
        call.addBindValue(s.server);
        call.addBindValue(s.tool);
        call.addBindValue(s.method);
        call.addBindValue(s.startedAt);
        call.addBindValue(s.endedAt);
        call.addBindValue(outcomeName(s.outcome));
        call.addBindValue(s.rule);
        call.addBindValue(s.attempts);
        call.addBindValue(encoded.compressed);
        call.addBindValue(encoded.blob);
        if (!call.exec())
            return fail(call.lastError(), message);
    }
    QSqlQuery wire(m_db);
    wire.prepare(QStringLiteral("INSERT INTO wire(at, server, direction, compressed, payload) VALUES(?, ?, ?, ?, ?)"));
    for (const LogBatch::Wire& item : batch.wire) {
        const Encoded encoded = encode(item.payload);
        wire.addBindValue(item.at);
        wire.addBindValue(item.server);
        wire.addBindValue(directionName(item.direction));
        wire.addBindValue(encoded.compressed);
        wire.addBindValue(encoded.blob);
        if (!wire.exec())
            return fail(wire.lastError(), message);
    }
    return true;
}

void LogStoreWorker::writeQueue()
{
    if (m_queue.isEmpty() || !m_db.isOpen())
        return;
    QString message;
    bool ok = m_db.transaction() || fail(m_db.lastError(), &message);
    for (qsizetype i = 0; ok && i < m_queue.size(); ++i)
        ok = writeBatch(m_queue.at(i), &message);
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
    const qint64 upTo = m_queue.constLast().upToSequence;
    m_queue.clear();
    m_lastFailure.clear();
    Q_EMIT committed(upTo);
    prune(false);
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

LogStore::LogStore(QObject* parent)
    : QObject(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(FlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &LogStore::flush);
    m_thread.setObjectName(QStringLiteral("LogStore"));
}

LogStore::~LogStore()
{
    close();
}

bool LogStore::open(const QString& path, QString* error)
{
    close();
    const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    auto* worker = new LogStoreWorker(path, QStringLiteral("mcpscope-log-write-") + id);
    worker->moveToThread(&m_thread);
    m_thread.start();
    bool ok = false;
    QString message;
    QMetaObject::invokeMethod(
        worker, [worker, &ok, &message] { ok = worker->openDatabase(&message); }, Qt::BlockingQueuedConnection);
    if (ok) {
        m_readConnection = QStringLiteral("mcpscope-log-read-") + id;
        QSqlDatabase reader = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_readConnection);
        reader.setDatabaseName(path);
        reader.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=2000"));
        if (!reader.open()) {
            message = describe(path, reader.lastError());
            ok = false;
            reader = QSqlDatabase();
            QSqlDatabase::removeDatabase(m_readConnection);
            m_readConnection.clear();
            QMetaObject::invokeMethod(
                worker, [worker] { worker->closeDatabase(); }, Qt::BlockingQueuedConnection);
        }
    }
    if (!ok) {
        m_thread.quit();
        m_thread.wait();
        delete worker;
        if (error)
            *error = message;
        return false;
    }
    m_worker = worker;
    m_path = path;
    m_sequence = 0;
    m_committed = 0;
    m_prunedCalls = 0;
    m_prunedWire = 0;
    connect(worker, &LogStoreWorker::committed, this, &LogStore::onCommitted);
    connect(worker, &LogStoreWorker::writeFailed, this, &LogStore::writeFailed);
    connect(worker, &LogStoreWorker::pruned, this, &LogStore::onPruned);
    setRetention(m_retentionDays, m_retentionBytes);
    if (error)
        error->clear();
    return true;
}

void LogStore::close()
{
    if (!m_worker)
        return;
    flush();
    LogStoreWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->closeDatabase(); }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    // The thread has finished, so nothing else can touch the worker.
    delete worker;
    m_worker = nullptr;
    QSqlDatabase::removeDatabase(m_readConnection);
    m_readConnection.clear();
    m_unsaved.clear();
    m_path.clear();
}

void LogStore::setEngine(Engine* engine)
{
    if (m_engine == engine)
        return;
    if (m_engine)
        m_engine->unfollow(this);
    m_engine = engine;
    if (engine)
        engine->follow(this, [this](ServerConnection* connection) { attachConnection(connection); });
}

void LogStore::attachConnection(ServerConnection* connection)
{
    m_redactor.addServer(connection->config());
    connect(connection, &ServerConnection::callUpdated, this, &LogStore::append, Qt::UniqueConnection);
    const QString server = connection->name();
    connect(
        connection, &ServerConnection::traffic, this, [this, server](WireDirection direction, const QByteArray& bytes) {
            appendWire(server, direction, bytes, QDateTime::currentMSecsSinceEpoch());
        });
}

qint64 LogStore::append(const CallRecord& record)
{
    if (!m_worker)
        return 0;
    const qint64 sequence = ++m_sequence;
    LogBatch::Call call;
    call.summary = { record.callId, record.server, record.tool, record.method, record.startedAt, record.endedAt,
        record.outcome, record.rule, int(record.attempts.size()) };
    call.record = m_redactor.redactRecord(record);
    m_unsaved.insert(record.callId, { sequence, call.record });
    const auto it = m_pendingIndex.constFind(record.callId);
    if (it != m_pendingIndex.constEnd()) {
        m_pending.calls[*it] = std::move(call);
    } else {
        m_pendingIndex.insert(record.callId, m_pending.calls.size());
        m_pending.calls.append(std::move(call));
    }
    m_pending.upToSequence = sequence;
    scheduleFlush();
    return sequence;
}

qint64 LogStore::appendWire(const QString& server, WireDirection direction, const QByteArray& bytes, qint64 at)
{
    if (!m_worker)
        return 0;
    const qint64 sequence = ++m_sequence;
    m_pending.wire.append({ at, server, direction, m_redactor.redactWire(bytes) });
    m_pending.upToSequence = sequence;
    scheduleFlush();
    return sequence;
}

void LogStore::scheduleFlush()
{
    if (m_pending.calls.size() + m_pending.wire.size() >= MaxBatch)
        flush();
    else if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void LogStore::flush()
{
    m_flushTimer.stop();
    if (!m_worker || (m_pending.calls.isEmpty() && m_pending.wire.isEmpty()))
        return;
    LogStoreWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, batch = std::exchange(m_pending, {})]() mutable { worker->write(std::move(batch)); },
        Qt::QueuedConnection);
    m_pendingIndex.clear();
}

void LogStore::onCommitted(qint64 upToSequence)
{
    m_committed = upToSequence;
    for (auto it = m_unsaved.begin(); it != m_unsaved.end();) {
        if (it->sequence <= upToSequence)
            it = m_unsaved.erase(it);
        else
            ++it;
    }
    Q_EMIT committed(upToSequence);
}

void LogStore::onPruned(int calls, int wireRows)
{
    m_prunedCalls += calls;
    m_prunedWire += wireRows;
    Q_EMIT pruned(calls, wireRows);
}

void LogStore::setRetention(int maxAgeDays, qint64 maxBytes)
{
    m_retentionDays = std::max(0, maxAgeDays);
    m_retentionBytes = std::max<qint64>(0, maxBytes);
    if (!m_worker)
        return;
    LogStoreWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, days = m_retentionDays, bytes = m_retentionBytes] { worker->setRetention(days, bytes); },
        Qt::QueuedConnection);
}

void LogStore::pruneNow()
{
    if (!m_worker)
        return;
    flush();
    LogStoreWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->prune(true); }, Qt::QueuedConnection);
}

std::optional<CallRecord> LogStore::record(const QString& callId) const
{
    const auto it = m_unsaved.constFind(callId);
    if (it != m_unsaved.constEnd())
        return CallRecord::fromJson(it->record);
    if (m_readConnection.isEmpty())
        return std::nullopt;
    QSqlQuery query(QSqlDatabase::database(m_readConnection));
    query.prepare(QStringLiteral("SELECT compressed, record FROM calls WHERE call_id = ?"));
    query.addBindValue(callId);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return decodeRecord(query.value(1).toByteArray(), query.value(0).toBool());
}

QList<CallSummary> LogStore::recentCalls(int limit) const
{
    QList<CallSummary> calls;
    if (m_readConnection.isEmpty())
        return calls;
    QSqlQuery query(QSqlDatabase::database(m_readConnection));
    query.prepare(QStringLiteral("SELECT call_id, server, tool, method, started_at, ended_at, outcome, rule, attempts "
                                 "FROM calls ORDER BY started_at DESC LIMIT ?"));
    query.addBindValue(limit);
    if (!query.exec())
        return calls;
    while (query.next()) {
        calls.append({ query.value(0).toString(), query.value(1).toString(), query.value(2).toString(),
            query.value(3).toString(), query.value(4).toLongLong(), query.value(5).toLongLong(),
            outcomeFromName(query.value(6).toString()).value_or(CallOutcome::Pending), query.value(7).toString(),
            query.value(8).toInt() });
    }
    return calls;
}

qint64 LogStore::callCount() const
{
    if (m_readConnection.isEmpty())
        return 0;
    const QSqlDatabase db = QSqlDatabase::database(m_readConnection);
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT COUNT(*) FROM calls")) || !query.next())
        return 0;
    qint64 count = query.value(0).toLongLong();
    QSqlQuery exists(db);
    exists.prepare(QStringLiteral("SELECT 1 FROM calls WHERE call_id = ?"));
    for (auto it = m_unsaved.constBegin(); it != m_unsaved.constEnd(); ++it) {
        exists.addBindValue(it.key());
        if (exists.exec() && !exists.next())
            ++count;
    }
    return count;
}

qint64 LogStore::wireCount() const
{
    if (m_readConnection.isEmpty())
        return 0;
    QSqlQuery query(QSqlDatabase::database(m_readConnection));
    if (!query.exec(QStringLiteral("SELECT COUNT(*) FROM wire")) || !query.next())
        return 0;
    return query.value(0).toLongLong();
}

std::optional<QByteArray> LogStore::wirePayload(qint64 id) const
{
    if (m_readConnection.isEmpty())
        return std::nullopt;
    QSqlQuery query(QSqlDatabase::database(m_readConnection));
    query.prepare(QStringLiteral("SELECT compressed, payload FROM wire WHERE id = ?"));
    query.addBindValue(id);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return decode(query.value(1).toByteArray(), query.value(0).toBool());
}

} // namespace mcpscope

#include "logstore.moc"
