#include "logstorereader.h"

#include "logstore.h"
#include "logstoreencoder.h"
#include "logstoreerror.h"

#include "jsonrpc/translation.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <QVariant>

namespace mcpscope {

namespace {
bool setError(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}
} // namespace

LogStoreReader::LogStoreReader() = default;

LogStoreReader::~LogStoreReader()
{
    close();
}

bool LogStoreReader::open(const QString& path, QString* error)
{
    close();
    const QFileInfo info(path);
    if (!info.exists())
        return setError(error, McpScope::tr("Cannot open the call log %1: the file does not exist").arg(path));
    if (info.isDir())
        return setError(error, McpScope::tr("Cannot open the call log %1: it is a directory").arg(path));
    const QString connection
        = QStringLiteral("mcpscope-log-reader-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    QString message;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
        if (!db.open()) {
            message = describeLogStoreError(path, db.lastError());
        } else {
            QSqlQuery query(db);
            if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next()) {
                message = describeLogStoreError(path, query.lastError());
            } else if (const int version = query.value(0).toInt(); version > LogStore::SchemaVersion) {
                message = McpScope::tr("%1 was written by a newer McpScope (call log schema %2; this version reads up "
                                       "to %3)")
                              .arg(path)
                              .arg(version)
                              .arg(LogStore::SchemaVersion);
            } else if (!query.exec(QStringLiteral("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
                                                  "'calls'"))) {
                message = describeLogStoreError(path, query.lastError());
            } else if (!query.next()) {
                message = McpScope::tr("%1 is not a call log: it has no calls table").arg(path);
            }
        }
        if (!message.isEmpty())
            db.close();
    }
    if (!message.isEmpty()) {
        QSqlDatabase::removeDatabase(connection);
        return setError(error, message);
    }
    m_connection = connection;
    m_path = path;
    if (error)
        error->clear();
    return true;
}

void LogStoreReader::close()
{
    if (m_connection.isEmpty())
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
    m_connection.clear();
    m_path.clear();
}

bool LogStoreReader::forEachRecordJson(
    const std::function<bool(const QString& callId, const QByteArray& json)>& fn, QString* error)
{
    if (m_connection.isEmpty())
        return setError(error, McpScope::tr("The call log is not open"));
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    // Forward-only: rows are streamed from SQLite, never cached, so memory stays flat for any size.
    query.setForwardOnly(true);
    // The started_at index yields (started_at, rowid) order; the writer's upsert keeps a call's rowid
    // from its first write, so ties come out in insertion order.
    if (!query.exec(QStringLiteral("SELECT call_id, compressed, record FROM calls ORDER BY started_at, rowid")))
        return setError(error, describeLogStoreError(m_path, query.lastError()));
    while (query.next()) {
        const bool compressed = query.value(1).toBool();
        QByteArray json = query.value(2).toByteArray();
        if (compressed) {
            json = qUncompress(json);
            if (json.isEmpty())
                return setError(error,
                    McpScope::tr("%1 is damaged: the record of call %2 cannot be decompressed")
                        .arg(m_path, query.value(0).toString()));
        }
        if (!fn(query.value(0).toString(), json))
            return true;
    }
    if (query.lastError().isValid())
        return setError(error, describeLogStoreError(m_path, query.lastError()));
    return true;
}

qint64 LogStoreReader::count(QString* error)
{
    if (m_connection.isEmpty()) {
        setError(error, McpScope::tr("The call log is not open"));
        return -1;
    }
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(QStringLiteral("SELECT COUNT(*) FROM calls")) || !query.next()) {
        setError(error, describeLogStoreError(m_path, query.lastError()));
        return -1;
    }
    return query.value(0).toLongLong();
}

bool LogStoreReader::contains(const QString& callId)
{
    if (m_connection.isEmpty())
        return false;
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(QStringLiteral("SELECT 1 FROM calls WHERE call_id = ?"));
    query.addBindValue(callId);
    return query.exec() && query.next();
}

std::optional<CallRecord> LogStoreReader::record(const QString& callId)
{
    if (m_connection.isEmpty())
        return std::nullopt;
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(QStringLiteral("SELECT compressed, record FROM calls WHERE call_id = ?"));
    query.addBindValue(callId);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return decodeRecord(query.value(1).toByteArray(), query.value(0).toBool());
}

QList<CallSummary> LogStoreReader::recentCalls(int limit)
{
    QList<CallSummary> calls;
    if (m_connection.isEmpty())
        return calls;
    calls.reserve(limit);
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true); // no row cache: one pass over up to `limit` rows
    query.prepare(QStringLiteral("SELECT call_id, server, tool, method, started_at, ended_at, outcome, rule, attempts "
                                 "FROM calls ORDER BY started_at DESC LIMIT ?"));
    query.addBindValue(limit);
    if (!query.exec())
        return calls;
    while (query.next()) {
        CallSummary call;
        call.callId = query.value(0).toString();
        call.server = query.value(1).toString();
        call.tool = query.value(2).toString();
        call.method = query.value(3).toString();
        call.startedAt = query.value(4).toLongLong();
        call.endedAt = query.value(5).toLongLong();
        call.outcome = outcomeFromName(query.value(6).toString()).value_or(CallOutcome::Pending);
        call.rule = query.value(7).toString();
        call.attempts = query.value(8).toInt();
        calls.append(std::move(call));
    }
    return calls;
}

qint64 LogStoreReader::wireCount()
{
    if (m_connection.isEmpty())
        return -1;
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(QStringLiteral("SELECT COUNT(*) FROM wire")) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

std::optional<QByteArray> LogStoreReader::wirePayload(qint64 id)
{
    if (m_connection.isEmpty())
        return std::nullopt;
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(QStringLiteral("SELECT compressed, payload FROM wire WHERE id = ?"));
    query.addBindValue(id);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return decode(query.value(1).toByteArray(), query.value(0).toBool());
}

} // namespace mcpscope
