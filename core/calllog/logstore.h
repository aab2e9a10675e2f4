#pragma once

#include "calllog/calllogfile.h"
#include "calllog/callrecord.h"
#include "calllog/callsummary.h"
#include "calllog/logstoreencoder.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"
#include "transport/transport.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QThread>
#include <QThreadPool>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace mcpscope {

class LogStoreReader;
class LogStoreWorker;

/// The workspace's persistent call log: every change to a call record and every wire message, in an
/// SQLite database (WAL mode) written by a worker thread.
///
/// append() and appendWire() only keep the change (a CallRecord copy shares its data) in a pending batch,
/// where a newer version of a call replaces the older one; a 50 ms timer (or a full batch) hands the batch
/// to an encoder thread, which redacts, serializes and compresses it, then to the worker thread, which
/// writes what has arrived in one transaction (group commit).
/// So the calling (GUI) thread pays a few hash and list operations per change, and no secret reaches the
/// file: redaction happens before anything is written. WAL with synchronous=NORMAL keeps every committed
/// transaction across a kill of the process.
///
/// Signals:
/// - committed(upToSequence) after the worker committed every change whose sequence (the value
///   append() returned) is at most upToSequence;
/// - writeFailed(message) when a commit fails (disk full, file locked or made read-only); the message
///   names the file. The changes stay in memory and are retried every second; nothing is dropped;
/// - pruned(calls, wireRows) after retention removed rows: the only way rows leave the store.
///
/// The store knows no engine: its owner feeds it (WorkspaceSession connects Engine::callUpdated to
/// append() and Engine::traffic to appendWire(), and adds each server's secrets with addServer()).
/// open() and close() block while the worker opens or closes the database (bounded by SQLite's busy
/// timeout, and only when a workspace opens or closes); reads are asynchronous jobs.
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

    /// Applied to every change handed to the worker from now on (changes are redacted when written).
    void setRedactor(const Redactor& redactor) { m_redactor = redactor; }
    const Redactor& redactor() const { return m_redactor; }

    /// Adds the secrets of a server's configuration to the redactor (what the store's owner does for each
    /// server added or changed).
    void addServer(const ServerConfig& config) { m_redactor.addServer(config); }

    /// Returns the change's sequence number, for committed(). 0 when the store is not open.
    qint64 append(const CallRecord& record);
    qint64 appendWire(const QString& server, WireDirection direction, const QByteArray& bytes, qint64 at);
    /// Hands the pending batch to the worker now instead of at the next timer tick.
    void flush();
    /// Flushes, then writes everything appended so far (trying a failing write once more rather than
    /// waiting for its retry), so another connection (an export's LogStoreReader) reads it. done(ok,
    /// error) follows on the GUI thread, unless context is gone by then; error names the file when the
    /// write failed (the changes then stay queued as always). committed() also arrives, queued.
    void flushThen(QObject* context, std::function<void(bool ok, const QString& error)> done);
    /// The highest sequence known committed.
    qint64 committedSequence() const { return m_committed; }
    /// The sequence of the newest change appended (0 before the first): committed() covers every change
    /// appended so far once it reports at least this value.
    qint64 lastSequence() const { return m_sequence; }
    /// Changes appended but not known committed (calls counted once however often they changed).
    qsizetype uncommittedCalls() const;

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

    // Reads never run SQL on the calling thread: each is a job on the store's reader thread (one
    // read-only LogStoreReader connection), and done gets the result on the GUI thread, unless context
    // was destroyed first. A store that is not open answers with an empty result, also queued.

    /// The newest version of the call, from memory if not yet committed, else from the database.
    void readRecord(const QString& callId, QObject* context, std::function<void(std::optional<CallRecord>)> done) const;
    /// Newest first, by start time; committed calls only.
    void readRecentCalls(int limit, QObject* context, std::function<void(QList<CallSummary>)> done) const;
    /// Calls in the store, counting those not committed yet.
    void readCallCount(QObject* context, std::function<void(qint64)> done) const;
    void readWireCount(QObject* context, std::function<void(qint64)> done) const;
    /// The wire payload bytes of row id (1-based, in append order), decompressed.
    void readWirePayload(qint64 id, QObject* context, std::function<void(std::optional<QByteArray>)> done) const;

Q_SIGNALS:
    void committed(qint64 upToSequence);
    void writeFailed(const QString& message);
    void pruned(int calls, int wireRows);

private:
    void scheduleFlush();
    void onCommitted(qint64 upToSequence);
    void onPruned(int calls, int wireRows);
    /// Runs read(reader) on the reader thread, with the reader open on this store's file, and delivers.
    template <typename Result, typename Read>
    void startRead(QObject* context, Read read, std::function<void(Result)> done) const;

    QString m_path;
    QThread m_thread;
    LogStoreWorker* m_worker = nullptr;
    QThread m_encodeThread;
    QObject* m_encoder = nullptr; ///< lives on m_encodeThread; turns batches into rows for the worker
    QTimer m_flushTimer;
    Redactor m_redactor;
    /// One thread that never expires, so the reader's connection stays on the thread that opened it.
    mutable QThreadPool m_readPool;
    /// Used only by jobs on m_readPool.
    std::shared_ptr<LogStoreReader> m_reader;

    /// Changes not known committed, by batch: the one being filled, then those handed to the worker
    /// (oldest first). Each knows its calls' indices, so record() finds the newest version without one big
    /// map of every uncommitted call: such a map would rehash 10^5 records on the GUI thread in one go
    /// when the worker falls behind a flood.
    struct Batch
    {
        qint64 upToSequence = 0;
        QList<CallRecord> calls; ///< shared with the LogBatch handed to the worker
        QHash<QString, qsizetype> index; ///< call id -> index in calls
    };
    LogBatch m_pending;
    QHash<QString, qsizetype> m_pendingIndex; ///< call id -> index in m_pending.calls
    std::deque<Batch> m_inFlight;
    const CallRecord* findUncommitted(const QString& callId) const;
    qint64 m_sequence = 0;
    qint64 m_committed = 0;
    int m_retentionDays = 0;
    qint64 m_retentionBytes = 0;
    qint64 m_prunedCalls = 0;
    qint64 m_prunedWire = 0;
};

} // namespace mcpscope
