#include "httpwire.h"

#include "jsonrpc/translation.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace mcpscope::HttpWire {

namespace {
constexpr qsizetype MaxHeadBytes = 64 * 1024;
constexpr qsizetype MaxLineBytes = 8 * 1024;

/// Index just past the line ending that starts at or after from (CRLF or a lone LF), or -1.
qsizetype lineEnd(const QByteArray& buffer, qsizetype from, qsizetype* contentEnd)
{
    const qsizetype lf = buffer.indexOf('\n', from);
    if (lf < 0)
        return -1;
    *contentEnd = (lf > from && buffer.at(lf - 1) == '\r') ? lf - 1 : lf;
    return lf + 1;
}
} // namespace

QByteArray decimal(qint64 n)
{
    std::array<char, 24> digits {};
    const std::to_chars_result end = std::to_chars(digits.data(), digits.data() + digits.size(), n);
    return QByteArray(digits.data(), end.ptr - digits.data());
}

QByteArray header(const HeaderList& headers, QByteArrayView name)
{
    for (const auto& [key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool headerHasToken(const HeaderList& headers, QByteArrayView name, QByteArrayView token)
{
    for (const auto& [key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) != 0)
            continue;
        for (const QByteArray& part : value.split(',')) {
            if (part.trimmed().compare(token, Qt::CaseInsensitive) == 0)
                return true;
        }
    }
    return false;
}

HeaderList endToEndHeaders(const HeaderList& headers)
{
    static const QList<QByteArray> hopByHop { "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
        "trailer", "upgrade", "proxy-authenticate", "proxy-authorization", "content-length" };
    QList<QByteArray> named;
    for (const auto& [key, value] : headers) {
        if (key.compare("connection", Qt::CaseInsensitive) == 0) {
            for (const QByteArray& part : value.split(','))
                named.append(part.trimmed().toLower());
        }
    }
    HeaderList kept;
    for (const auto& pair : headers) {
        const QByteArray lower = pair.first.toLower();
        if (!hopByHop.contains(lower) && !named.contains(lower))
            kept.append(pair);
    }
    return kept;
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 502:
        return "Bad Gateway";
    default:
        return "Status";
    }
}

QByteArray chunk(QByteArrayView data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data.toByteArray() + "\r\n";
}

MessageReader::MessageReader(Kind kind)
    : m_kind(kind)
{ }

bool MessageReader::feed(QByteArrayView bytes)
{
    if (m_state == State::Error)
        return false;
    m_buffer.append(bytes);
    process();
    return m_state != State::Error;
}

bool MessageReader::closeReceived()
{
    if (m_state == State::Body && m_framing == Framing::UntilClose)
        m_state = State::Done;
    return m_state == State::Done;
}

bool MessageReader::fail(const QString& error)
{
    m_state = State::Error;
    m_error = error;
    return false;
}

bool MessageReader::parseHead(QByteArrayView head)
{
    if (head.isEmpty())
        return fail(McpScope::tr("empty message head"));
    // Lines are views into head: only what the reader keeps (the start line's parts, header names and
    // values) is copied. A copy of every line, then of every part, was most of a small response's parse.
    qsizetype pos = 0;
    const auto nextLine = [&] {
        const qsizetype lf = head.indexOf('\n', pos);
        const QByteArrayView line
            = lf < 0 ? head.sliced(pos) : head.sliced(pos, (lf > pos && head.at(lf - 1) == '\r' ? lf - 1 : lf) - pos);
        pos = lf < 0 ? head.size() : lf + 1;
        return line;
    };
    const QByteArrayView first = nextLine();
    const qsizetype space1 = first.indexOf(' ');
    const qsizetype space2 = space1 < 0 ? -1 : first.indexOf(' ', space1 + 1);
    if (m_kind == Kind::Request) {
        // Exactly three parts, split at single spaces.
        if (space1 <= 0 || space2 < 0 || space2 == space1 + 1 || first.indexOf(' ', space2 + 1) >= 0
            || !first.sliced(space2 + 1).startsWith("HTTP/1."))
            return fail(McpScope::tr("malformed request line"));
        method = first.first(space1).toByteArray();
        target = first.sliced(space1 + 1, space2 - space1 - 1).toByteArray();
        version = first.sliced(space2 + 1).toByteArray();
    } else {
        const QByteArrayView code = space1 < 0
            ? QByteArrayView()
            : first.sliced(space1 + 1, (space2 < 0 ? first.size() : space2) - space1 - 1);
        if (space1 < 0 || !first.first(space1).startsWith("HTTP/1.") || code.size() != 3)
            return fail(McpScope::tr("malformed status line"));
        bool ok = false;
        version = first.first(space1).toByteArray();
        status = code.toInt(&ok);
        if (!ok || status < 100)
            return fail(McpScope::tr("malformed status code"));
        reason = space2 < 0 ? QByteArray() : first.sliced(space2 + 1).toByteArray();
    }
    headers.clear();
    while (pos < head.size()) {
        const QByteArrayView line = nextLine();
        if (line.isEmpty())
            continue;
        if ((line.front() == ' ' || line.front() == '\t') && !headers.isEmpty()) {
            headers.last().second.append(' ').append(line.trimmed()); // obsolete line folding
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || line.first(colon).contains(' ') || line.first(colon).contains('\t'))
            return fail(McpScope::tr("malformed header line"));
        headers.append({ line.first(colon).toByteArray(), line.sliced(colon + 1).trimmed().toByteArray() });
    }

    m_contentLength = -1;
    const bool bodyless
        = m_kind == Kind::Response && (m_noBody || (status >= 100 && status < 200) || status == 204 || status == 304);
    const bool chunked = headerHasToken(headers, "Transfer-Encoding", "chunked");
    const QByteArray length = header(headers, "Content-Length");
    if (!length.isEmpty()) {
        bool ok = false;
        m_contentLength = length.toLongLong(&ok);
        if (!ok || m_contentLength < 0)
            return fail(McpScope::tr("malformed Content-Length"));
    }
    if (bodyless) {
        m_framing = Framing::None;
    } else if (chunked) {
        m_framing = Framing::Chunked;
    } else if (!header(headers, "Transfer-Encoding").isEmpty()) {
        if (m_kind == Kind::Request)
            return fail(McpScope::tr("unsupported Transfer-Encoding"));
        m_framing = Framing::UntilClose;
    } else if (m_contentLength >= 0) {
        m_framing = m_contentLength > 0 ? Framing::Length : Framing::None;
    } else {
        m_framing = m_kind == Kind::Request ? Framing::None : Framing::UntilClose;
    }
    return true;
}

void MessageReader::process()
{
    for (;;) {
        switch (m_state) {
        case State::Head: {
            if (m_kind == Kind::Request) {
                // A client may send stray line breaks between requests (RFC 9112 §2.2).
                qsizetype stray = 0;
                while (stray < m_buffer.size() && (m_buffer.at(stray) == '\r' || m_buffer.at(stray) == '\n'))
                    ++stray;
                if (stray > 0) {
                    m_buffer.remove(0, stray);
                    m_headScanned = 0;
                }
            }
            qsizetype end = -1;
            qsizetype headLength = 0;
            // Resume where the last read's search stopped, less the 3 bytes an end split across reads needs.
            const qsizetype from = std::max<qsizetype>(0, m_headScanned - 3);
            // The first "\r\n\r\n" or "\n\n" from there, whichever starts first, in one pass from line
            // break to line break (memchr): two QByteArray::indexOf searches were 3% of an HTTP call.
            const char* const data = m_buffer.constData();
            const qsizetype size = m_buffer.size();
            for (qsizetype at = from; at < size;) {
                const auto* found = static_cast<const char*>(std::memchr(data + at, '\n', size_t(size - at)));
                if (!found)
                    break;
                const qsizetype i = found - data;
                if (i + 1 < size && data[i + 1] == '\n') {
                    headLength = i;
                    end = i + 2;
                    break;
                }
                if (i - 1 >= from && data[i - 1] == '\r' && i + 2 < size && data[i + 1] == '\r'
                    && data[i + 2] == '\n') {
                    headLength = i - 1;
                    end = i + 3;
                    break;
                }
                at = i + 1;
            }
            if (end < 0) {
                m_headScanned = m_buffer.size();
                if (m_buffer.size() > MaxHeadBytes)
                    fail(McpScope::tr("message head larger than %1 bytes").arg(MaxHeadBytes));
                return;
            }
            if (!parseHead(QByteArrayView(m_buffer).first(headLength)))
                return;
            m_buffer.remove(0, end);
            m_headScanned = 0;
            if (m_kind == Kind::Response && status >= 100 && status < 200 && status != 101) {
                headers.clear(); // an interim response (100 Continue): the real one follows
                continue;
            }
            switch (m_framing) {
            case Framing::None:
                m_state = State::Done;
                break;
            case Framing::Length:
                m_remaining = m_contentLength;
                m_state = State::Body;
                break;
            case Framing::UntilClose:
                m_state = State::Body;
                break;
            case Framing::Chunked:
                m_state = State::ChunkSize;
                break;
            }
            continue;
        }
        case State::Body: {
            if (m_buffer.isEmpty())
                return;
            if (m_framing == Framing::UntilClose) {
                m_bodyBytesSeen += m_buffer.size();
                m_body.append(std::exchange(m_buffer, {}));
                return;
            }
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, m_buffer.size()));
            m_body.append(QByteArrayView(m_buffer).first(n));
            m_buffer.remove(0, n);
            m_remaining -= n;
            m_bodyBytesSeen += n;
            if (m_remaining == 0)
                m_state = State::Done;
            continue;
        }
        case State::ChunkSize: {
            qsizetype contentEnd = 0;
            const qsizetype next = lineEnd(m_buffer, 0, &contentEnd);
            if (next < 0) {
                if (m_buffer.size() > MaxLineBytes)
                    fail(McpScope::tr("chunk size line too long"));
                return;
            }
            QByteArray sizeText = m_buffer.left(contentEnd);
            const qsizetype semicolon = sizeText.indexOf(';');
            if (semicolon >= 0)
                sizeText.truncate(semicolon);
            bool ok = false;
            const qint64 size = sizeText.trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0) {
                fail(McpScope::tr("malformed chunk size"));
                return;
            }
            m_buffer.remove(0, next);
            m_remaining = size;
            m_state = size == 0 ? State::Trailers : State::ChunkData;
            continue;
        }
        case State::ChunkData: {
            if (m_buffer.isEmpty())
                return;
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, m_buffer.size()));
            m_body.append(QByteArrayView(m_buffer).first(n));
            m_buffer.remove(0, n);
            m_remaining -= n;
            m_bodyBytesSeen += n;
            if (m_remaining == 0)
                m_state = State::ChunkDataEnd;
            continue;
        }
        case State::ChunkDataEnd:
        case State::Trailers: {
            qsizetype contentEnd = 0;
            const qsizetype next = lineEnd(m_buffer, 0, &contentEnd);
            if (next < 0) {
                if (m_buffer.size() > MaxLineBytes)
                    fail(McpScope::tr("malformed chunk end"));
                return;
            }
            const bool empty = contentEnd == 0;
            m_buffer.remove(0, next);
            if (m_state == State::ChunkDataEnd) {
                if (!empty) {
                    fail(McpScope::tr("chunk data longer than its size"));
                    return;
                }
                m_state = State::ChunkSize;
            } else if (empty) {
                m_state = State::Done;
            }
            continue;
        }
        case State::Done:
        case State::Error:
            return;
        }
    }
}

} // namespace mcpscope::HttpWire
