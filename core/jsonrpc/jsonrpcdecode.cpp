// JsonRpcCodec's decoding half: the full parse through QJsonDocument, the short way for the common
// shapes, and the id of an answer QJsonDocument refused. Encoding is in jsonrpccodec.cpp.

#include "jsonrpccodec.h"

#include "translation.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QVariant>

#include <algorithm>
#include <cmath>
#include <optional>

namespace mcpscope {

namespace {

DecodeResult failure(const QString& why, const QJsonValue& id = {})
{
    DecodeResult result;
    result.error = why;
    result.id = id;
    return result;
}

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// One JSON text parsed on its own: a key or an id literal, which are short.
QJsonValue parseLiteral(QByteArrayView literal)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("[") + literal.toByteArray() + ']');
    return doc.array().isEmpty() ? QJsonValue() : doc.array().first();
}

/// Walks the members of one top-level JSON object without parsing their values: it follows strings and
/// brackets and counts depth instead of recursing, so it gets past whatever QJsonDocument would stop at
/// inside a value (invalid UTF-8, nesting deeper than it goes, a bad token). member(rawKey, rawValue,
/// depth) gets each key with its quotes, each value as written and how deep the value nests (0 for a
/// string, number or literal); returning false ends the walk. True when
/// every member was seen and the bytes were that one object and nothing but space after it.
template <typename Member> bool walkMembers(QByteArrayView bytes, Member member)
{
    const qsizetype n = bytes.size();
    qsizetype i = 0;
    const auto skipSpace = [&] {
        while (i < n && isJsonSpace(bytes[i]))
            ++i;
    };
    const auto stringEnd = [&](qsizetype at) -> qsizetype { // at is the opening quote
        for (qsizetype j = at + 1; j < n; ++j) {
            if (bytes[j] == '\\')
                ++j;
            else if (bytes[j] == '"')
                return j + 1;
        }
        return -1;
    };
    skipSpace();
    if (i >= n || bytes[i] != '{')
        return false;
    ++i;
    skipSpace();
    if (i < n && bytes[i] == '}') {
        ++i;
        skipSpace();
        return i == n;
    }
    while (i < n && bytes[i] == '"') {
        const qsizetype keyEnd = stringEnd(i);
        if (keyEnd < 0)
            return false;
        const QByteArrayView rawKey = bytes.sliced(i, keyEnd - i);
        i = keyEnd;
        skipSpace();
        if (i >= n || bytes[i] != ':')
            return false;
        ++i;
        skipSpace();
        const qsizetype valueStart = i;
        qint64 deepest = 0;
        if (i < n && bytes[i] == '"') {
            i = stringEnd(i);
            if (i < 0)
                return false;
        } else if (i < n && (bytes[i] == '{' || bytes[i] == '[')) {
            qint64 depth = 0;
            do {
                const char c = bytes[i];
                if (c == '"') {
                    i = stringEnd(i);
                    if (i < 0)
                        return false;
                    continue;
                }
                depth += c == '{' || c == '[' ? 1 : (c == '}' || c == ']' ? -1 : 0);
                deepest = std::max(deepest, depth);
                ++i;
            } while (i < n && depth > 0);
            if (depth > 0)
                return false;
        } else {
            while (i < n && bytes[i] != ',' && bytes[i] != '}' && !isJsonSpace(bytes[i]))
                ++i;
        }
        if (!member(rawKey, bytes.sliced(valueStart, i - valueStart), deepest))
            return false;
        skipSpace();
        if (i < n && bytes[i] == ',') {
            ++i;
            skipSpace();
            continue;
        }
        if (i >= n || bytes[i] != '}')
            return false;
        ++i;
        skipSpace();
        return i == n;
    }
    return false;
}

/// The id of a line that QJsonDocument refused, when the line is recognisably an answer: one complete
/// top-level object with a single "id" member and no "method" (walkMembers() gets past what the parser
/// stopped at). A request from the server is left alone: its id is in the server's numbering, not ours.
QJsonValue answerIdOf(QByteArrayView bytes)
{
    QJsonValue id;
    int ids = 0;
    const bool whole = walkMembers(bytes, [&](QByteArrayView rawKey, QByteArrayView value, qint64) {
        // Escapes could spell "method" or "id" in disguise, so an escaped key is decoded.
        const QString key = rawKey.contains('\\') ? parseLiteral(rawKey).toString()
                                                  : QString::fromUtf8(rawKey.sliced(1, rawKey.size() - 2));
        if (key == QLatin1String("method"))
            return false;
        if (key == QLatin1String("id")) {
            ++ids;
            id = parseLiteral(value);
        }
        return true;
    });
    // Only a whole object says it has no "method" further on; two ids name no one request.
    return whole && ids == 1 && JsonRpcCodec::isValidId(id) ? id : QJsonValue();
}

/// Text between quotes that needs no decoding: printable ASCII without escapes.
bool isPlainString(QByteArrayView value)
{
    if (value.size() < 2 || value.front() != '"' || value.back() != '"')
        return false;
    for (qsizetype i = 1; i + 1 < value.size(); ++i) {
        const auto c = uchar(value[i]);
        if (c < 0x20 || c >= 0x7f || c == '\\' || c == '"')
            return false;
    }
    return true;
}

/// An id as the common case writes it: a plain string, or an integer of at most 15 digits.
QJsonValue plainId(QByteArrayView value)
{
    if (isPlainString(value))
        return QString::fromLatin1(value.sliced(1, value.size() - 2));
    const qsizetype sign = value.startsWith('-') ? 1 : 0;
    const qsizetype digits = value.size() - sign;
    // No leading zeros, and no -0: the parser may keep that one as a double.
    if (digits < 1 || digits > 15 || (value[sign] == '0' && (digits > 1 || sign)))
        return QJsonValue(QJsonValue::Undefined);
    qint64 number = 0;
    for (qsizetype i = sign; i < value.size(); ++i) {
        if (value[i] < '0' || value[i] > '9')
            return QJsonValue(QJsonValue::Undefined);
        number = number * 10 + (value[i] - '0');
    }
    return sign ? -number : number;
}

/// An object or array value parsed on its own; undefined when QJsonDocument refuses it.
QJsonValue parseContainer(QByteArrayView value)
{
    if (value.isEmpty() || (value.front() != '{' && value.front() != '['))
        return QJsonValue(QJsonValue::Undefined);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromRawData(value.data(), value.size()), &error);
    if (error.error != QJsonParseError::NoError)
        return QJsonValue(QJsonValue::Undefined);
    if (document.isObject())
        return document.object();
    return document.array();
}

/// The shapes nearly every line has, decoded without building the envelope: a response carrying a
/// result, a request and a notification, with only the result or the params parsed. The envelope cost
/// a stdio call on the real path a tenth of its time (bench_stdiocall under perf). nullopt for anything
/// else (an error response, a key that is escaped, repeated or unknown, an id or method that needs
/// decoding, any value QJsonDocument refuses): decode() then parses the whole line, and its verdict and
/// messages are the ones that count. An accepted line gives exactly the message the full parse would.
std::optional<DecodeResult> decodeCommon(QByteArrayView bytes)
{
    QByteArrayView jsonrpc;
    QByteArrayView id;
    QByteArrayView method;
    QByteArrayView params;
    QByteArrayView result;
    const bool whole = walkMembers(bytes, [&](QByteArrayView key, QByteArrayView value, qint64 depth) {
        // Inside the envelope's level, as the full parse counts: QJsonDocument's limit stays the limit.
        if (depth >= JsonRpcCodec::MaxNestingDepth)
            return false;
        QByteArrayView* slot = nullptr;
        if (key == QByteArrayView("\"jsonrpc\""))
            slot = &jsonrpc;
        else if (key == QByteArrayView("\"id\""))
            slot = &id;
        else if (key == QByteArrayView("\"method\""))
            slot = &method;
        else if (key == QByteArrayView("\"params\""))
            slot = &params;
        else if (key == QByteArrayView("\"result\""))
            slot = &result;
        if (!slot || !slot->isNull() || value.isEmpty())
            return false;
        *slot = value;
        return true;
    });
    if (!whole || jsonrpc != QByteArrayView("\"2.0\""))
        return std::nullopt;
    DecodeResult decoded;
    JsonRpcMessage& message = decoded.message;
    if (!id.isNull()) {
        message.id = plainId(id);
        if (message.id.isUndefined())
            return std::nullopt;
    }
    if (!method.isNull()) {
        if (!result.isNull() || !isPlainString(method))
            return std::nullopt;
        message.method = QString::fromLatin1(method.sliced(1, method.size() - 2));
        if (!params.isNull()) {
            if (params.front() != '{')
                return std::nullopt;
            const QJsonValue object = parseContainer(params);
            if (!object.isObject())
                return std::nullopt;
            message.params = object.toObject();
        }
        message.type = id.isNull() ? JsonRpcMessage::Type::Notification : JsonRpcMessage::Type::Request;
        decoded.ok = true;
        return decoded;
    }
    if (id.isNull() || result.isNull() || !params.isNull())
        return std::nullopt;
    message.result = parseContainer(result);
    if (message.result.isUndefined())
        return std::nullopt;
    message.type = JsonRpcMessage::Type::Response;
    decoded.ok = true;
    return decoded;
}

QString idText(const QJsonValue& id)
{
    return id.isString() ? u'"' + id.toString() + u'"' : QString::number(id.toInteger());
}
} // namespace

bool JsonRpcCodec::isValidId(const QJsonValue& id)
{
    if (id.isString())
        return true;
    if (!id.isDouble())
        return false;
    const double value = id.toDouble();
    // Beyond 2^53 a double no longer names one integer, and idKey() could not keep such ids apart.
    return std::isfinite(value) && std::floor(value) == value && std::abs(value) <= 9007199254740991.0;
}

DecodeResult JsonRpcCodec::decode(QByteArrayView bytes)
{
    if (std::optional<DecodeResult> common = decodeCommon(bytes))
        return std::move(*common);
    QJsonParseError parseError;
    // fromJson() copies what it keeps, so the bytes can stay where they are.
    const QJsonDocument document
        = QJsonDocument::fromJson(QByteArray::fromRawData(bytes.data(), bytes.size()), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        QString why;
        switch (parseError.error) {
        case QJsonParseError::IllegalUTF8String:
            why = McpScope::tr("invalid UTF-8 at byte %1").arg(parseError.offset);
            break;
        case QJsonParseError::DeepNesting:
            why = McpScope::tr("nesting deeper than the %1 levels the JSON parser reads").arg(MaxNestingDepth);
            break;
        default:
            why = McpScope::tr("not valid JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset);
            break;
        }
        // The answer to a request still names it, so that request fails now instead of at its deadline.
        const QJsonValue id = answerIdOf(bytes);
        if (id.isUndefined())
            return failure(why);
        return failure(McpScope::tr("%1 in the answer to request %2").arg(why, idText(id)), id);
    }
    if (document.isArray())
        return failure(McpScope::tr("a JSON array (batches are not part of MCP)"));
    if (!document.isObject())
        return failure(McpScope::tr("not a JSON object"));
    return fromJson(document.object());
}

DecodeResult JsonRpcCodec::fromJson(const QJsonObject& object)
{
    const QJsonValue id = object.value(QLatin1String("id"));
    const QJsonValue usableId = isValidId(id) ? id : QJsonValue();
    if (object.value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0"))
        return failure(McpScope::tr("missing \"jsonrpc\": \"2.0\""), usableId);

    DecodeResult result;
    JsonRpcMessage& message = result.message;
    const QJsonValue method = object.value(QLatin1String("method"));
    if (!method.isUndefined()) {
        if (!method.isString())
            return failure(McpScope::tr("\"method\" is not a string"), usableId);
        message.method = method.toString();
        const QJsonValue params = object.value(QLatin1String("params"));
        if (!params.isUndefined() && !params.isObject())
            return failure(McpScope::tr("\"params\" of %1 is not an object").arg(message.method), usableId);
        message.params = params.toObject();
        if (id.isUndefined()) {
            message.type = JsonRpcMessage::Type::Notification;
        } else {
            if (!isValidId(id))
                return failure(
                    McpScope::tr("request %1 has an id that is neither a string nor an integer").arg(message.method));
            message.type = JsonRpcMessage::Type::Request;
            message.id = id;
        }
        result.ok = true;
        return result;
    }

    if (!isValidId(id))
        return failure(McpScope::tr("a response without a string or integer id"));
    message.id = id;
    const bool hasResult = object.contains(QLatin1String("result"));
    const QJsonValue error = object.value(QLatin1String("error"));
    if (hasResult == !error.isUndefined())
        return failure(McpScope::tr("a response must carry exactly one of \"result\" and \"error\""), id);
    if (hasResult) {
        message.type = JsonRpcMessage::Type::Response;
        message.result = object.value(QLatin1String("result"));
    } else {
        if (!error.isObject() || !error.toObject().value(QLatin1String("code")).isDouble())
            return failure(McpScope::tr("\"error\" is not an object with a numeric code"), id);
        message.type = JsonRpcMessage::Type::ErrorResponse;
        message.error = JsonRpcError::fromJson(error.toObject());
    }
    result.ok = true;
    return result;
}

} // namespace mcpscope
