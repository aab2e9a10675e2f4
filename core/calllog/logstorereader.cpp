#include "logstorereader.h"

#include "logstore.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <QVariant>

namespace mcpscope {

namespace detail {
QString describeLogStoreError(const QString& path, const QSqlError& error); // logstore.cpp
}

namespace {
QString readerText(const char* text)
{
    return QCoreApplication::translate("LogStoreReader", text);
}

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
        return setError(error, readerText("Cannot open the call log %1: the file does not exist").arg(path));
    if (info.isDir())
        return setError(error, readerText("Cannot open the call log %1: it is a directory").arg(path));
    const QString connection
        = QStringLiteral("mcpscope-log-reader-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    QString message;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"));
        if (!db.open()) {
            message = detail::describeLogStoreError(path, db.lastError());
        } else {
            QSqlQuery query(db);
            if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next()) {
                message = detail::describeLogStoreError(path, query.lastError());
            } else if (const int version = query.value(0).toInt(); version > LogStore::SchemaVersion) {
                message = readerText("%1 was written by a newer McpScope (call log schema %2; this version reads up "
                                     "to %3)")
                              .arg(path)
                              .arg(version)
                              .arg(LogStore::SchemaVersion);
            } else if (!query.exec(QStringLiteral("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
                                                  "'calls'"))) {
                message = detail::describeLogStoreError(path, query.lastError());
            } else if (!query.next()) {
                message = readerText("%1 is not a call log: it has no calls table").arg(path);
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
        return setError(error, readerText("The call log is not open"));
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    // Forward-only: rows are streamed from SQLite, never cached, so memory stays flat for any size.
    query.setForwardOnly(true);
    // The started_at index yields (started_at, rowid) order; the writer's upsert keeps a call's rowid
    // from its first write, so ties come out in insertion order.
    if (!query.exec(QStringLiteral("SELECT call_id, compressed, record FROM calls ORDER BY started_at, rowid")))
        return setError(error, detail::describeLogStoreError(m_path, query.lastError()));
    while (query.next()) {
        const bool compressed = query.value(1).toBool();
        QByteArray json = query.value(2).toByteArray();
        if (compressed) {
            json = qUncompress(json);
            if (json.isEmpty())
                return setError(error,
                    readerText("%1 is damaged: the record of call %2 cannot be decompressed")
                        .arg(m_path, query.value(0).toString()));
        }
        if (!fn(query.value(0).toString(), json))
            return true;
    }
    if (query.lastError().isValid())
        return setError(error, detail::describeLogStoreError(m_path, query.lastError()));
    return true;
}

qint64 LogStoreReader::count(QString* error)
{
    if (m_connection.isEmpty()) {
        setError(error, readerText("The call log is not open"));
        return -1;
    }
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(QStringLiteral("SELECT COUNT(*) FROM calls")) || !query.next()) {
        setError(error, detail::describeLogStoreError(m_path, query.lastError()));
        return -1;
    }
    return query.value(0).toLongLong();
}

} // namespace mcpscope
