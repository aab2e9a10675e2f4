#include "stdiotransport.h"

#include "jsonrpc/jsonrpccodec.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSocketNotifier>
#include <QThreadPool>
#include <QTimer>

#include <cerrno>
#include <unistd.h>
#include <utility>

// StdioTransport's reading side: how the bytes of the child's stdout become lines, and lines messages.

namespace mcpscope {

namespace {
constexpr qsizetype ExcerptBytes = 256;
constexpr int ReadsPerActivation = 16; ///< 1 MiB, so a fast writer cannot starve the event loop
/// Small messages cost far more to handle than to read (a flood of notifications fills one 64 KiB
/// read with hundreds, and each goes through the session, the engine, the views and the call log):
/// after this much handling the rest waits for the next pass of the event loop, so the GUI thread is
/// never busy here for much longer than one line's worth past it (STYLE.md: slices of about 5 ms).
constexpr qint64 ReadBudgetMs = 5;
/// From this size a line is joined and parsed on a worker thread. QJsonDocument takes about 1.5 ms a MiB:
/// a 20 MB answer parsed here held the GUI thread for 27 of the 42 ms of its longest stall (bench_appcalls).
constexpr qsizetype WorkerLineBytes = 1024 * 1024;

QByteArray joined(const QList<QByteArray>& parts, qsizetype bytes)
{
    QByteArray line;
    line.reserve(bytes);
    for (const QByteArray& part : parts)
        line.append(part);
    return line;
}
} // namespace

void StdioTransport::onReadable()
{
    readStdout(ReadsPerActivation, ReadBudgetMs);
}

StdioTransport::ReadEnd StdioTransport::readStdout(int maxReads, qint64 budgetMs, int* reads)
{
    if (m_reading || m_decoding) {
        // A slot we called runs a nested event loop, or a line is being parsed on a worker: what follows
        // in the pipe must wait until the lines before it are handled, or messages would arrive out of
        // order. (lineDecoded() reads on when the worker's line is handled.)
        if (m_readNotifier)
            m_readNotifier->setEnabled(false);
        if (m_reading)
            m_readDeferred = true;
        return ReadEnd::More;
    }
    const QPointer<StdioTransport> self(this);
    m_reading = true;
    QElapsedTimer busy;
    busy.start();
    int done = 0;
    const ReadEnd end = [&] {
        // First what an earlier pass read but had no time for: it came before anything in the pipe.
        if (!m_unhandled.isEmpty()) {
            const QByteArray backlog = std::exchange(m_unhandled, QByteArray());
            const qsizetype taken = feedStdout(backlog, self, &busy, budgetMs);
            if (taken < 0)
                return ReadEnd::Deleted;
            if (taken < backlog.size()) {
                m_unhandled = backlog.sliced(taken);
                return ReadEnd::More;
            }
        }
        char buffer[ReadChunkBytes];
        for (; done < maxReads && m_stdoutFd >= 0 && !m_decoding && (budgetMs < 0 || busy.elapsed() < budgetMs);
             ++done) {
            const ssize_t n = ::read(m_stdoutFd, buffer, sizeof buffer);
            if (n > 0) {
                const QByteArrayView chunk(buffer, n);
                const qsizetype taken = feedStdout(chunk, self, &busy, budgetMs);
                if (taken < 0)
                    return ReadEnd::Deleted;
                if (taken < n) {
                    ++done;
                    m_unhandled = chunk.sliced(taken).toByteArray();
                    return ReadEnd::More;
                }
                // A read that did not fill the buffer emptied the pipe: the notifier tells when there
                // is more, which saves the read() that would only say EAGAIN.
                if (n < qsizetype(sizeof buffer))
                    return ReadEnd::Empty;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && errno == EAGAIN) {
                return ReadEnd::Empty;
            } else {
                // EOF (or a broken pipe): the child closed its stdout. Its exit, if it comes, is
                // reported by onFinished() with its exit code.
                closeReadEnd();
                return ReadEnd::Empty;
            }
        }
        return m_stdoutFd < 0 ? ReadEnd::Empty : ReadEnd::More;
    }();
    if (end == ReadEnd::Deleted)
        return end;
    if (reads)
        *reads = done;
    m_reading = false;
    m_readDeferred = false;
    scheduleReading();
    return end;
}

void StdioTransport::scheduleReading()
{
    // After the child's exit the drain (drainAfterExit) paces the reading itself; while a line is parsed
    // on a worker, lineDecoded() goes on.
    if (m_exit || m_decoding) {
        if (m_decoding && m_readNotifier)
            m_readNotifier->setEnabled(false);
        return;
    }
    if (m_unhandled.isEmpty()) {
        if (m_readNotifier)
            m_readNotifier->setEnabled(true);
        return;
    }
    if (m_readNotifier)
        m_readNotifier->setEnabled(false);
    if (std::exchange(m_passScheduled, true))
        return;
    QTimer::singleShot(0, this, [this] {
        m_passScheduled = false;
        readStdout(ReadsPerActivation, ReadBudgetMs);
    });
}

void StdioTransport::drainAfterExit()
{
    // What the child wrote before it died comes before the news of its death, in slices like any
    // other output (a server that floods, then exits, leaves up to a pipe's worth plus our backlog).
    // At most ReadsAfterExit reads: a grandchild that still holds the pipe must not keep us here.
    if (!m_exit)
        return; // closed meanwhile: nothing is reported after closed()
    if (m_decoding)
        return; // lineDecoded() drains on
    const QPointer<StdioTransport> self(this);
    int reads = 0;
    const ReadEnd end = readStdout(std::min(ReadsPerActivation, m_exitReadsLeft), ReadBudgetMs, &reads);
    if (end == ReadEnd::Deleted || !self)
        return;
    m_exitReadsLeft -= reads;
    if (m_decoding)
        return; // a line went to a worker: lineDecoded() drains on
    if (m_reading || (end == ReadEnd::More && (m_exitReadsLeft > 0 || !m_unhandled.isEmpty()))) {
        QTimer::singleShot(0, this, &StdioTransport::drainAfterExit);
        return;
    }
    m_unhandled.clear();
    closeReadEnd();
    const auto [exitCode, status] = *std::exchange(m_exit, std::nullopt);
    reportExit(exitCode, status);
}

qsizetype StdioTransport::feedStdout(
    QByteArrayView chunk, const QPointer<StdioTransport>& self, const QElapsedTimer* busy, qint64 budgetMs)
{
    const qsizetype whole = chunk.size();
    if (m_discardingLine) {
        const qsizetype nl = chunk.indexOf('\n');
        const QByteArrayView part = nl < 0 ? chunk : chunk.first(nl);
        m_oversizedBytes += part.size();
        m_oversizedTail.append(part.last(std::min(part.size(), ExcerptBytes)));
        m_oversizedTail = m_oversizedTail.right(ExcerptBytes);
        if (nl < 0)
            return whole;
        handleOversizedLine();
        if (!self)
            return -1;
        chunk = chunk.sliced(nl + 1);
    }
    if (m_partialBytes > 0) {
        // The end of a line begun in an earlier read.
        const qsizetype nl = chunk.indexOf('\n');
        if (nl < 0) {
            appendPartial(chunk);
            return whole;
        }
        appendPartial(chunk.first(nl));
        if (m_discardingLine) {
            // This last piece took it over the limit.
            handleOversizedLine();
        } else if (m_partialBytes >= WorkerLineBytes) {
            decodeOnWorker();
            return whole - (chunk.size() - (nl + 1)); // the rest waits for the line
        } else {
            const QByteArray line = takePartial();
            takeLine(line);
        }
        if (!self)
            return -1;
        chunk = chunk.sliced(nl + 1);
    }
    // Whole lines are handled where they were read, without a copy.
    qsizetype start = 0;
    for (qsizetype nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        takeLine(chunk.sliced(start, nl - start));
        if (!self)
            return -1;
        start = nl + 1;
        if (busy && budgetMs >= 0 && busy->elapsed() >= budgetMs && start < chunk.size())
            return whole - (chunk.size() - start);
    }
    if (start < chunk.size())
        appendPartial(chunk.sliced(start));
    return whole;
}

void StdioTransport::appendPartial(QByteArrayView piece)
{
    // A long line stays in the pieces it was read in, copied once when it ends: growing one buffer to
    // tens of MiB would copy it again at every doubling, each copy a stall of its own. Small pieces (a
    // server that writes a byte at a time) join the last one, so the list stays short.
    if (!m_partial.isEmpty() && m_partial.last().size() < ReadChunkBytes)
        m_partial.last().append(piece);
    else
        m_partial.append(piece.toByteArray());
    m_partialBytes += piece.size();
    if (m_partialBytes <= m_options.maxMessageBytes)
        return;
    // Too large to hold: keep only the ends, which is where an id can be recovered from.
    m_discardingLine = true;
    for (const QByteArray& part : std::as_const(m_partial)) {
        m_oversizedHead.append(part.first(std::min(part.size(), ExcerptBytes - m_oversizedHead.size())));
        if (m_oversizedHead.size() >= ExcerptBytes)
            break;
    }
    for (auto it = m_partial.crbegin(); it != m_partial.crend() && m_oversizedTail.size() < ExcerptBytes; ++it)
        m_oversizedTail.prepend(it->last(std::min(it->size(), ExcerptBytes - m_oversizedTail.size())));
    m_oversizedBytes = m_partialBytes;
    m_partial.clear();
    m_partialBytes = 0;
}

QByteArray StdioTransport::takePartial()
{
    const QByteArray line = joined(m_partial, m_partialBytes);
    m_partial.clear();
    m_partialBytes = 0;
    return line;
}

void StdioTransport::decodeOnWorker()
{
    m_decoding = true;
    if (m_readNotifier)
        m_readNotifier->setEnabled(false);
    struct Parsed
    {
        QByteArray line;
        DecodeResult decoded;
    };
    // Posted to the application object, as JobTracker does: this transport may be gone by then, and a
    // QPointer is only safe to test on its own thread.
    QThreadPool::globalInstance()->start(
        [self = QPointer<StdioTransport>(this), generation = m_lineGeneration, parts = std::exchange(m_partial, {}),
            bytes = std::exchange(m_partialBytes, 0)]() mutable {
            auto parsed = std::make_shared<Parsed>();
            parsed->line = joined(parts, bytes);
            parts.clear();
            if (parsed->line.endsWith('\r'))
                parsed->line.chop(1);
            if (!QByteArrayView(parsed->line).trimmed().isEmpty())
                parsed->decoded = JsonRpcCodec::decode(parsed->line);
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [self, generation, parsed] {
                    if (self && self->m_lineGeneration == generation)
                        self->lineDecoded(std::move(parsed->line), std::move(parsed->decoded));
                },
                Qt::QueuedConnection);
        });
}

void StdioTransport::lineDecoded(QByteArray line, DecodeResult decoded)
{
    const QPointer<StdioTransport> self(this);
    m_decoding = false;
    m_reading = true; // as in readStdout(): a nested event loop in a slot must not read past this line
    if (!QByteArrayView(line).trimmed().isEmpty())
        deliverLine(line, std::move(decoded), &line);
    if (!self)
        return;
    m_reading = false;
    m_readDeferred = false;
    if (m_exit)
        drainAfterExit();
    else
        scheduleReading();
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
    deliverLine(line, JsonRpcCodec::decode(line), nullptr);
}

void StdioTransport::deliverLine(QByteArrayView line, DecodeResult decoded, const QByteArray* owned)
{
    if (trafficWatched())
        Q_EMIT traffic(WireDirection::Incoming, owned ? *owned : line.toByteArray());
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
