#include "logstore.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSemaphore>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStorageInfo>
#include <QUuid>
#include <QVariant>

#include <algorithm>
#include <array>
#include <memory>

#ifdef Q_OS_UNIX
#include <sys/resource.h>
#endif

namespace mcpscope {

namespace {
/// Payloads above this are compressed. zlib's set-up alone costs tens of microseconds, more than a
/// small record saves; records of a few attempts stay plain, large results (and wire bodies) shrink.
constexpr qsizetype CompressAbove = 4096;
constexpr int RetryIntervalMs = 1000;
constexpr qint64 AutoPruneIntervalMs = 60 * 1000;
constexpr qint64 DayMs = 24LL * 60 * 60 * 1000;
constexpr int PruneChunk = 500;
/// Rows the worker gathers into one transaction at most; more wait for the next one.
constexpr qsizetype MaxTransactionRows = 10000;
/// The writing connection's page cache.
constexpr int WriteCacheKiB = 32 * 1024;
/// WAL pages (4 KB each by default) after which a commit folds the WAL back into the database.
constexpr int CheckpointPages = 10000;
/// Calls per multi-row upsert: one statement, and one trip through Qt Sql and SQLite's VM set-up, for
/// many rows. Their 11 parameters each stay under 999, the smallest per-statement limit SQLite builds have.
constexpr qsizetype CallsPerStatement = 64;
constexpr int CallColumns = 11;

// Primary SQLite result codes (sqlite3.h); the Qt driver reports them as nativeErrorCode().
enum SqliteCode {
    SqliteBusy = 5,
    SqliteLocked = 6,
    SqliteReadOnly = 8,
    SqliteIoErr = 10,
    SqliteCorrupt = 11,
    SqliteFull = 13,
    SqliteCantOpen = 14,
    SqliteNotADb = 26,
};

int sqliteCode(const QSqlError& error)
{
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    if (ok)
        return code & 0xff;
    // Some driver errors (a failed COMMIT) carry SQLite's message but no code: sqlite3_errstr()'s texts.
    const QString text = error.databaseText();
    if (text.contains(QLatin1String("database or disk is full")))
        return SqliteFull;
    if (text.contains(QLatin1String("disk I/O error")))
        return SqliteIoErr;
    if (text.contains(QLatin1String("database is locked")))
        return SqliteBusy;
    if (text.contains(QLatin1String("readonly database")))
        return SqliteReadOnly;
    return -1;
}

QString logText(const char* text)
{
    return QCoreApplication::translate("LogStore", text);
}

/// Why writing path may fail for lack of room: a file size limit of this process (ulimit -f) the log
/// has reached, or a disk without free space. Empty when neither is the case.
QString spaceProblem(const QString& path)
{
#ifdef Q_OS_UNIX
    rlimit limit {};
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        // A page or a WAL frame that does not fit is what fails, so "near the limit" counts.
        constexpr qint64 Slack = 64 * 1024;
        const qint64 largest = std::max(QFileInfo(path).size(), QFileInfo(path + QStringLiteral("-wal")).size());
        if (largest + Slack >= qint64(limit.rlim_cur))
            return logText("the file size limit of %1 bytes is reached (the disk is full for this process)")
                .arg(qint64(limit.rlim_cur));
    }
#endif
    const QStorageInfo storage(QFileInfo(path).absolutePath());
    if (storage.isValid() && storage.bytesAvailable() >= 0 && storage.bytesAvailable() < 1024 * 1024)
        return logText("the disk is full");
    return {};
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
    case SqliteFull: {
        const QString why = spaceProblem(path);
        return logText("Cannot write the call log %1: %2").arg(path, why.isEmpty() ? logText("the disk is full") : why);
    }
    case SqliteIoErr: {
        // A write refused for lack of room is an I/O error when not even a partial write fit.
        const QString why = spaceProblem(path);
        if (!why.isEmpty())
            return logText("Cannot write the call log %1: %2").arg(path, why);
        return logText("Cannot write the call log %1: %2").arg(path, error.databaseText());
    }
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

char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

char asciiUpper(char c)
{
    return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c;
}

/// The sensitive header names of a redactor, lowercased, for NameSearch. Empty optional when a
/// name is not plain ASCII: then only the full redaction is exact.
std::optional<QList<QByteArray>> asciiNames(const Redactor& redactor)
{
    QList<QByteArray> names;
    for (const QString& name : redactor.sensitiveHeaders()) {
        for (QChar c : name) {
            if (c.unicode() > 0x7f)
                return std::nullopt;
        }
        if (!name.isEmpty())
            names.append(name.toLower().toLatin1());
    }
    return names;
}

/// Finds any of some names (lowercase ASCII, none empty) in text, ignoring ASCII case. Runs on every
/// record, so it is Horspool's search for all names at once: a window as long as the shortest name moves
/// by what its last byte allows, and most bytes of the text are never looked at.
class NameSearch
{
public:
    explicit NameSearch(const QList<QByteArray>& names)
    {
        // A name that contains another ("set-cookie", "cookie") is found whenever it is: only the shorter
        // one is searched for. Fewer names leave fewer bytes that stop the window or shorten its moves.
        for (const QByteArray& name : names) {
            const bool redundant = std::any_of(names.cbegin(), names.cend(),
                [&name](const QByteArray& other) { return other.size() < name.size() && name.contains(other); });
            if (!redundant && !m_names.contains(name))
                m_names.append(name);
        }
        if (m_names.isEmpty())
            return;
        m_window = m_names.first().size();
        for (const QByteArray& name : std::as_const(m_names))
            m_window = std::min(m_window, name.size());
        // m_skip[c]: how far the window may move when its last byte is c without passing the start of a
        // name; m_ends[c]: the first m_window bytes of some name end in c, so the names are compared there.
        m_skip.fill(m_window);
        for (const QByteArray& name : std::as_const(m_names)) {
            for (qsizetype j = 0; j + 1 < m_window; ++j) {
                for (const char c : { name.at(j), asciiUpper(name.at(j)) })
                    m_skip[uchar(c)] = std::min(m_skip[uchar(c)], m_window - 1 - j);
            }
            for (const char c : { name.at(m_window - 1), asciiUpper(name.at(m_window - 1)) })
                m_ends[uchar(c)] = true;
        }
    }

    bool foundIn(QByteArrayView text) const
    {
        if (m_names.isEmpty())
            return false;
        const char* data = text.data();
        const qsizetype size = text.size();
        for (qsizetype i = 0; i + m_window <= size; i += m_skip[uchar(data[i + m_window - 1])]) {
            if (!m_ends[uchar(data[i + m_window - 1])])
                continue;
            for (const QByteArray& name : m_names) {
                if (name.size() > size - i)
                    continue;
                qsizetype k = 0;
                while (k < name.size() && asciiLower(data[i + k]) == name.at(k))
                    ++k;
                if (k == name.size())
                    return true;
            }
        }
        return false;
    }

private:
    QList<QByteArray> m_names;
    qsizetype m_window = 0;
    std::array<qsizetype, 256> m_skip {};
    std::array<bool, 256> m_ends {};
};

/// A call as the calls table stores it: summary columns plus the redacted record.
struct CallRow
{
    QString callId;
    QString server;
    QString tool;
    QString method;
    qint64 startedAt = 0;
    qint64 endedAt = 0;
    QString outcome;
    QString rule;
    int attempts = 0;
    Encoded record;
};

struct WireRow
{
    qint64 at = 0;
    QString server;
    QString direction;
    Encoded payload;
};

struct EncodedBatch
{
    QList<CallRow> calls;
    QList<WireRow> wire;
    qint64 upToSequence = 0;
};

/// Serializes and redacts a batch. Most records hold no secret: their JSON text mentions no sensitive
/// header name and no secret value (redactWire() finds nothing), and then Redactor::redactRecord() would
/// return the record unchanged, so the text is stored as it is. Any hit takes the full redaction, whose
/// output is exactly what redactRecord() gives. NameSearch has looked for the names already, so only
/// a text holding a secret value pays for redactWire(), whose own scan would look for the names again.
EncodedBatch encodeBatch(const LogBatch& batch)
{
    const Redactor& redactor = batch.redactor;
    const std::optional<QList<QByteArray>> names = asciiNames(redactor);
    const std::optional<NameSearch> search = names ? std::optional<NameSearch>(*names) : std::nullopt;
    EncodedBatch out;
    out.upToSequence = batch.upToSequence;
    out.calls.reserve(batch.calls.size());
    for (const CallRecord& record : batch.calls) {
        QByteArray json = record.toCompactJson();
        CallRow row { record.callId, record.server, record.tool, record.method, record.startedAt, record.endedAt,
            outcomeName(record.outcome), record.rule, int(record.attempts.size()), {} };
        const bool clean = search && !search->foundIn(json)
            && (!redactor.containsSecretValue(json) || redactor.redactWire(json) == json);
        if (!clean) {
            json = QJsonDocument(redactor.redactRecord(record)).toJson(QJsonDocument::Compact);
            row.server = redactor.redactText(row.server);
            row.tool = redactor.redactText(row.tool);
            row.method = redactor.redactText(row.method);
            row.rule = redactor.redactText(row.rule);
        }
        row.record = encode(json);
        out.calls.append(std::move(row));
    }
    out.wire.reserve(batch.wire.size());
    for (const LogBatch::Wire& item : batch.wire)
        out.wire.append(
            { item.at, item.server, wireDirectionName(item.direction), encode(redactor.redactWire(item.payload)) });
    return out;
}
} // namespace

namespace detail {
QString describeLogStoreError(const QString& path, const QSqlError& error)
{
    return describe(path, error);
}
} // namespace detail

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
    void write(EncodedBatch batch);
    /// Writes what is queued now, even while a retry waits. True when nothing is left queued.
    bool writeNow(QString* message);
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
    bool writeBatches(qsizetype count, QString* message);
    bool markInterrupted(QString* message);

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;
    QList<EncodedBatch> m_queue;
    qsizetype m_queuedRows = 0;
    bool m_writeScheduled = false;
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
        // The default cache (2 MB) holds too little of the call-id index: under a flood each upsert
        // would read its index pages back from the OS. A bound, not an allocation: pages come as used.
        ok = ok && exec(query, QStringLiteral("PRAGMA cache_size=-%1").arg(WriteCacheKiB), error);
        // Checkpoints every ~40 MB of WAL rather than every 4 MB: a page that several transactions changed
        // (an index page, the table's last page) is copied into the database once instead of each time.
        // Only when the WAL is folded back changes; every commit is as durable as before.
        ok = ok && exec(query, QStringLiteral("PRAGMA wal_autocheckpoint=%1").arg(CheckpointPages), error);
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
        *message = logText("The call log %1 is closed").arg(m_path);
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

void bindCall(QSqlQuery& query, int first, const CallRow& row)
{
    query.bindValue(first, row.callId);
    query.bindValue(first + 1, row.server);
    query.bindValue(first + 2, row.tool);
    query.bindValue(first + 3, row.method);
    query.bindValue(first + 4, row.startedAt);
    query.bindValue(first + 5, row.endedAt);
    query.bindValue(first + 6, row.outcome);
    query.bindValue(first + 7, row.rule);
    query.bindValue(first + 8, row.attempts);
    query.bindValue(first + 9, row.record.compressed);
    query.bindValue(first + 10, row.record.blob);
}
} // namespace

bool LogStoreWorker::writeBatches(qsizetype count, QString* message)
{
    QList<const CallRow*> calls;
    for (qsizetype b = 0; b < count; ++b) {
        for (const CallRow& row : m_queue.at(b).calls)
            calls.append(&row);
    }
    // Full chunks share one statement; the rest of the rows take one statement sized for them.
    QSqlQuery chunk(m_db);
    if (calls.size() >= CallsPerStatement && !chunk.prepare(callUpsert(CallsPerStatement)))
        return fail(chunk.lastError(), message);
    const qsizetype tail = calls.size() % CallsPerStatement;
    QSqlQuery rest(m_db);
    if (tail > 0 && !rest.prepare(callUpsert(tail)))
        return fail(rest.lastError(), message);
    for (qsizetype first = 0; first < calls.size(); first += CallsPerStatement) {
        const qsizetype rows = std::min(CallsPerStatement, calls.size() - first);
        QSqlQuery& call = rows == CallsPerStatement ? chunk : rest;
        for (qsizetype i = 0; i < rows; ++i)
            bindCall(call, int(i * CallColumns), *calls.at(first + i));
        if (!call.exec())
            return fail(call.lastError(), message);
    }
    QSqlQuery wire(m_db);
    if (!wire.prepare(
            QStringLiteral("INSERT INTO wire(at, server, direction, compressed, payload) VALUES(?, ?, ?, ?, ?)")))
        return fail(wire.lastError(), message);
    for (qsizetype b = 0; b < count; ++b) {
        for (const WireRow& row : m_queue.at(b).wire) {
            wire.bindValue(0, row.at);
            wire.bindValue(1, row.server);
            wire.bindValue(2, row.direction);
            wire.bindValue(3, row.payload.compressed);
            wire.bindValue(4, row.payload.blob);
            if (!wire.exec())
                return fail(wire.lastError(), message);
        }
    }
    return true;
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

LogStore::LogStore(QObject* parent)
    : QObject(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(FlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &LogStore::flush);
    m_thread.setObjectName(QStringLiteral("LogStore"));
    m_encodeThread.setObjectName(QStringLiteral("LogStore encoder"));
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
    m_encoder = new QObject;
    m_encoder->moveToThread(&m_encodeThread);
    m_encodeThread.start();
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
    // Once the encoder has run everything posted to it, every batch is on its way to the worker, ahead of
    // closeDatabase(), which writes them.
    QMetaObject::invokeMethod(
        m_encoder, [] {}, Qt::BlockingQueuedConnection);
    LogStoreWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->closeDatabase(); }, Qt::BlockingQueuedConnection);
    m_encodeThread.quit();
    m_encodeThread.wait();
    m_thread.quit();
    m_thread.wait();
    // The threads have finished, so nothing else can touch the worker or the encoder.
    delete worker;
    m_worker = nullptr;
    delete m_encoder;
    m_encoder = nullptr;
    QSqlDatabase::removeDatabase(m_readConnection);
    m_readConnection.clear();
    m_pendingIndex.clear();
    m_inFlight.clear();
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
    const auto it = m_pendingIndex.constFind(record.callId);
    if (it != m_pendingIndex.constEnd()) {
        m_pending.calls[*it] = record;
    } else {
        m_pendingIndex.insert(record.callId, m_pending.calls.size());
        m_pending.calls.append(record);
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
    m_pending.wire.append({ at, server, direction, bytes });
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
    m_pending.redactor = m_redactor;
    // The calls list is shared, not copied: neither side changes it from here on.
    m_inFlight.push_back({ m_pending.upToSequence, m_pending.calls, std::exchange(m_pendingIndex, {}) });
    LogStoreWorker* worker = m_worker;
    // Encoding (serialize, redact, compress) runs on its own thread, so it overlaps the worker's SQL for
    // the batch before; one encoder keeps the batches in order.
    QMetaObject::invokeMethod(
        m_encoder,
        [worker, batch = std::exchange(m_pending, {})] {
            QMetaObject::invokeMethod(
                worker, [worker, encoded = encodeBatch(batch)]() mutable { worker->write(std::move(encoded)); },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

bool LogStore::flushAndWait(int timeoutMs, QString* error)
{
    if (!m_worker) {
        if (error)
            *error = logText("No call log is open");
        return false;
    }
    flush();
    // Shared with the worker's task, which may finish after a timeout returned.
    struct Wait
    {
        QSemaphore done;
        bool ok = false;
        QString message;
    };
    auto wait = std::make_shared<Wait>();
    LogStoreWorker* worker = m_worker;
    // Through the encoder, so the write comes after the batches flushed above.
    QMetaObject::invokeMethod(
        m_encoder,
        [worker, wait] {
            QMetaObject::invokeMethod(
                worker,
                [worker, wait] {
                    wait->ok = worker->writeNow(&wait->message);
                    wait->done.release();
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
    if (!wait->done.tryAcquire(1, std::max(0, timeoutMs))) {
        if (error)
            *error = logText("Timed out writing the call log %1").arg(m_path);
        return false;
    }
    if (error)
        *error = wait->ok ? QString() : wait->message;
    return wait->ok;
}

void LogStore::onCommitted(qint64 upToSequence)
{
    m_committed = std::max(m_committed, upToSequence);
    while (!m_inFlight.empty() && m_inFlight.front().upToSequence <= upToSequence)
        m_inFlight.pop_front();
    Q_EMIT committed(upToSequence);
}

const CallRecord* LogStore::findUncommitted(const QString& callId) const
{
    const auto pending = m_pendingIndex.constFind(callId);
    if (pending != m_pendingIndex.constEnd())
        return &m_pending.calls.at(*pending);
    for (auto batch = m_inFlight.crbegin(); batch != m_inFlight.crend(); ++batch) {
        const auto it = batch->index.constFind(callId);
        if (it != batch->index.constEnd())
            return &batch->calls.at(*it);
    }
    return nullptr;
}

qsizetype LogStore::uncommittedCalls() const
{
    QSet<QString> calls(m_pendingIndex.keyBegin(), m_pendingIndex.keyEnd());
    for (const Batch& batch : m_inFlight)
        calls.unite(QSet<QString>(batch.index.keyBegin(), batch.index.keyEnd()));
    return calls.size();
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
    // Through the encoder, so the prune comes after the batches flushed above.
    LogStoreWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        m_encoder,
        [worker] {
            QMetaObject::invokeMethod(
                worker, [worker] { worker->prune(true); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

std::optional<CallRecord> LogStore::record(const QString& callId) const
{
    if (const CallRecord* unsaved = findUncommitted(callId))
        return CallRecord::fromJson(m_redactor.redactRecord(*unsaved));
    if (m_readConnection.isEmpty())
        return std::nullopt;
    QSqlQuery query(QSqlDatabase::database(m_readConnection));
    query.prepare(QStringLiteral("SELECT compressed, record FROM calls WHERE call_id = ?"));
    query.addBindValue(callId);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return decodeRecord(query.value(1).toByteArray(), query.value(0).toBool());
}

CallTableRow CallSummary::toTableRow() const
{
    CallTableRow row;
    row.callId = callId;
    row.server = server;
    row.isToolCall = method == QLatin1String("tools/call");
    row.tool = row.isToolCall && !tool.isEmpty() ? tool : method;
    row.rule = rule;
    row.startedAt = startedAt;
    row.endedAt = endedAt;
    row.outcome = outcome;
    row.attempts = attempts;
    return row;
}

QList<CallSummary> LogStore::recentCalls(int limit) const
{
    QList<CallSummary> calls;
    if (m_readConnection.isEmpty())
        return calls;
    calls.reserve(limit);
    QSqlQuery query(QSqlDatabase::database(m_readConnection));
    query.setForwardOnly(true); // no row cache: one pass over up to `limit` rows
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
    QSet<QString> unsaved(m_pendingIndex.keyBegin(), m_pendingIndex.keyEnd());
    for (const Batch& batch : m_inFlight)
        unsaved.unite(QSet<QString>(batch.index.keyBegin(), batch.index.keyEnd()));
    for (const QString& callId : std::as_const(unsaved)) {
        exists.addBindValue(callId);
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
