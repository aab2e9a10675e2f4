#include "fuzzinput.h"
#include "transport/sseparser.h"

// SseParser over one event stream. Property: the events, last event id and retry do not depend on how
// reads split the stream.
using namespace mcpscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto [seed, stream] = fuzz::takeControl(data, size);

    SseParser whole;
    const QList<SseEvent> expected = whole.feed(stream);

    SseParser split;
    QList<SseEvent> events;
    for (const QByteArrayView piece : fuzz::pieces(stream, seed)) {
        events.append(split.feed(piece));
        fuzz::check(split.bufferedBytes() >= 0, "buffered bytes are never negative");
    }
    fuzz::check(events == expected, "events do not depend on read boundaries");
    fuzz::check(split.lastEventId() == whole.lastEventId(), "last event id does not depend on read boundaries");
    fuzz::check(split.retryMs() == whole.retryMs(), "retry does not depend on read boundaries");
    fuzz::check(split.hasLastEventId() == !split.lastEventId().isEmpty(), "hasLastEventId matches the id");

    // A resumed stream keeps the id and retry.
    split.reset();
    fuzz::check(split.lastEventId() == whole.lastEventId(), "reset keeps the last event id");
    fuzz::check(split.retryMs() == whole.retryMs(), "reset keeps retry");
    (void)split.feed(stream);
    return 0;
}
