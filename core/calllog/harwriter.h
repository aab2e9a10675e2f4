#pragma once

#include "calllog/callrecord.h"
#include "calllog/redactor.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

class QIODevice;

namespace mcpscope {

struct CallLogFilter;

/// Writes the HTTP traffic of call records as a HAR 1.2 document, which browser dev tools open:
/// one entry per HTTP request of every attempt (a POST, then each GET that resumed its stream),
/// from the attempts' wire exchanges. Stdio traffic has no HAR form; it stays in the JSONL log.
///
/// Records pass through the Redactor before anything is written. Each entry carries McpScope's own
/// fields under "_mcpscope" (call id, attempt, outcome, rule), as HAR allows for names with "_".
///
/// Streaming, so an export job on a worker thread needs no list of all entries: begin(), add() per
/// record, finish(). Not a QObject; a HarWriter belongs to the thread that uses it.
class HarWriter
{
public:
    explicit HarWriter(QIODevice* out, Redactor redactor = Redactor());

    /// Writes the document's head up to the opening of "entries".
    bool begin();
    /// Writes the entries of record; returns how many (0 for a stdio record or one that sent nothing),
    /// or -1 on a write error.
    int add(const CallRecord& record);
    /// Closes the document. False on a write error (see errorString()), here or earlier.
    bool finish();
    QString errorString() const { return m_error; }
    int entriesWritten() const { return m_entries; }

    /// The HAR entries of an already redacted record, in the order they were sent.
    static QList<QJsonObject> entries(const CallRecord& record);
    /// How many HAR entries records give under filter.
    static int countEntries(const QList<CallRecord>& records, const CallLogFilter& filter);

    /// Writes the records filter keeps to path atomically (QSaveFile). Without a redactor, one with
    /// the default sensitive header names is used.
    static bool write(const QString& path, const QList<CallRecord>& records, const CallLogFilter& filter,
        QString* error, const std::optional<Redactor>& redactor = std::nullopt);

private:
    bool put(const QByteArray& bytes);

    QIODevice* m_out;
    Redactor m_redactor;
    QString m_error;
    int m_entries = 0;
    bool m_failed = false;
};

} // namespace mcpscope
