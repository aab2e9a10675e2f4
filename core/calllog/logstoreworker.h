#pragma once

#include "calllog/logstoreencoder.h"

#include <QList>
#include <QObject>
#include <QSqlDatabase>
#include <QString>

class QSqlError;
class QSqlQuery;
class QTimer;
struct sqlite3;
struct sqlite3_stmt;

namespace mcpscope {

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
    /// Takes the connection's sqlite3 handle and prepares the persistent statements writeBatches() binds.
    bool openNative(QString* error);
    bool prepare(const QString& sql, sqlite3_stmt** statement, QString* message);
    /// Steps a bound statement (bound: the first failed bind's code, or SQLITE_OK) and resets it.
    bool step(sqlite3_stmt* statement, int bound, QString* message);
    void finalizeStatements();

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;
    sqlite3* m_native = nullptr; ///< m_db's handle, owned by the Qt driver
    sqlite3_stmt* m_callChunk = nullptr; ///< the upsert of CallsPerStatement calls
    sqlite3_stmt* m_wireInsert = nullptr;
    QList<EncodedBatch> m_queue;
    qsizetype m_queuedRows = 0;
    bool m_writeScheduled = false;
    QTimer* m_retryTimer = nullptr;
    QString m_lastFailure;
    int m_retentionDays = 0;
    qint64 m_retentionBytes = 0;
    qint64 m_lastPrune = 0;
};

} // namespace mcpscope
