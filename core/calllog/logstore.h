#pragma once

#include "calllog/callrecord.h"
#include "calllog/redactor.h"
#include "transport/transport.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <optional>

namespace mcpscope {

class Engine;
class LogStoreWorker;
class ServerConnection;

/// The columns of the calls table, without the payloads: what a calls model keeps in memory.
struct CallSummary
{
    QString callId;
    QString server;
    QString tool;
    QString method;
    qint64 startedAt = 0;
    qint64 endedAt = 0;
    CallOutcome outcome = CallOutcome::Pending;
    QString rule;
    int attempts = 0;
};

/// A redacted change waiting for its group commit. Internal to LogStore and its worker.
struct LogBatch
{
    struct Call
    {
        CallSummary summary;
        QJsonObject record;
    };
    struct Wire
    {
        qint64 at = 0;
        QString server;
        WireDirection direction = WireDirection::Outgoing;
        QByteArray payload;
    };
    QList<Call> calls;
    QList<Wire> wire;
    qint64 upToSequence = 0;
};

/// The workspace's persistent call log: every change to a call record and every wire message, in an
/// SQLite database (WAL mode) written by a worker thread.
///
/// append() and appendWire() only copy the change, redacted, into a pending batch; a 50 ms timer (or a
/// full batch) hands the batch to the worker, which writes it in one transaction (group commit). WAL
/// with synchronous=NORMAL keeps every committed transaction across a kill of the process.
///
/// Signals:
/// - committed(upToSequence) after the worker committed every change whose sequence (the value
///   append() returned) is at most upToSequence;
/// - writeFailed(message) when a commit fails (disk full, file locked or made read-only); the message
///   names the file. The changes stay in memory and are retried every second; nothing is dropped;
/// - pruned(calls, wireRows) after retention removed rows: the only way rows leave the store.
class LogStore : public QObject
{
    Q_OBJECT
public:
    static constexpr int SchemaVersion = 1;
    static constexpr int FlushIntervalMs = 50;
    static constexpr int MaxBatch = 2000;

    explicit LogStore(QObject* parent = nullptr);
    /// Commits what is pending, then closes the database.
    ~LogStore() override;

    /// Creates or opens the log at path. Calls left pending by the previous run become Interrupted.
    /// On failure returns false and sets *error to a message that names the file.
    bool open(const QString& path, QString* error = nullptr);
    /// Commits what is pending (waiting for the worker), then closes. Safe to call when not open.
    void close();
    bool isOpen() const { return m_worker != nullptr; }
    QString path() const { return m_path; }

    /// Applied to every change from the next append() on.
    void setRedactor(const Redactor& redactor) { m_redactor = redactor; }
    const Redactor& redactor() const { return m_redactor; }

    /// Follows callUpdated and traffic of every connection of engine, present and future, and
    /// redacts the secrets of each server's configuration. nullptr detaches.
    void setEngine(Engine* engine);

    /// Returns the change's sequence number, for committed(). 0 when the store is not open.
    qint64 append(const CallRecord& record);
    qint64 appendWire(const QString& server, WireDirection direction, const QByteArray& bytes, qint64 at);
    /// Hands the pending batch to the worker now instead of at the next timer tick.
    void flush();
    /// The highest sequence known committed.
    qint64 committedSequence() const { return m_committed; }

    /// Retention: finished calls older than maxAgeDays, and the oldest finished calls and wire rows
    /// while stored payload bytes exceed maxBytes, are pruned. 0 turns a limit off (the default).
    /// Pruning runs now and then after commits, at most once a minute.
    void setRetention(int maxAgeDays, qint64 maxBytes);
    int retentionDays() const { return m_retentionDays; }
    qint64 retentionBytes() const { return m_retentionBytes; }
    /// Prunes now (asynchronously); pruned() reports the result, even when nothing was pruned.
    void pruneNow();
    /// Totals since open(), for the retention indicator.
    qint64 prunedCalls() const { return m_prunedCalls; }
    qint64 prunedWireRows() const { return m_prunedWire; }

    /// The newest version of the call, from memory if not yet committed, else from the database.
    std::optional<CallRecord> record(const QString& callId) const;
    /// Newest first, by start time; committed calls only.
    QList<CallSummary> recentCalls(int limit) const;
    /// Calls in the store, counting those not committed yet.
    qint64 callCount() const;
    qint64 wireCount() const;
    /// The wire payload bytes of row id (1-based, in append order), decompressed.
    std::optional<QByteArray> wirePayload(qint64 id) const;

Q_SIGNALS:
    void committed(qint64 upToSequence);
    void writeFailed(const QString& message);
    void pruned(int calls, int wireRows);

private:
    void scheduleFlush();
    void onCommitted(qint64 upToSequence);
    void onPruned(int calls, int wireRows);
    void attachConnection(ServerConnection* connection);

    QString m_path;
    QString m_readConnection;
    QThread m_thread;
    LogStoreWorker* m_worker = nullptr;
    QTimer m_flushTimer;
    Redactor m_redactor;
    QPointer<Engine> m_engine;

    LogBatch m_pending;
    QHash<QString, qsizetype> m_pendingIndex; ///< call id -> index in m_pending.calls
    struct Unsaved
    {
        qint64 sequence = 0;
        QJsonObject record;
    };
    QHash<QString, Unsaved> m_unsaved; ///< appended but not known committed
    qint64 m_sequence = 0;
    qint64 m_committed = 0;
    int m_retentionDays = 0;
    qint64 m_retentionBytes = 0;
    qint64 m_prunedCalls = 0;
    qint64 m_prunedWire = 0;
};

} // namespace mcpscope
