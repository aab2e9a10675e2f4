#pragma once

#include <QByteArray>
#include <QString>

#include <functional>

namespace mcpscope {

/// Reads a call log written by LogStore, read-only and streaming, for exports of any size.
///
/// It opens its own SQLite connection, so it may run on a worker thread while the LogStore of the
/// same file keeps writing (WAL lets readers and the writer proceed together; the reader sees the
/// calls committed when a read began). A LogStoreReader is used only in the thread that called
/// open(); it emits no signals.
class LogStoreReader
{
public:
    LogStoreReader();
    ~LogStoreReader();
    LogStoreReader(const LogStoreReader&) = delete;
    LogStoreReader& operator=(const LogStoreReader&) = delete;

    /// Opens path read-only with its own uniquely named QSqlDatabase connection; use it only in the thread that
    /// called open().
    bool open(const QString& path, QString* error = nullptr);
    void close();
    bool isOpen() const { return !m_connection.isEmpty(); }
    QString path() const { return m_path; }

    /// Committed calls, in start order (then insertion order). fn gets the call id and the stored record as compact
    /// JSON bytes (already redacted, decompressed). Stops early, returning true, when fn returns false. Returns false
    /// with *error naming the file on a read error.
    bool forEachRecordJson(
        const std::function<bool(const QString& callId, const QByteArray& json)>& fn, QString* error = nullptr);
    /// Committed calls; -1 with *error naming the file on a read error.
    qint64 count(QString* error = nullptr);

private:
    QString m_path;
    QString m_connection;
};

} // namespace mcpscope
