#include "logstoreencoder.h"

#include "calllog/compactjsonwriter.h"
#include "calllog/namesearch.h"

#include <QJsonDocument>
#include <QtEndian>

#include <algorithm>
#include <array>

#include <zlib.h>

namespace mcpscope {

namespace {
/// Payloads above this are compressed. zlib's set-up alone costs tens of microseconds, more than a
/// small record saves; records of a few attempts stay plain, large results (and wire bodies) shrink.
constexpr qsizetype CompressAbove = 4096;

/// A large record's JSON text, compressed as the writer drains it into qCompress()'s format (the length,
/// big-endian, then one zlib stream at the default level; qUncompress() reads it), and scanned on the way
/// for the sensitive names and the secret values. The scans look at each piece and at each seam between
/// two, as far back as the longest name or value reaches, so they find what a scan of the whole text finds.
/// Any hit (or a zlib failure) gives up: the caller takes the whole-text way, which redacts.
class StreamedRecord
{
public:
    StreamedRecord(const NameSearch& search, const Redactor& redactor)
        : m_search(search)
        , m_redactor(redactor)
        , m_reach(std::max(search.longest(), redactor.longestSecretValue()))
    {
        m_ok = deflateInit(&m_zlib, Z_DEFAULT_COMPRESSION) == Z_OK;
        m_out.resize(4);
    }
    ~StreamedRecord() { deflateEnd(&m_zlib); }
    StreamedRecord(const StreamedRecord&) = delete;
    StreamedRecord& operator=(const StreamedRecord&) = delete;

    std::optional<Encoded> encode(const CallRecord& record)
    {
        if (!m_ok)
            return std::nullopt;
        CompactWriter writer(LargeRecordPiece);
        writer.setDrain([this](QByteArrayView piece) { take(piece); });
        record.writeCompactJson(writer);
        writer.finish();
        m_ok = m_ok && deflateAll(Z_FINISH);
        if (!m_ok)
            return std::nullopt;
        qToBigEndian(quint32(m_total), m_out.data()); // as qCompress() writes it: the low 32 bits
        m_out.truncate(m_used);
        m_out.squeeze();
        return Encoded { std::move(m_out), true };
    }

private:
    void take(QByteArrayView piece)
    {
        if (!m_ok)
            return;
        const QByteArray joined = m_seam + piece.first(std::min(m_reach, piece.size())).toByteArray();
        if (m_search.foundIn(piece) || m_search.foundIn(joined) || m_redactor.containsSecretValue(piece)
            || m_redactor.containsSecretValue(joined)) {
            m_ok = false;
            return;
        }
        m_seam = piece.size() >= m_reach ? piece.last(m_reach).toByteArray()
                                         : QByteArray(m_seam + piece.toByteArray()).right(m_reach);
        m_total += piece.size();
        m_zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
        m_zlib.avail_in = uInt(piece.size());
        m_ok = deflateAll(Z_NO_FLUSH);
    }

    /// Runs deflate until it has taken all its input (and, to finish, written the stream's end).
    bool deflateAll(int flush)
    {
        for (;;) {
            if (m_out.size() - m_used < LargeRecordPiece / 4)
                m_out.resize(std::max(m_out.size() * 2, m_used + LargeRecordPiece));
            m_zlib.next_out = reinterpret_cast<Bytef*>(m_out.data() + m_used);
            m_zlib.avail_out = uInt(m_out.size() - m_used);
            const int result = deflate(&m_zlib, flush);
            m_used = m_out.size() - m_zlib.avail_out;
            if (result == Z_STREAM_END)
                return true;
            if (result != Z_OK && result != Z_BUF_ERROR)
                return false;
            if (flush == Z_NO_FLUSH && m_zlib.avail_in == 0)
                return true;
        }
    }

    const NameSearch& m_search;
    const Redactor& m_redactor;
    const qsizetype m_reach; ///< the longest name or value: how far back across a seam the scans look
    QByteArray m_seam; ///< the last m_reach bytes before the next piece
    z_stream m_zlib {};
    QByteArray m_out; ///< the 4-byte length, then the zlib stream
    qsizetype m_used = 4;
    qint64 m_total = 0;
    bool m_ok = false;
};

} // namespace

Encoded encode(const QByteArray& bytes)
{
    if (bytes.size() > CompressAbove)
        return { qCompress(bytes), true };
    return { bytes, false };
}

QByteArray decode(const QByteArray& blob, bool compressed)
{
    return compressed ? qUncompress(blob) : blob;
}

std::optional<CallRecord> decodeRecord(const QByteArray& blob, bool compressed)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(decode(blob, compressed), &parseError);
    if (!document.isObject())
        return std::nullopt;
    return CallRecord::fromJson(document.object());
}

/// Serializes and redacts a batch. Most records hold no secret: their JSON text mentions no sensitive
/// header name and no secret value (redactWire() finds nothing), and then Redactor::redactRecord() would
/// return the record unchanged, so the text is stored as it is. Any hit takes the full redaction, whose
/// output is exactly what redactRecord() gives. NameSearch has looked for the names already, so only
/// a text holding a secret value pays for redactWire(), whose own scan would look for the names again.
EncodedBatch encodeBatch(const LogBatch& batch)
{
    const Redactor& redactor = batch.redactor;
    const NameSearch* search = redactor.headerSearch();
    EncodedBatch out;
    out.upToSequence = batch.upToSequence;
    out.calls.reserve(batch.calls.size());
    for (const CallRecord& record : batch.calls) {
        CallRow row { CallSummary::of(record), {} };
        if (search && record.answerBytes() >= LargeRecordBytes) {
            if (std::optional<Encoded> streamed = StreamedRecord(*search, redactor).encode(record)) {
                row.record = std::move(*streamed);
                out.calls.append(std::move(row));
                continue;
            }
        }
        QByteArray json = record.toCompactJson();
        const bool clean = search && !search->foundIn(json)
            && (!redactor.containsSecretValue(json) || redactor.redactWire(json) == json);
        if (!clean) {
            json = QJsonDocument(redactor.redactRecord(record)).toJson(QJsonDocument::Compact);
            row.summary.server = redactor.redactText(row.summary.server);
            row.summary.tool = redactor.redactText(row.summary.tool);
            row.summary.method = redactor.redactText(row.summary.method);
            row.summary.rule = redactor.redactText(row.summary.rule);
        }
        row.record = encode(json);
        out.calls.append(std::move(row));
    }
    out.wire.reserve(batch.wire.size());
    for (const LogBatch::Wire& item : batch.wire)
        out.wire.append(
            { item.at, item.server, wireDirectionName(item.direction), encode(redactor.redactWire(item.payload)) });
    return out;
}
} // namespace mcpscope
