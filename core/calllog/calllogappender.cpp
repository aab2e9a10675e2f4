#include "calllogappender.h"

#include "calllog/redactor.h"

#include <QAbstractEventDispatcher>
#include <QFileDevice>
#include <QIODevice>
#include <QThread>

namespace mcpscope {

CallLogAppender::CallLogAppender(QIODevice* out, const Redactor* redactor, QObject* parent)
    : QObject(parent)
    , m_out(out)
    , m_redactor(redactor)
{
    // Connected once: with nothing queued, a wake-up of the loop costs one empty check.
    if (QAbstractEventDispatcher* dispatcher = QAbstractEventDispatcher::instance(thread())) {
        m_flushesBeforeWait = true;
        connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, this, [this] {
            if (!m_pending.isEmpty())
                flush();
        });
    }
}

CallLogAppender::~CallLogAppender()
{
    // Its receivers may be half destroyed themselves (the CLI ends): the error stays in errorString().
    const QSignalBlocker blocker(this);
    flush();
}

void CallLogAppender::append(const CallRecord& record)
{
    if (!record.isFinished())
        return;
    m_pending.append(record);
    // A thread whose loop never blocks (or has no loop) would otherwise hold them until flush().
    if (!m_flushesBeforeWait)
        flush();
}

bool CallLogAppender::flush()
{
    if (m_pending.isEmpty())
        return m_error.isEmpty();
    m_buffer.resize(0); // keeps its allocation: no buffer per record or per wake-up
    for (const CallRecord& record : std::as_const(m_pending)) {
        m_redactor->appendRedactedRecordJson(m_buffer, record);
        m_buffer.append('\n');
    }
    const qsizetype lines = m_pending.size();
    m_pending.clear();
    // A QFile buffers: without the flush a killed process would lose what the loop already wrote.
    auto* file = qobject_cast<QFileDevice*>(m_out);
    const bool ok = m_out->write(m_buffer) == m_buffer.size() && (!file || file->flush());
    if (m_buffer.capacity() > KeptBufferBytes)
        m_buffer = QByteArray(); // a large answer's record: not held until the next one
    if (!ok) {
        const bool first = m_error.isEmpty();
        m_error = m_out->errorString();
        if (first)
            Q_EMIT writeFailed(m_error);
        return false;
    }
    m_written += lines;
    return true;
}

} // namespace mcpscope
