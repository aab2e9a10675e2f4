#include "jsonrpccodec.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>

#include <cmath>

namespace mcpscope {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("JsonRpcCodec", text);
}

DecodeResult failure(const QString& why, const QJsonValue& id = {})
{
    DecodeResult result;
    result.error = why;
    result.id = id;
    return result;
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

QByteArray JsonRpcCodec::encode(const JsonRpcMessage& message)
{
    return QJsonDocument(message.toJson()).toJson(QJsonDocument::Compact);
}

DecodeResult JsonRpcCodec::decode(QByteArrayView bytes)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return failure(tr("not valid JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset));
    if (document.isArray())
        return failure(tr("a JSON array (batches are not part of MCP)"));
    if (!document.isObject())
        return failure(tr("not a JSON object"));
    return fromJson(document.object());
}

DecodeResult JsonRpcCodec::fromJson(const QJsonObject& object)
{
    const QJsonValue id = object.value(QLatin1String("id"));
    const QJsonValue usableId = isValidId(id) ? id : QJsonValue();
    if (object.value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0"))
        return failure(tr("missing \"jsonrpc\": \"2.0\""), usableId);

    DecodeResult result;
    JsonRpcMessage& message = result.message;
    const QJsonValue method = object.value(QLatin1String("method"));
    if (!method.isUndefined()) {
        if (!method.isString())
            return failure(tr("\"method\" is not a string"), usableId);
        message.method = method.toString();
        const QJsonValue params = object.value(QLatin1String("params"));
        if (!params.isUndefined() && !params.isObject())
            return failure(tr("\"params\" of %1 is not an object").arg(message.method), usableId);
        message.params = params.toObject();
        if (id.isUndefined()) {
            message.type = JsonRpcMessage::Type::Notification;
        } else {
            if (!isValidId(id))
                return failure(tr("request %1 has an id that is neither a string nor an integer").arg(message.method));
            message.type = JsonRpcMessage::Type::Request;
            message.id = id;
        }
        result.ok = true;
        return result;
    }

    if (!isValidId(id))
        return failure(tr("a response without a string or integer id"));
    message.id = id;
    const bool hasResult = object.contains(QLatin1String("result"));
    const QJsonValue error = object.value(QLatin1String("error"));
    if (hasResult == !error.isUndefined())
        return failure(tr("a response must carry exactly one of \"result\" and \"error\""), id);
    if (hasResult) {
        message.type = JsonRpcMessage::Type::Response;
        message.result = object.value(QLatin1String("result"));
    } else {
        if (!error.isObject() || !error.toObject().value(QLatin1String("code")).isDouble())
            return failure(tr("\"error\" is not an object with a numeric code"), id);
        message.type = JsonRpcMessage::Type::ErrorResponse;
        message.error = JsonRpcError::fromJson(error.toObject());
    }
    result.ok = true;
    return result;
}

} // namespace mcpscope
