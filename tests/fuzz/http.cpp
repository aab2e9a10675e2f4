#include "fuzzinput.h"
#include "transport/httpwire.h"

// The HTTP/1.1 message codec, both directions: requests (what the fault proxy and its control server
// read from clients) and responses (what the HTTP client and the proxy read from servers), several
// messages back to back on one kept-alive connection. Properties: the result does not depend on how
// reads split the bytes, and a body written with HttpWire::chunk() reads back unchanged.
using namespace mcpscope;
using HttpWire::MessageReader;

namespace {

struct Reading
{
    QList<QByteArray> messages;
    bool failed = false;

    friend bool operator==(const Reading&, const Reading&) = default;
};

QByteArray describe(const MessageReader& reader, const QByteArray& body)
{
    QByteArray text = reader.method + ' ' + reader.target + ' ' + reader.version + ' '
        + QByteArray::number(reader.status) + ' ' + reader.reason + ' ' + QByteArray::number(int(reader.framing()))
        + ' ' + QByteArray::number(reader.contentLength()) + '\n';
    for (const auto& [name, value] : reader.headers)
        text += name + ": " + value + '\n';
    return text + body;
}

Reading read(MessageReader::Kind kind, bool noBody, bool closeAtEnd, const QList<QByteArrayView>& reads)
{
    Reading reading;
    auto reader = std::make_unique<MessageReader>(kind);
    if (noBody)
        reader->setNoBody();
    QByteArray body;
    QByteArray pending;
    const auto drain = [&] {
        // As the proxy does: what follows a complete message starts the next one.
        while (reader->complete() && reading.messages.size() < 8) {
            body += reader->takeBody();
            fuzz::check(reader->bodyBytesSeen() >= body.size() || reader->framing() == MessageReader::Framing::Chunked,
                "a length-framed body counts what it handed out");
            reading.messages.append(describe(*reader, std::exchange(body, {})));
            const QByteArray remainder = reader->takeRemainder();
            reader = std::make_unique<MessageReader>(kind);
            if (noBody)
                reader->setNoBody();
            if (!remainder.isEmpty() && !reader->feed(remainder))
                return false;
        }
        body += reader->takeBody();
        return true;
    };
    for (const QByteArrayView bytes : reads) {
        if (reading.messages.size() >= 8)
            break;
        if (!reader->feed(bytes) || !drain()) {
            reading.failed = true;
            return reading;
        }
    }
    if (closeAtEnd && reading.messages.size() < 8) {
        reader->closeReceived();
        if (!drain())
            reading.failed = true;
    }
    reading.failed = reading.failed || reader->failed();
    if (reader->failed())
        fuzz::check(!reader->error().isEmpty(), "a malformed message says why");
    // Header helpers on whatever head arrived.
    (void)HttpWire::endToEndHeaders(reader->headers);
    (void)HttpWire::headerHasToken(reader->headers, "Connection", "close");
    (void)HttpWire::header(reader->headers, "Content-Type");
    return reading;
}

void checkChunkRoundTrip(QByteArrayView body, quint8 seed)
{
    QByteArray wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (const QByteArrayView piece : fuzz::pieces(body, seed))
        wire += HttpWire::chunk(piece);
    wire += HttpWire::chunk({});
    MessageReader reader(MessageReader::Kind::Response);
    fuzz::check(reader.feed(wire) && reader.complete(), "a chunked body written by chunk() reads");
    fuzz::check(reader.takeBody() == body, "a chunked body reads back unchanged");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto [control, bytes] = fuzz::takeControl(data, size);
    const auto kind = control & 1 ? MessageReader::Kind::Response : MessageReader::Kind::Request;
    const bool noBody = control & 2;
    const bool closeAtEnd = control & 4;
    const Reading whole = read(kind, noBody, closeAtEnd, { bytes });
    const Reading split = read(kind, noBody, closeAtEnd, fuzz::pieces(bytes, control));
    // Past the eighth message the two readings stop at different points of the input.
    if (whole.messages.size() < 8 && split.messages.size() < 8)
        fuzz::check(whole == split, "what is read does not depend on read boundaries");
    else
        fuzz::check(whole.messages == split.messages, "the messages do not depend on read boundaries");
    checkChunkRoundTrip(bytes, control);
    return 0;
}
