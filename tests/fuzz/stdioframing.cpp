#include "fuzzinput.h"
#include "jsonrpc/jsonrpccodec.h"
#include "transport/stdiotransport.h"

// The stdio transport's line framer (stdiotransportframing.cpp) over a child's stdout, without a child:
// lines, CRLF, blank lines, non-JSON and lines over a small size limit. Property: what the transport
// reports does not depend on how reads split the output.
namespace mcpscope {

struct StdioFramingFuzz
{
    static QList<QByteArray> run(qint64 maxMessageBytes, const QList<QByteArrayView>& reads)
    {
        StdioTransport::Options options;
        options.serverName = QStringLiteral("fuzz");
        options.maxMessageBytes = maxMessageBytes;
        StdioTransport transport(options);
        QList<QByteArray> seen;
        QObject::connect(&transport, &Transport::messageReceived,
            [&seen](const JsonRpcMessage& message) { seen.append("message " + JsonRpcCodec::encode(message)); });
        QObject::connect(&transport, &Transport::malformedMessage,
            [&seen](const QString& reason, const QByteArray& excerpt, const QJsonValue& id) {
                seen.append("malformed " + reason.toUtf8() + ' ' + excerpt + ' ' + idKey(id).toString().toUtf8());
            });
        const QPointer<StdioTransport> self(&transport);
        for (const QByteArrayView bytes : reads)
            fuzz::check(
                transport.feedStdout(bytes, self) == qsizetype(bytes.size()), "the framer takes every byte, alive");
        return seen;
    }
};

} // namespace mcpscope

using namespace mcpscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto [control, output] = fuzz::takeControl(data, size);
    // Small limits, so inputs of a few hundred bytes reach the oversized-line paths; not below the
    // 256-byte excerpt, which a limit under it would cut at the limit in one path and not the other.
    const qint64 limit = 256 + (control & 0x3f) * 16;
    const QList<QByteArray> whole = StdioFramingFuzz::run(limit, { output });
    const QList<QByteArray> split = StdioFramingFuzz::run(limit, fuzz::pieces(output, control));
    if (whole != split) {
        for (const QByteArray& report : whole)
            std::fprintf(stderr, "whole: %s\n", report.left(400).constData());
        for (const QByteArray& report : split)
            std::fprintf(stderr, "split: %s\n", report.left(400).constData());
    }
    fuzz::check(whole == split, "the framer's reports do not depend on read boundaries");
    return 0;
}
