#include "stdiotransport.h"

#include "jsonrpc/jsonrpccodec.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSocketNotifier>

#include <cerrno>
#include <unistd.h>
#include <utility>

// StdioTransport's reading side: how the bytes of the child's stdout become lines, and lines messages.

namespace mcpscope {

namespace {
constexpr qsizetype ExcerptBytes = 256;
constexpr int ReadsPerActivation = 16; ///< 1 MiB, so a fast writer cannot starve the event loop
/// Small messages cost far more to handle than to read (a flood of notifications fills 1 MiB with
/// thousands): after this much handling the rest waits for the next activation, so the GUI thread
/// never stalls for more than about one read's worth of lines.
constexpr qint64 ReadBudgetMs = 10;
} // namespace

void StdioTransport::onReadable()
{
    readStdout(ReadsPerActivation, ReadBudgetMs);
}

void StdioTransport::readStdout(int maxReads, qint64 budgetMs)
{
    if (m_reading) {
        // A slot we called runs a nested event loop: what follows in the pipe must wait until the
        // lines before it are handled, or messages would arrive out of order.
        if (m_readNotifier)
            m_readNotifier->setEnabled(false);
        m_readDeferred = true;
        return;
    }
    const QPointer<StdioTransport> self(this);
    m_reading = true;
    char buffer[ReadChunkBytes];
    QElapsedTimer busy;
    busy.start();
    for (int i = 0; i < maxReads && m_stdoutFd >= 0 && (budgetMs < 0 || i == 0 || busy.elapsed() < budgetMs); ++i) {
        const ssize_t n = ::read(m_stdoutFd, buffer, sizeof buffer);
        if (n > 0) {
            if (!feedStdout(QByteArrayView(buffer, n), self))
                return; // we were deleted
            // A read that did not fill the buffer emptied the pipe: the notifier tells when there
            // is more, which saves the read() that would only say EAGAIN.
            if (n < qsizetype(sizeof buffer))
                break;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            break;
        } else {
            // EOF (or a broken pipe): the child closed its stdout. Its exit, if it comes, is
            // reported by onFinished() with its exit code.
            closeReadEnd();
            break;
        }
    }
    m_reading = false;
    if (m_readDeferred) {
        m_readDeferred = false;
        if (m_readNotifier)
            m_readNotifier->setEnabled(true);
    }
}

bool StdioTransport::feedStdout(QByteArrayView chunk, const QPointer<StdioTransport>& self)
{
    if (m_discardingLine) {
        const qsizetype nl = chunk.indexOf('\n');
        const QByteArrayView part = nl < 0 ? chunk : chunk.first(nl);
        m_oversizedBytes += part.size();
        m_oversizedTail.append(part.last(std::min(part.size(), ExcerptBytes)));
        m_oversizedTail = m_oversizedTail.right(ExcerptBytes);
        if (nl < 0)
            return true;
        handleOversizedLine();
        if (!self)
            return false;
        chunk = chunk.sliced(nl + 1);
    }
    if (!m_stdout.isEmpty()) {
        // The end of a line begun in an earlier read.
        const qsizetype nl = chunk.indexOf('\n');
        if (nl < 0) {
            m_stdout.append(chunk);
            checkStdoutOverflow();
            return true;
        }
        m_stdout.append(chunk.first(nl));
        const QByteArray line = std::exchange(m_stdout, QByteArray());
        takeLine(line);
        if (!self)
            return false;
        chunk = chunk.sliced(nl + 1);
    }
    // Whole lines are handled where they were read, without a copy.
    qsizetype start = 0;
    for (qsizetype nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        takeLine(chunk.sliced(start, nl - start));
        if (!self)
            return false;
        start = nl + 1;
    }
    if (start < chunk.size()) {
        m_stdout.append(chunk.sliced(start));
        checkStdoutOverflow();
    }
    return true;
}

void StdioTransport::checkStdoutOverflow()
{
    if (m_stdout.size() <= m_options.maxMessageBytes)
        return;
    // Too large to hold: keep only the ends, which is where an id can be recovered from.
    m_discardingLine = true;
    m_oversizedHead = m_stdout.left(ExcerptBytes);
    m_oversizedTail = m_stdout.right(ExcerptBytes);
    m_oversizedBytes = m_stdout.size();
    m_stdout.clear();
}

void StdioTransport::takeLine(QByteArrayView line)
{
    if (line.size() > m_options.maxMessageBytes) {
        // A line that ended in the read that crossed the limit is still over it.
        m_oversizedHead = line.first(std::min(line.size(), ExcerptBytes)).toByteArray();
        m_oversizedTail = line.last(std::min(line.size(), ExcerptBytes)).toByteArray();
        m_oversizedBytes = line.size();
        handleOversizedLine();
    } else {
        processLine(line);
    }
}

void StdioTransport::handleOversizedLine()
{
    // SDK servers put "id" last, others first. Only an id at the top level counts: right after the
    // opening brace (optionally behind "jsonrpc") or right before the closing one.
    static const QRegularExpression tailPattern(QStringLiteral(R"re("id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$)re"));
    static const QRegularExpression headPattern(
        QStringLiteral(R"re(^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+))re"));
    QJsonValue id;
    for (const auto& [part, pattern] :
        { std::pair { &m_oversizedTail, &tailPattern }, std::pair { &m_oversizedHead, &headPattern } }) {
        const auto match = pattern->match(QString::fromUtf8(*part));
        if (match.hasMatch()) {
            // Parsing the captured literal as JSON decodes escapes in string ids.
            const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("[") + match.captured(1).toUtf8() + ']');
            id = doc.array().first();
            break;
        }
    }
    if (!m_wireRequests.isEmpty() && !id.isUndefined()) {
        StdioLine answer = StdioLine::make(QDateTime::currentMSecsSinceEpoch(), false, m_oversizedHead);
        answer.size = m_oversizedBytes;
        answer.truncated = true;
        settleWire(id, answer);
    }
    Q_EMIT malformedMessage(tr("a message from stdio server '%1' is %2 bytes, over the %3-byte limit")
                                .arg(m_options.serverName)
                                .arg(m_oversizedBytes)
                                .arg(m_options.maxMessageBytes),
        m_oversizedHead, id);
    m_discardingLine = false;
    m_oversizedHead.clear();
    m_oversizedTail.clear();
    m_oversizedBytes = 0;
}

void StdioTransport::processLine(QByteArrayView line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    if (line.trimmed().isEmpty())
        return;
    if (trafficWatched())
        Q_EMIT traffic(WireDirection::Incoming, line.toByteArray());
    DecodeResult decoded = JsonRpcCodec::decode(line);
    if (!decoded) {
        if (!m_wireRequests.isEmpty() && !decoded.id.isUndefined())
            settleWire(decoded.id, StdioLine::make(QDateTime::currentMSecsSinceEpoch(), false, line));
        Q_EMIT malformedMessage(tr("stdio server '%1' wrote a line that is not a JSON-RPC message: %2")
                                    .arg(m_options.serverName, decoded.error),
            line.first(std::min<qsizetype>(line.size(), ExcerptBytes)).toByteArray(), decoded.id);
        return;
    }
    if (!m_wireRequests.isEmpty() && decoded.message.isReply())
        settleWire(decoded.message.id, StdioLine::make(QDateTime::currentMSecsSinceEpoch(), false, line));
    Q_EMIT messageReceived(decoded.message);
}

void StdioTransport::settleWire(const QJsonValue& id, const StdioLine& answer)
{
    const auto it = m_wireRequests.find(idKey(id));
    if (it == m_wireRequests.end())
        return;
    WireExchange exchange;
    exchange.stdio = { it->line, answer };
    m_wireRequests.erase(it);
    Q_EMIT exchangeRecorded(id, exchange);
}

} // namespace mcpscope
