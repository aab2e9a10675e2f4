#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace mcpscope {

struct SseEvent
{
    QByteArray type; // "message" when no event: field was given
    QByteArray data; // data lines joined with '\n' (no trailing newline)
    QByteArray id; // the last-event-id buffer value at dispatch time
    bool hasId = false; // this event carried an accepted id: field (one without NUL)

    friend bool operator==(const SseEvent&, const SseEvent&) = default;
};

// Incremental text/event-stream parser following the WHATWG "Interpreting an event stream" rules, working on raw
// bytes: the payload is handed on undecoded, so invalid UTF-8 reaches the JSON layer as it arrived instead of being
// replaced with U+FFFD.
//
// One deliberate extension: an event whose data is empty but which carried an id: field is a priming event and is
// not returned. The TypeScript MCP SDK server sends priming events as "id: X\ndata: \n\n", which WHATWG would dispatch
// with empty data; only its id matters, for resuming.
class SseParser
{
public:
    // Appends bytes, which may split lines, CRLF pairs and UTF-8 sequences anywhere. Complete events are returned
    // in order. A priming event (an id: but empty data) is not returned, but its id is remembered.
    [[nodiscard]] QList<SseEvent> feed(QByteArrayView bytes);

    // The id committed by the last dispatched (or priming) event, for Last-Event-ID when resuming. An id: field of an
    // event that never completed is not committed, so a resumed stream never skips that event.
    QByteArray lastEventId() const;
    // False while the id is empty: an empty id: field clears it, and then no Last-Event-ID is sent.
    bool hasLastEventId() const;
    // -1 until a valid retry: field arrived; values beyond int saturate.
    int retryMs() const;
    // New stream: clears buffers and re-arms BOM skipping but KEEPS lastEventId and retry (resumption needs them).
    // Events on the new stream that carry no id: report the kept id, as browsers do.
    void reset();
    // Bytes held for the event in progress: the unterminated line plus data lines not yet dispatched. Callers cap
    // this, so a server that never ends a line or an event cannot grow memory without bound.
    qsizetype bufferedBytes() const;

private:
    void processLine(QByteArrayView line, QList<SseEvent>& events);
    void processField(QByteArrayView field, QByteArrayView value);
    void dispatch(QList<SseEvent>& events);

    QByteArray m_pendingLine;
    QByteArray m_data;
    QByteArray m_type;
    QByteArray m_idBuffer;
    QByteArray m_lastEventId;
    int m_retryMs = -1;
    int m_bomMatched = 0;
    bool m_atStreamStart = true;
    bool m_skipLeadingLf = false;
    bool m_eventHasId = false;
};

} // namespace mcpscope
