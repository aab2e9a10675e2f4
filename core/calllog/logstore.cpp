#include "logstore.h"

#include "calllog/jobtracker.h"
#include "calllog/logstoreerror.h"
#include "calllog/logstorereader.h"
#include "calllog/logstoreworker.h"

#include "jsonrpc/translation.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSet>
#include <QUuid>

#include <algorithm>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <sys/resource.h>
#endif

namespace mcpscope {

namespace {
/// How much lower the store's encoder and writer threads run than the thread that opened the store.
constexpr int WorkerNice = 5;

/// The log's threads are background work: when the cores are busy (a flood of calls on 2 cores), the
/// GUI thread gets one first and the log catches up behind it; records wait in memory meanwhile, none is
/// dropped. Linux gives each thread a nice value of its own. QThread::setPriority() changes nothing under
/// Linux's default scheduling policy, short of IdlePriority, which could starve the log for as long as
/// anything else runs.
void runBehindTheGuiThread()
{
#ifdef Q_OS_LINUX
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0); // 0: the calling thread, on Linux
    if (errno == 0)
        setpriority(PRIO_PROCESS, 0, std::min(nice + WorkerNice, 19));
#endif
}
} // namespace

LogStore::LogStore(QObject* parent)
    : QObject(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(FlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &LogStore::flush);
    m_thread.setObjectName(QStringLiteral("LogStore"));
    m_readPool.setMaxThreadCount(1);
    m_readPool.setExpiryTimeout(-1);
    m_reader = std::make_shared<LogStoreReader>();
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
    // Queued to each thread, each time open() starts it, before anything else it runs. (A DirectConnection
    // to QThread::started() would do the same, but ThreadSanitizer cannot see that QThread::wait() orders
    // the thread's use of that connection before close() deletes it.)
    QMetaObject::invokeMethod(worker, runBehindTheGuiThread, Qt::QueuedConnection);
    bool ok = false;
    QString message;
    // Opening blocks, bounded by SQLite's busy timeout: open() reports a file that cannot be used at once,
    // and runs when a workspace is opened, not per call.
    QMetaObject::invokeMethod(
        worker, [worker, &ok, &message] { ok = worker->openDatabase(&message); }, Qt::BlockingQueuedConnection);
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
    QMetaObject::invokeMethod(m_encoder, runBehindTheGuiThread, Qt::QueuedConnection);
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
    // Reads already queued run first; then the reader's connection closes on the thread that opened it.
    m_readPool.start([reader = m_reader] { reader->close(); });
    m_readPool.waitForDone();
    m_pendingIndex.clear();
    m_inFlight.clear();
    m_path.clear();
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

void LogStore::flushThen(QObject* context, std::function<void(bool ok, const QString& error)> done)
{
    if (!m_worker) {
        QMetaObject::invokeMethod(
            context, [done = std::move(done)] { done(false, McpScope::tr("No call log is open")); },
            Qt::QueuedConnection);
        return;
    }
    flush();
    LogStoreWorker* worker = m_worker;
    QPointer<QObject> guard(context);
    // Through the encoder, so the write comes after the batches flushed above; the answer is posted to the
    // application object and checked there, because the context may go away meanwhile.
    QMetaObject::invokeMethod(
        m_encoder,
        [worker, guard, done = std::move(done)]() mutable {
            QMetaObject::invokeMethod(
                worker,
                [worker, guard, done = std::move(done)]() mutable {
                    QString message;
                    const bool ok = worker->writeNow(&message);
                    QMetaObject::invokeMethod(
                        QCoreApplication::instance(),
                        [guard, ok, message, done = std::move(done)] {
                            if (guard)
                                done(ok, message);
                        },
                        Qt::QueuedConnection);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void LogStore::onCommitted(qint64 upToSequence)
{
    m_committed = std::max(m_committed, upToSequence);
    std::vector<Batch> done;
    while (!m_inFlight.empty() && m_inFlight.front().upToSequence <= upToSequence) {
        done.push_back(std::move(m_inFlight.front()));
        m_inFlight.pop_front();
    }
    // Freeing a committed batch of 2,000 records took 10-30 ms here, a stall of its own (bench_calllog):
    // the encoder thread, which runs behind the GUI thread, frees them instead.
    if (m_encoder && !done.empty())
        QMetaObject::invokeMethod(
            m_encoder, [done = std::move(done)]() mutable { done.clear(); }, Qt::QueuedConnection);
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

template <typename Result, typename Read>
void LogStore::startRead(QObject* context, Read read, std::function<void(Result)> done) const
{
    if (!m_worker) {
        QMetaObject::invokeMethod(
            context, [done = std::move(done)] { done(Result {}); }, Qt::QueuedConnection);
        return;
    }
    JobTracker::run(
        &m_readPool, context,
        [reader = m_reader, path = m_path, read = std::move(read)]() -> Result {
            if (reader->path() != path && !reader->open(path))
                return Result {};
            return read(*reader);
        },
        std::move(done));
}

void LogStore::readRecord(
    const QString& callId, QObject* context, std::function<void(std::optional<CallRecord>)> done) const
{
    if (const CallRecord* unsaved = findUncommitted(callId)) {
        QMetaObject::invokeMethod(
            context,
            [done = std::move(done), record = CallRecord::fromJson(m_redactor.redactRecord(*unsaved))] {
                done(record);
            },
            Qt::QueuedConnection);
        return;
    }
    startRead<std::optional<CallRecord>>(
        context, [callId](LogStoreReader& reader) { return reader.record(callId); }, std::move(done));
}

void LogStore::readRecentCalls(int limit, QObject* context, std::function<void(QList<CallSummary>)> done) const
{
    startRead<QList<CallSummary>>(
        context, [limit](LogStoreReader& reader) { return reader.recentCalls(limit); }, std::move(done));
}

void LogStore::readCallCount(QObject* context, std::function<void(qint64)> done) const
{
    QSet<QString> unsaved(m_pendingIndex.keyBegin(), m_pendingIndex.keyEnd());
    for (const Batch& batch : m_inFlight)
        unsaved.unite(QSet<QString>(batch.index.keyBegin(), batch.index.keyEnd()));
    startRead<qint64>(
        context,
        [unsaved](LogStoreReader& reader) {
            qint64 count = std::max<qint64>(0, reader.count());
            for (const QString& callId : unsaved)
                count += reader.contains(callId) ? 0 : 1;
            return count;
        },
        std::move(done));
}

void LogStore::readWireCount(QObject* context, std::function<void(qint64)> done) const
{
    startRead<qint64>(
        context, [](LogStoreReader& reader) { return std::max<qint64>(0, reader.wireCount()); }, std::move(done));
}

void LogStore::readWirePayload(qint64 id, QObject* context, std::function<void(std::optional<QByteArray>)> done) const
{
    startRead<std::optional<QByteArray>>(
        context, [id](LogStoreReader& reader) { return reader.wirePayload(id); }, std::move(done));
}

} // namespace mcpscope
