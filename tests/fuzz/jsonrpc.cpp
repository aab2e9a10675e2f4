#include "fuzzinput.h"
#include "jsonrpc/jsonrpccodec.h"
#include "jsonrpc/requesttracker.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

// The JSON-RPC codec and a session's request tracker fed a random sequence: each line is one step, its
// first byte says which (start a request, a message from the server, time passing, the transport lost).
// Properties: what decodes encodes to bytes that decode to the same message; decode() (which reads the
// common shapes without building the envelope) agrees with the full parse of the whole document; the
// tracker never reports a request it does not hold, nor holds one it completed.
using namespace mcpscope;

namespace {

void checkRoundTrip(const JsonRpcMessage& message)
{
    const QByteArray encoded = JsonRpcCodec::encode(message);
    const DecodeResult again = JsonRpcCodec::decode(encoded);
    fuzz::check(again.ok, "an encoded message decodes");
    fuzz::check(JsonRpcCodec::encode(again.message) == encoded, "decode(encode(m)) encodes to the same bytes");
}

/// decode() against fromJson() on the document QJsonDocument parses: the same verdict and message.
void checkAgainstFullParse(QByteArrayView line, const DecodeResult& decoded)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        fuzz::check(!decoded.ok, "what QJsonDocument refuses does not decode");
        return;
    }
    const DecodeResult full = JsonRpcCodec::fromJson(document.object());
    fuzz::check(decoded.ok == full.ok, "decode() and the full parse agree on validity");
    if (!decoded.ok || !full.ok)
        return;
    const JsonRpcMessage& a = decoded.message;
    const JsonRpcMessage& b = full.message;
    fuzz::check(a.type == b.type && a.id == b.id && a.id.type() == b.id.type() && a.method == b.method
            && a.params == b.params && a.result == b.result && a.error.code == b.error.code
            && a.error.message == b.error.message,
        "decode() gives the message the full parse gives");
    fuzz::check(JsonRpcCodec::encode(a) == JsonRpcCodec::encode(b), "both encode to the same bytes");
}

void receive(RequestTracker& tracker, QByteArrayView line)
{
    const DecodeResult decoded = JsonRpcCodec::decode(line);
    checkAgainstFullParse(line, decoded);
    if (!decoded) {
        fuzz::check(!decoded.error.isEmpty(), "a decode failure says why");
        if (!decoded.id.isUndefined())
            (void)tracker.wasAbandoned(decoded.id);
        return;
    }
    const JsonRpcMessage& message = decoded.message;
    checkRoundTrip(message);
    if (message.isReply()) {
        const bool pending = tracker.isPending(message.id);
        const int before = tracker.pendingCount();
        const std::optional<RequestTracker::Entry> entry = tracker.complete(message.id);
        fuzz::check(entry.has_value() == pending, "complete() returns exactly the pending requests");
        fuzz::check(!tracker.isPending(message.id), "a completed request is no longer pending");
        fuzz::check(tracker.pendingCount() == before - (pending ? 1 : 0), "complete() removes one request");
        if (!entry)
            (void)tracker.wasAbandoned(message.id);
    } else if (message.method == QLatin1String("notifications/progress")) {
        const QJsonValue token = message.params.value(QLatin1String("progressToken"));
        const std::optional<RequestTracker::Entry> entry
            = tracker.progress(token, message.params.value(QLatin1String("progress")).toDouble());
        if (entry)
            fuzz::check(entry->deadline <= entry->hardDeadline, "progress never moves a deadline past the cap");
    } else if (message.method == QLatin1String("notifications/cancelled")) {
        const QJsonValue id = message.params.value(QLatin1String("requestId"));
        if (tracker.abandon(id))
            fuzz::check(tracker.wasAbandoned(id), "an abandoned request is remembered as abandoned");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    qint64 clock = 1000;
    RequestTracker tracker;
    tracker.setClock([&clock] { return clock; });
    const QByteArrayView input(reinterpret_cast<const char*>(data), qsizetype(size));
    qsizetype start = 0;
    while (start < input.size()) {
        qsizetype end = input.indexOf('\n', start);
        if (end < 0)
            end = input.size();
        const QByteArrayView line = input.sliced(start, end - start);
        start = end + 1;
        if (line.isEmpty())
            continue;
        const QByteArrayView payload = line.sliced(1);
        switch (quint8(line.front()) % 6) {
        case 0: {
            const QJsonValue id = tracker.nextId();
            const qint64 timeout = 1 + payload.size() * 100;
            tracker.track(id, QString::fromUtf8(payload), timeout, timeout * (quint8(line.front()) % 4),
                payload.size() % 2 ? tracker.nextProgressToken() : QJsonValue());
            fuzz::check(tracker.isPending(id), "a tracked request is pending");
            break;
        }
        case 1:
        case 2:
        case 3:
            receive(tracker, payload);
            break;
        case 4: {
            clock += payload.size() * 250;
            const int before = tracker.pendingCount();
            const QList<RequestTracker::Entry> expired = tracker.expire();
            fuzz::check(tracker.pendingCount() == before - expired.size(), "expire() removes what it returns");
            for (const RequestTracker::Entry& entry : expired)
                fuzz::check(entry.deadline <= clock, "only requests past their deadline expire");
            break;
        }
        case 5:
            (void)tracker.abandonAll();
            fuzz::check(tracker.pendingCount() == 0, "abandonAll() leaves nothing pending");
            break;
        }
    }
    return 0;
}
