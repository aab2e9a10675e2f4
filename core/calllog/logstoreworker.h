#pragma once

#include "calllog/logstoreencoder.h"

#include <QList>
#include <QObject>
#include <QSqlDatabase>
#include <QString>

class QSqlError;
class QSqlQuery;
class QTimer;

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

} // namespace mcpscope
