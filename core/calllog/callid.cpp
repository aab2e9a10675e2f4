// CallRecord::newCallId, apart from the record's serialization: how call ids are made.
#include "callrecord.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QUuid>

#include <array>

namespace mcpscope {

QString CallRecord::newCallId()
{
    std::array<quint32, 4> words;
    QRandomGenerator::global()->fillRange(words.data(), qsizetype(words.size()));
    auto* octets = reinterpret_cast<uchar*>(words.data());
    // RFC 9562 §5.7: the Unix time in milliseconds, big-endian, in octets 0–5; version 7 in the high nibble
    // of octet 6, variant 10 in the top bits of octet 8; the other 74 bits random.
    const auto ms = quint64(QDateTime::currentMSecsSinceEpoch());
    for (int i = 0; i < 6; ++i)
        octets[i] = uchar(ms >> (40 - 8 * i));
    octets[6] = uchar((octets[6] & 0x0f) | 0x70);
    octets[8] = uchar((octets[8] & 0x3f) | 0x80);
    return QUuid::fromRfc4122(QByteArrayView(reinterpret_cast<const char*>(octets), 16)).toString(QUuid::WithoutBraces);
}

} // namespace mcpscope
