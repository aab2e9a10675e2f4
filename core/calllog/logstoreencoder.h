#pragma once

#include "calllog/callrecord.h"
#include "calllog/callsummary.h"
#include "calllog/redactor.h"
#include "transport/transport.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace mcpscope {

/// Changes waiting for their group commit, as appended: the encoder redacts, serializes and compresses
/// them for the worker. Internal to LogStore, its encoder and its worker.
struct LogBatch
{
    struct Wire
    {
        qint64 at = 0;
        QString server;
        WireDirection direction = WireDirection::Outgoing;
        QByteArray payload;
    };
    QList<CallRecord> calls; ///< the newest version of each call changed since the last batch
    QList<Wire> wire;
    qint64 upToSequence = 0;
    Redactor redactor; ///< the store's redactor when the batch was handed over
};

/// A stored payload: compressed when that pays (see encode()).
struct Encoded
{
    QByteArray blob;
    bool compressed = false;
};

/// A call as the calls table stores it: summary columns (redacted) plus the redacted record.
struct CallRow
{
    CallSummary summary;
    Encoded record;
};

struct WireRow
{
    qint64 at = 0;
    QString server;
    QString direction;
    Encoded payload;
};

/// A batch ready for the worker: rows as the tables store them, already redacted.
struct EncodedBatch
{
    QList<CallRow> calls;
    QList<WireRow> wire;
    qint64 upToSequence = 0;
};

/// A record whose answer has at least this many bytes is written, scanned and compressed a piece at a time,
/// in pieces of LargeRecordPiece bytes: the whole text of a 20 MB answer's record would sit next to the
/// record, its wire line and the views while zlib worked through it (the Raw JSON tab's peak, issue 17).
constexpr qint64 LargeRecordBytes = 1024 * 1024;
constexpr qsizetype LargeRecordPiece = 256 * 1024;

/// Compresses bytes above a few KiB; smaller payloads are stored as they are.
Encoded encode(const QByteArray& bytes);
QByteArray decode(const QByteArray& blob, bool compressed);
/// A stored record; nullopt when the blob is not a JSON object.
std::optional<CallRecord> decodeRecord(const QByteArray& blob, bool compressed);

/// Serializes and redacts a batch. Most records hold no secret: their JSON text mentions no sensitive
/// header name and no secret value (redactWire() finds nothing), and then Redactor::redactRecord() would
/// return the record unchanged, so the text is stored as it is. Any hit takes the full redaction, whose
/// output is exactly what redactRecord() gives. NameSearch has looked for the names already, so only
/// a text holding a secret value pays for redactWire(), whose own scan would look for the names again.
EncodedBatch encodeBatch(const LogBatch& batch);

} // namespace mcpscope
