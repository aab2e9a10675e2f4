#pragma once

#include "calllog/callrecord.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace mcpscope {

struct CallSummary;

/// Reads a call log written by LogStore, read-only and streaming, for exports of any size.
///
/// It opens its own SQLite connection, so it may run on a worker thread while the LogStore of the
/// same file keeps writing (WAL lets readers and the writer proceed together; the reader sees the
/// calls committed when a read began). A LogStoreReader is used only in the thread that called
/// open(); it emits no signals. Its reads block, so they run on worker threads (LogStore's reads, exports)
/// and in tests, never on the GUI thread.
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
    /// Whether the call is committed.
    bool contains(const QString& callId);
    /// The committed record of the call; nullopt when it is not there or cannot be read.
    std::optional<CallRecord> record(const QString& callId);
    /// Newest first, by start time.
    QList<CallSummary> recentCalls(int limit);
    /// Wire rows; -1 on a read error.
    qint64 wireCount();
    /// The wire payload bytes of row id (1-based, in append order), decompressed.
    std::optional<QByteArray> wirePayload(qint64 id);

private:
    QString m_path;
    QString m_connection;
};

} // namespace mcpscope
