#include "exportjob.h"

#include "calllog/harwriter.h"
#include "calllog/logstorereader.h"
#include "jsonrpc/enumnames.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QSaveFile>

namespace mcpscope {

namespace {
constexpr qint64 ProgressIntervalMs = 50;
} // namespace

namespace {
constexpr EnumName<ExportRequest::Format> FormatEntries[] = {
    { ExportRequest::Format::Jsonl, u"jsonl" },
    { ExportRequest::Format::Har, u"har" },
    { ExportRequest::Format::Csv, u"csv" },
};
constexpr EnumNames<ExportRequest::Format> FormatNames(FormatEntries);
} // namespace

QString ExportRequest::formatName(Format format)
{
    return FormatNames.name(format);
}

std::optional<ExportRequest::Format> ExportRequest::formatFromName(QStringView name)
{
    return FormatNames.fromName(name, Qt::CaseInsensitive);
}

QString ExportRequest::suffix(Format format)
{
    return QLatin1Char('.') + formatName(format);
}

ExportJob::ExportJob(ExportRequest request, QObject* parent)
    : QObject(parent)
    , m_request(std::make_shared<const ExportRequest>(std::move(request)))
{ }

ExportJob::~ExportJob()
{
    m_cancel->store(true);
}

void ExportJob::cancel()
{
    m_cancel->store(true);
}

void ExportJob::start()
{
    if (m_started)
        return;
    m_started = true;
    const auto request = m_request;
    const auto cancel = m_cancel;
    QPointer<ExportJob> self(this);
    m_jobs.startJob(
        [request, cancel, self] {
            return run(*request, *cancel, [self](qint64 done, qint64 total) {
                // Tested on the GUI thread: the job may be gone by the time the update arrives.
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [self, done, total] {
                        if (self)
                            Q_EMIT self->progress(done, total);
                    },
                    Qt::QueuedConnection);
            });
        },
        [this](const Outcome& outcome) { Q_EMIT finished(outcome.ok, outcome.written, outcome.message); });
}

ExportJob::Outcome ExportJob::run(
    const ExportRequest& request, const std::atomic<bool>& cancel, const std::function<void(qint64, qint64)>& progress)
{
    Outcome outcome;
    const QString& path = request.path;
    const auto cancelled = [&](QSaveFile& file) {
        file.cancelWriting();
        outcome.message = tr("Export to %1 cancelled; nothing was written.").arg(path);
        return outcome;
    };
    if (cancel.load()) {
        outcome.message = tr("Export to %1 cancelled; nothing was written.").arg(path);
        return outcome;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        outcome.message = tr("Cannot write %1: %2").arg(path, file.errorString());
        return outcome;
    }

    QElapsedTimer sinceProgress;
    sinceProgress.start();
    qint64 done = 0;
    qint64 total = 0;
    const auto step = [&] {
        ++done;
        if (sinceProgress.elapsed() >= ProgressIntervalMs) {
            sinceProgress.restart();
            progress(done, total);
        }
    };

    if (request.format == ExportRequest::Format::Csv) {
        total = request.rows.size();
        CsvCallWriter writer(&file, request.redactor);
        writer.begin();
        for (const CallSummary& row : request.rows) {
            if (cancel.load())
                return cancelled(file);
            writer.add(row);
            step();
        }
    } else {
        JsonlCallWriter jsonl(&file, request.redactor);
        HarWriter har(&file, request.redactor);
        const bool isHar = request.format == ExportRequest::Format::Har;
        if (isHar)
            har.begin();
        const auto wanted
            = [&request](const QString& callId) { return !request.callIds || request.callIds->contains(callId); };
        const auto addRecord = [&](const CallRecord& record) {
            if (isHar)
                outcome.entries += std::max(0, har.add(record));
            else
                jsonl.add(record);
            step();
        };
        if (!request.storePath.isEmpty()) {
            LogStoreReader reader;
            QString error;
            if ((request.beforeRead && !request.beforeRead(&error)) || !reader.open(request.storePath, &error)) {
                file.cancelWriting();
                outcome.message = tr("Cannot export to %1: %2").arg(path, error);
                return outcome;
            }
            total = request.callIds ? request.callIds->size() : reader.count();
            const bool read = reader.forEachRecordJson(
                [&](const QString& callId, const QByteArray& json) {
                    if (cancel.load())
                        return false;
                    if (!wanted(callId))
                        return true;
                    if (isHar || request.redactor.containsSecretValue(json)) {
                        // Stored records are redacted already; the writer redacts again, which is harmless.
                        // A record stored before the value redactor existed may still hold a secret value
                        // in plain text: it is decoded and redacted with the values this export knows.
                        addRecord(CallRecord::fromJson(QJsonDocument::fromJson(json).object()));
                    } else {
                        jsonl.addRedactedJson(json);
                        step();
                    }
                    return true;
                },
                &error);
            if (!read) {
                file.cancelWriting();
                outcome.message = tr("Cannot export to %1: %2").arg(path, error);
                return outcome;
            }
        } else {
            total = request.callIds ? request.callIds->size() : request.records.size();
            for (const CallRecord& record : request.records) {
                if (cancel.load())
                    return cancelled(file);
                if (wanted(record.callId))
                    addRecord(record);
            }
        }
        if (cancel.load())
            return cancelled(file);
        if (isHar)
            har.finish();
    }
    progress(done, total);
    if (!file.commit()) {
        outcome.message = tr("Cannot write %1: %2").arg(path, file.errorString());
        return outcome;
    }
    outcome.ok = true;
    outcome.written = int(done);
    if (request.format == ExportRequest::Format::Har)
        outcome.message = tr("Exported %n call(s) to %1", nullptr, int(done)).arg(path)
            + tr(" (%n HTTP request(s); stdio calls are only in JSONL exports)", nullptr, outcome.entries);
    else
        outcome.message = tr("Exported %n call(s) to %1", nullptr, int(done)).arg(path);
    return outcome;
}

} // namespace mcpscope
