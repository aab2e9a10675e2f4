#pragma once

#include "calllog/callrecord.h"
#include "calllog/callsummary.h"
#include "calllog/redactor.h"

#include <QByteArrayView>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

class QIODevice;

namespace mcpscope {

/// Which call records an export keeps. Empty sets and an empty text accept everything.
/// text matches the call id, server, tool (or method), rule or outcome name, case-insensitively:
/// the same meaning as the calls table's filter (CallsFilterProxy).
struct CallLogFilter
{
    QSet<QString> servers;
    QSet<QString> tools; ///< tool name for tools/call, otherwise the method
    QList<CallOutcome> outcomes;
    QString text;

    bool matches(const CallRecord& record) const;
};

/// The calls table's "tool" column: the tool name of a tools/call, otherwise the method.
QString callLabel(const CallRecord& record);

/// Streams call records into a device as JSON lines (one compact CallRecord::toJson() per line),
/// redacted. Usable from any thread.
class JsonlCallWriter
{
public:
    JsonlCallWriter(QIODevice* out, Redactor redactor);
    bool add(const CallRecord& record);
    /// A record that is already redacted (e.g. read back from the log store), as JSON text.
    bool addRedactedJson(QByteArrayView json);
    QString errorString() const;

private:
    QIODevice* m_out;
    Redactor m_redactor;
};

/// Streams the calls table as CSV: time (ISO 8601, UTC), server, tool, duration_ms, attempts, rule,
/// outcome, call_id; RFC 4180 quoting, CRLF line ends. Secret values are redacted from every field.
class CsvCallWriter
{
public:
    CsvCallWriter(QIODevice* out, Redactor redactor);
    bool begin();
    bool add(const CallSummary& call);
    QString errorString() const;

private:
    QIODevice* m_out;
    Redactor m_redactor;
};

struct CallLogReadResult
{
    QList<CallRecord> records;
    QStringList problems; ///< "calls.jsonl:17: not a call record (no callId)", one per skipped line
    bool ok = false;
    QString error; ///< set when ok is false
};

/// Reads a JSONL call log (one CallRecord::toJson() object per line), as written by
/// `mcpscope-cli --log` and CallLogWriter::writeJsonl.
class CallLogReader
{
public:
    /// Every complete, valid line becomes a record; bad lines are skipped and reported in problems.
    /// ok is false when the file cannot be read, or when it holds lines but none is a call record.
    /// An empty file (or one of blank lines only) is ok with no records.
    static CallLogReadResult read(const QString& path);
    /// The same for bytes already in memory; name stands for the file in problems and errors.
    static CallLogReadResult parse(const QByteArray& bytes, const QString& name);
};

/// Writes call records to a file atomically (QSaveFile). Records pass through a Redactor first;
/// without one, a Redactor with only the default sensitive header names is used.
class CallLogWriter
{
public:
    /// One compact CallRecord JSON object per line.
    static bool writeJsonl(const QString& path, const QList<CallRecord>& records, const CallLogFilter& filter,
        QString* error, const std::optional<Redactor>& redactor = std::nullopt);
    /// The calls table: time (ISO 8601, UTC), server, tool, duration_ms, attempts, rule, outcome, call_id;
    /// RFC 4180 quoting, CRLF line ends.
    static bool writeCsv(const QString& path, const QList<CallRecord>& records, const CallLogFilter& filter,
        QString* error, const std::optional<Redactor>& redactor = std::nullopt);

    /// How many of records the filter keeps: the number the writers write.
    static int countMatching(const QList<CallRecord>& records, const CallLogFilter& filter);
};

} // namespace mcpscope
