#include "sseparser.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace mcpscope {

namespace {

constexpr char kBom[] = { '\xEF', '\xBB', '\xBF' };
constexpr qsizetype kBomSize = sizeof(kBom);

// Shared static data: almost every event has this type, and copies of a literal never allocate.
const QByteArray& messageType()
{
    static const QByteArray type = QByteArrayLiteral("message");
    return type;
}

const char* findByte(const char* from, const char* end, char byte)
{
    const auto* hit = static_cast<const char*>(std::memchr(from, byte, size_t(end - from)));
    return hit ? hit : end;
}

} // namespace

QList<SseEvent> SseParser::feed(QByteArrayView bytes)
{
    QList<SseEvent> events;
    const char* pos = bytes.data();
    const char* const end = pos + bytes.size();
    if (pos == end)
        return events;

    if (m_atStreamStart) {
        // The BOM may itself arrive split across chunks, so matched bytes are counted rather than buffered.
        while (pos != end && m_bomMatched < kBomSize && *pos == kBom[m_bomMatched]) {
            ++m_bomMatched;
            ++pos;
        }
        if (m_bomMatched < kBomSize && pos == end)
            return events;
        if (m_bomMatched < kBomSize)
            m_pendingLine.append(
                QByteArrayView(kBom, m_bomMatched)); // not a BOM after all: those bytes start the first line
        m_atStreamStart = false;
        m_bomMatched = 0;
        if (pos == end)
            return events;
    }

    if (std::exchange(m_skipLeadingLf, false) && *pos == '\n')
        ++pos;

    // Each terminator's next position is cached and only searched again once passed, so every byte is scanned at
    // most once per terminator even when one kind is rare and the other frequent.
    const char* nextLf = findByte(pos, end, '\n');
    const char* nextCr = findByte(pos, end, '\r');
    while (true) {
        const char* lineEnd = std::min(nextLf, nextCr);
        if (lineEnd == end)
            break;

        const QByteArrayView line(pos, lineEnd - pos);
        if (m_pendingLine.isEmpty()) {
            processLine(line, events);
        } else {
            m_pendingLine.append(line);
            processLine(m_pendingLine, events);
            m_pendingLine.clear();
        }

        if (*lineEnd == '\n') {
            pos = lineEnd + 1;
        } else if (lineEnd + 1 == end) {
            // The LF of a CRLF may be the first byte of the next chunk; it must not end a second, empty line.
            m_skipLeadingLf = true;
            pos = end;
        } else {
            pos = lineEnd + (lineEnd[1] == '\n' ? 2 : 1);
        }
        if (nextLf < pos)
            nextLf = findByte(pos, end, '\n');
        if (nextCr < pos)
            nextCr = findByte(pos, end, '\r');
    }

    if (pos != end)
        m_pendingLine.append(pos, end - pos);
    return events;
}

QByteArray SseParser::lastEventId() const
{
    return m_lastEventId;
}

bool SseParser::hasLastEventId() const
{
    return !m_lastEventId.isEmpty();
}

int SseParser::retryMs() const
{
    return m_retryMs;
}

void SseParser::reset()
{
    m_pendingLine.clear();
    m_data.clear();
    m_type.clear();
    // An id from an event the old stream never finished was not committed; the resumed stream replays that event.
    m_idBuffer = m_lastEventId;
    m_bomMatched = 0;
    m_atStreamStart = true;
    m_skipLeadingLf = false;
    m_eventHasId = false;
}

qsizetype SseParser::bufferedBytes() const
{
    return m_pendingLine.size() + m_data.size() + (m_atStreamStart ? m_bomMatched : 0);
}

void SseParser::processLine(QByteArrayView line, QList<SseEvent>& events)
{
    if (line.isEmpty()) {
        dispatch(events);
        return;
    }
    if (line.front() == ':')
        return;

    const qsizetype colon = line.indexOf(':');
    if (colon < 0) {
        processField(line, {});
        return;
    }
    QByteArrayView value = line.sliced(colon + 1);
    if (value.startsWith(' '))
        value = value.sliced(1);
    processField(line.first(colon), value);
}

void SseParser::processField(QByteArrayView field, QByteArrayView value)
{
    if (field == "data") {
        m_data.append(value);
        m_data.append('\n');
    } else if (field == "event") {
        m_type = value == messageType() ? messageType() : value.toByteArray();
    } else if (field == "id") {
        if (value.contains('\0'))
            return;
        if (value != m_idBuffer)
            m_idBuffer = value.toByteArray();
        m_eventHasId = true;
    } else if (field == "retry") {
        if (value.isEmpty() || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return;
        constexpr qint64 max = std::numeric_limits<int>::max();
        qint64 ms = 0;
        for (const char c : value)
            ms = std::min(ms * 10 + (c - '0'), max);
        m_retryMs = int(ms);
    }
}

void SseParser::dispatch(QList<SseEvent>& events)
{
    // Committed before the empty-data check: that is how a priming event's id is kept.
    m_lastEventId = m_idBuffer;
    const bool hasId = std::exchange(m_eventHasId, false);

    if (m_data.isEmpty() || (hasId && m_data.size() == 1)) {
        m_data.clear();
        m_type.clear();
        return;
    }

    m_data.chop(1);
    SseEvent event;
    event.type = m_type.isEmpty() ? messageType() : std::exchange(m_type, QByteArray());
    event.data = std::exchange(m_data, QByteArray());
    event.id = m_lastEventId;
    event.hasId = hasId;
    events.append(std::move(event));
}

} // namespace mcpscope
