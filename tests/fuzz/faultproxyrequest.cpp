#include "fault/faultproxyconnection.h"
#include "fuzzinput.h"
#include "jsonrpc/jsonrpccodec.h"

#include <QJsonObject>

// The fault proxy's request parser: what FaultProxyConnection::processInput() and handleRequest() do with
// a client's bytes before any fault is chosen. Requests arrive back to back on one connection, split
// anywhere; each complete one has its Connection and Expect headers read, its body decoded as JSON-RPC, the
// tools/call attempt identity taken from _meta, and its target turned into a legacy stream key.
using namespace mcpscope;
using HttpWire::MessageReader;

namespace {

void handle(const MessageReader& request, const QByteArray& body)
{
    (void)HttpWire::headerHasToken(request.headers, "Connection", "close");
    (void)HttpWire::header(request.headers, "Expect").compare("100-continue", Qt::CaseInsensitive);
    (void)FaultProxyWire::legacyStreamKey(request.target);
    if (request.method != "POST")
        return;
    const DecodeResult decoded = JsonRpcCodec::decode(body);
    if (!decoded || !decoded.message.isRequest())
        return;
    const QJsonObject identity = decoded.message.params.value(QLatin1String("_meta"))
                                     .toObject()
                                     .value(QLatin1String("io.github.mcpscope/attempt"))
                                     .toObject();
    (void)identity.value(QLatin1String("callId")).toString();
    (void)identity.value(QLatin1String("attempt")).toInt();
    const QByteArray refusal = FaultProxyWire::sessionNotFound(decoded.message.id);
    fuzz::check(JsonRpcCodec::decode(refusal).ok, "the proxy's 404 body is a JSON-RPC message");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto [seed, bytes] = fuzz::takeControl(data, size);
    QByteArray input;
    auto request = std::make_unique<MessageReader>(MessageReader::Kind::Request);
    QByteArray body;
    int handled = 0;
    for (const QByteArrayView piece : fuzz::pieces(bytes, seed)) {
        input.append(piece);
        while (!input.isEmpty() && handled < 16) {
            if (!request->feed(std::exchange(input, {})))
                return 0; // answered 400 and closed
            body.append(request->takeBody());
            if (!request->complete())
                break;
            handle(*request, std::exchange(body, {}));
            ++handled;
            input = request->takeRemainder();
            request = std::make_unique<MessageReader>(MessageReader::Kind::Request);
        }
    }
    return 0;
}
