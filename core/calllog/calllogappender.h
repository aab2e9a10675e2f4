#pragma once

#include "calllog/callrecord.h"

#include <QByteArray>
#include <QObject>
#include <QString>

class QIODevice;

namespace mcpscope {

class Redactor;

/// Appends finished call records to a JSONL call log (`mcpscope-cli --log`), redacted, one line each,
/// as JsonlCallWriter writes them.
///
/// A record is encoded and written when the thread's event loop is about to wait
/// (QAbstractEventDispatcher::aboutToBlock), not while its call is finishing. A caller that starts its
/// next call from the finished one's callback (a `run` script, a load at concurrency 1, any sequential
/// client) sends that request first, so the redaction, encoding and write of the record overlap with
/// the server's work on the next call instead of delaying it: about a third of a stdio call's
/// instructions on the path users run (bench_stdiocall). Nothing waits across a wait: every record
/// appended is on the device, flushed, before the loop sleeps, at flush(), and when the appender is
/// destroyed.
class CallLogAppender : public QObject
{
    Q_OBJECT
public:
    /// out must stay open, and redactor alive, for as long as the appender.
    CallLogAppender(QIODevice* out, const Redactor* redactor, QObject* parent = nullptr);
    ~CallLogAppender() override;

    /// Queues a finished record (an unfinished one is ignored).
    void append(const CallRecord& record);
    /// Writes and flushes the queued records now. False when the device refused them (errorString).
    bool flush();
    /// How many records wait for the loop to block.
    qsizetype pending() const { return m_pending.size(); }
    /// Lines written so far, and the device's error after a failed write (empty while none failed).
    qint64 written() const { return m_written; }
    QString errorString() const { return m_error; }

Q_SIGNALS:
    /// The first write or flush the device refused (disk full, a closed pipe): later records are still
    /// tried, but this is said once. Not emitted while the appender is being destroyed.
    void writeFailed(const QString& error);

private:
    QIODevice* m_out;
    const Redactor* m_redactor;
    QList<CallRecord> m_pending;
    static constexpr qsizetype KeptBufferBytes = 256 * 1024;
    QByteArray m_buffer; ///< reused while at most KeptBufferBytes: one write per wake-up of the loop
    qint64 m_written = 0;
    bool m_flushesBeforeWait = false; ///< the thread had an event dispatcher when the appender was made
    QString m_error;
};

} // namespace mcpscope
