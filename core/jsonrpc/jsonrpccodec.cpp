#include "jsonrpccodec.h"

#include <QJsonArray>
#include <QLocale>
#include <QVariant>

#include <cmath>
#include <cstring>

namespace mcpscope {

namespace {

// A compact JSON writer for what encode() sends. Building a QJsonObject for the envelope and
// serializing it through QJsonDocument costs several times what writing the bytes does.
// Strings follow RFC 8259: quote, backslash and control characters escaped (\b \f \n \r \t, else
// \u00XX), everything else as UTF-8; a lone surrogate, which UTF-8 cannot carry, as \uXXXX (as
// QJsonDocument writes it). No raw newline can appear, which stdio framing relies on.
// The encoder's one way of adding bytes: QByteArray::append(const char*, n) goes through insert() in
// Qt 6.4, several times the cost of a resize and a memcpy, on every piece of every message.
void put(QByteArray& out, const char* data, qsizetype size)
{
    const qsizetype at = out.size();
    out.resize(at + size);
    std::memcpy(out.data() + at, data, size_t(size));
}

void put(QByteArray& out, QByteArrayView bytes)
{
    put(out, bytes.data(), bytes.size());
}

template <qsizetype N> void put(QByteArray& out, const char (&literal)[N])
{
    put(out, literal, N - 1);
}

void writeValue(QByteArray& out, const QJsonValue& value);

void writeHex4(QByteArray& out, char16_t unit)
{
    static constexpr char Hex[] = "0123456789abcdef";
    const char escape[6]
        = { '\\', 'u', Hex[(unit >> 12) & 0xf], Hex[(unit >> 8) & 0xf], Hex[(unit >> 4) & 0xf], Hex[unit & 0xf] };
    put(out, escape, 6);
}

void writeString(QByteArray& out, QStringView text)
{
    out.append('"');
    const char16_t* p = text.utf16();
    const char16_t* const end = p + text.size();
    while (p != end) {
        // The common case: a run of printable ASCII, copied in one go.
        const char16_t* run = p;
        while (run != end && *run >= 0x20 && *run < 0x80 && *run != u'"' && *run != u'\\')
            ++run;
        if (run != p) {
            const qsizetype at = out.size();
            out.resize(at + (run - p));
            char* dst = out.data() + at;
            for (; p != run; ++p)
                *dst++ = char(*p);
            continue;
        }
        const char16_t unit = *p++;
        if (unit < 0x80) {
            switch (unit) {
            case u'"':
                put(out, "\\\"", 2);
                break;
            case u'\\':
                put(out, "\\\\", 2);
                break;
            case u'\b':
                put(out, "\\b", 2);
                break;
            case u'\f':
                put(out, "\\f", 2);
                break;
            case u'\n':
                put(out, "\\n", 2);
                break;
            case u'\r':
                put(out, "\\r", 2);
                break;
            case u'\t':
                put(out, "\\t", 2);
                break;
            default:
                writeHex4(out, unit);
                break;
            }
        } else if (unit < 0x800) {
            const char bytes[2] = { char(0xc0 | (unit >> 6)), char(0x80 | (unit & 0x3f)) };
            put(out, bytes, 2);
        } else if (QChar::isHighSurrogate(unit) && p != end && QChar::isLowSurrogate(*p)) {
            const char32_t code = QChar::surrogateToUcs4(unit, *p++);
            const char bytes[4] = { char(0xf0 | (code >> 18)), char(0x80 | ((code >> 12) & 0x3f)),
                char(0x80 | ((code >> 6) & 0x3f)), char(0x80 | (code & 0x3f)) };
            put(out, bytes, 4);
        } else if (QChar::isSurrogate(unit)) {
            writeHex4(out, unit);
        } else {
            const char bytes[3]
                = { char(0xe0 | (unit >> 12)), char(0x80 | ((unit >> 6) & 0x3f)), char(0x80 | (unit & 0x3f)) };
            put(out, bytes, 3);
        }
    }
    out.append('"');
}

void writeNumber(QByteArray& out, const QJsonValue& value)
{
    // QJsonValue keeps 64-bit integers apart from doubles. An integer is written with all its
    // digits (toDouble() would round one beyond 2^53), a double as QJsonDocument writes it, so a
    // value keeps its kind through encode and decode.
    if (value.toVariant().typeId() == QMetaType::LongLong) {
        const qint64 i = value.toInteger();
        char buffer[24];
        char* const end = buffer + sizeof buffer;
        char* p = end;
        quint64 magnitude = i < 0 ? quint64(0) - quint64(i) : quint64(i);
        do {
            *--p = char('0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude != 0);
        if (i < 0)
            *--p = '-';
        put(out, p, end - p);
        return;
    }
    const double d = value.toDouble();
    if (std::isfinite(d))
        put(out, QByteArray::number(d, 'g', QLocale::FloatingPointShortest));
    else
        put(out, "null", 4); // JSON has no NaN or infinity; QJsonDocument writes null too
}

/// object, with extra (encoded "key":value members) at its end.
void writeObject(QByteArray& out, const QJsonObject& object, QByteArrayView extra = {})
{
    out.append('{');
    bool first = true;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!first)
            out.append(',');
        first = false;
        writeString(out, it.key());
        out.append(':');
        writeValue(out, it.value());
    }
    if (!extra.isEmpty()) {
        if (!first)
            out.append(',');
        put(out, extra);
    }
    out.append('}');
}

/// params with rawMeta's members in its _meta, as JsonRpcMessage::paramsWithRawMeta() builds it.
void writeParams(QByteArray& out, const QJsonObject& params, QByteArrayView rawMeta)
{
    if (rawMeta.isEmpty())
        return writeObject(out, params);
    const auto meta = params.constFind(QLatin1String("_meta"));
    const bool metaIsObject = meta != params.constEnd() && meta->isObject();
    out.append('{');
    bool first = true;
    if (!metaIsObject) {
        // "_meta" sorts before lowercase keys, where QJsonObject would have put it.
        put(out, R"("_meta":{)");
        put(out, rawMeta);
        out.append('}');
        first = false;
    }
    for (auto it = params.constBegin(); it != params.constEnd(); ++it) {
        if (it == meta && !metaIsObject)
            continue;
        if (!first)
            out.append(',');
        first = false;
        writeString(out, it.key());
        out.append(':');
        if (it == meta)
            writeObject(out, it->toObject(), rawMeta);
        else
            writeValue(out, it.value());
    }
    out.append('}');
}

void writeArray(QByteArray& out, const QJsonArray& array)
{
    out.append('[');
    bool first = true;
    for (const QJsonValue& element : array) {
        if (!first)
            out.append(',');
        first = false;
        writeValue(out, element);
    }
    out.append(']');
}

void writeValue(QByteArray& out, const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined: // not storable in an object or array; null where it is a value
        put(out, "null", 4);
        break;
    case QJsonValue::Bool:
        if (value.toBool())
            put(out, "true", 4);
        else
            put(out, "false", 5);
        break;
    case QJsonValue::Double:
        writeNumber(out, value);
        break;
    case QJsonValue::String:
        writeString(out, value.toString());
        break;
    case QJsonValue::Array:
        writeArray(out, value.toArray());
        break;
    case QJsonValue::Object:
        writeObject(out, value.toObject());
        break;
    }
}

} // namespace

QByteArray JsonRpcCodec::encode(const JsonRpcMessage& message)
{
    // Member order as the SDKs write it. A missing id (undefined) is left out, as QJsonObject did.
    QByteArray out;
    out.reserve(256);
    put(out, R"({"jsonrpc":"2.0")");
    const auto writeId = [&] {
        if (message.id.isUndefined())
            return;
        put(out, R"(,"id":)");
        writeValue(out, message.id);
    };
    switch (message.type) {
    case JsonRpcMessage::Type::Request:
    case JsonRpcMessage::Type::Notification:
        if (message.type == JsonRpcMessage::Type::Request)
            writeId();
        put(out, R"(,"method":)");
        writeString(out, message.method);
        if (!message.params.isEmpty() || !message.rawMeta.isEmpty()) {
            put(out, R"(,"params":)");
            writeParams(out, message.params, message.rawMeta);
        }
        break;
    case JsonRpcMessage::Type::Response:
        writeId();
        put(out, R"(,"result":)");
        if (message.result.isUndefined())
            put(out, "{}", 2);
        else
            writeValue(out, message.result);
        break;
    case JsonRpcMessage::Type::ErrorResponse:
        writeId();
        put(out, R"(,"error":{"code":)");
        put(out, QByteArray::number(message.error.code));
        put(out, R"(,"message":)");
        writeString(out, message.error.message);
        if (!message.error.data.isUndefined()) {
            put(out, R"(,"data":)");
            writeValue(out, message.error.data);
        }
        out.append('}');
        break;
    }
    out.append('}');
    return out;
}

} // namespace mcpscope
