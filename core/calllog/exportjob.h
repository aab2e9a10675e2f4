#pragma once

#include "calllog/calllogfile.h"
#include "calllog/callrecord.h"
#include "calllog/jobtracker.h"
#include "calllog/redactor.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace mcpscope {

/// What to export and where. JSONL and HAR read full records from records or from the log store at
/// storePath; CSV writes rows, the calls table as shown.
struct ExportRequest
{
    enum class Format { Jsonl, Har, Csv };

    Format format = Format::Jsonl;
    QString path;
    Redactor redactor;
    /// JSONL, HAR: committed records of this log store database (read on the worker thread), or,
    /// when empty, the records below (an opened log file).
    QString storePath;
    /// Runs on the worker before it reads storePath, e.g. to wait until the store has committed what was
    /// appended; false, with *error, ends the export.
    std::function<bool(QString* error)> beforeRead;
    QList<CallRecord> records;
    /// JSONL, HAR: only these calls (the visible rows or a selection); nullopt exports everything.
    std::optional<QSet<QString>> callIds;
    /// CSV: the rows, in table order.
    QList<CallSummary> rows;

    static QString formatName(Format format);
    static std::optional<Format> formatFromName(QStringView name);
    static QString suffix(Format format);
};

/// Writes an export as a JobTracker job on a worker thread, atomically (QSaveFile): a failed or
/// cancelled export leaves no file behind and any older file at the path untouched.
///
/// Signals (queued to the thread that created the job):
/// - progress(done, total), at most every 50 ms; total is 0 when it is not known in advance;
/// - finished(ok, written, message): written is the number of calls (CSV rows, HAR calls with HTTP
///   traffic count their entries in message); message names the file and, on failure, what went
///   wrong, or says the export was cancelled.
class ExportJob : public QObject
{
    Q_OBJECT
public:
    explicit ExportJob(ExportRequest request, QObject* parent = nullptr);
    /// Cancels a running export without waiting for it: the worker stops at its next record and writes
    /// nothing, and no signal of the job arrives any more.
    ~ExportJob() override;

    void start();
    /// Asks the worker to stop; finished(false, …, "cancelled") follows. Safe before start():
    /// the export then ends at once without writing.
    void cancel();
    bool isRunning() const { return m_jobs.isJobRunning(); }
    bool wasCancelled() const { return m_cancel->load(); }
    const ExportRequest& request() const { return *m_request; }

Q_SIGNALS:
    void progress(qint64 done, qint64 total);
    void finished(bool ok, int written, const QString& message);

private:
    struct Outcome
    {
        bool ok = false;
        int written = 0;
        int entries = 0;
        QString message;
    };
    static Outcome run(const ExportRequest& request, const std::atomic<bool>& cancel,
        const std::function<void(qint64, qint64)>& progress);

    /// Shared with the worker, which may outlive the job.
    std::shared_ptr<const ExportRequest> m_request;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    JobTracker m_jobs { this };
    bool m_started = false;
};

} // namespace mcpscope
