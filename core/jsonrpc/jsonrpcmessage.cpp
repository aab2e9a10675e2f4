#include "jsonrpcmessage.h"

#include <QJsonDocument>

#include <algorithm>
#include <iterator>

namespace mcpscope {

QJsonObject JsonRpcError::toJson() const
{
    QJsonObject object { { QStringLiteral("code"), code }, { QStringLiteral("message"), message } };
    if (!data.isUndefined())
        object.insert(QStringLiteral("data"), data);
    return object;
}

JsonRpcError JsonRpcError::fromJson(const QJsonObject& object)
{
    JsonRpcError error;
    error.code = object.value(QStringLiteral("code")).toInt();
    error.message = object.value(QStringLiteral("message")).toString();
    error.data = object.value(QStringLiteral("data"));
    return error;
}

QJsonObject JsonRpcMessage::paramsWithRawMeta() const
{
    if (rawMeta.isEmpty())
        return params;
    QJsonObject merged = params;
    QJsonObject meta = merged.value(QLatin1String("_meta")).toObject();
    const QJsonObject extra = QJsonDocument::fromJson('{' + rawMeta + '}').object();
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        meta.insert(it.key(), it.value());
    merged.insert(QStringLiteral("_meta"), meta);
    return merged;
}

QJsonObject JsonRpcMessage::toJson() const
{
    QJsonObject object { { QStringLiteral("jsonrpc"), QStringLiteral("2.0") } };
    switch (type) {
    case Type::Request:
        object.insert(QStringLiteral("id"), id);
        object.insert(QStringLiteral("method"), method);
        if (!params.isEmpty() || !rawMeta.isEmpty())
            object.insert(QStringLiteral("params"), paramsWithRawMeta());
        break;
    case Type::Notification:
        object.insert(QStringLiteral("method"), method);
        if (!params.isEmpty() || !rawMeta.isEmpty())
            object.insert(QStringLiteral("params"), paramsWithRawMeta());
        break;
    case Type::Response:
        object.insert(QStringLiteral("id"), id);
        object.insert(QStringLiteral("result"), result.isUndefined() ? QJsonValue(QJsonObject()) : result);
        break;
    case Type::ErrorResponse:
        object.insert(QStringLiteral("id"), id);
        object.insert(QStringLiteral("error"), error.toJson());
        break;
    }
    return object;
}

JsonRpcMessage JsonRpcMessage::request(const QJsonValue& id, const QString& method, const QJsonObject& params)
{
    JsonRpcMessage message;
    message.type = Type::Request;
    message.id = id;
    message.method = method;
    message.params = params;
    return message;
}

JsonRpcMessage JsonRpcMessage::notification(const QString& method, const QJsonObject& params)
{
    JsonRpcMessage message;
    message.type = Type::Notification;
    message.method = method;
    message.params = params;
    return message;
}

JsonRpcMessage JsonRpcMessage::response(const QJsonValue& id, const QJsonValue& result)
{
    JsonRpcMessage message;
    message.type = Type::Response;
    message.id = id;
    message.result = result;
    return message;
}

JsonRpcMessage JsonRpcMessage::errorResponse(const QJsonValue& id, const JsonRpcError& error)
{
    JsonRpcMessage message;
    message.type = Type::ErrorResponse;
    message.id = id;
    message.error = error;
    return message;
}

QString idKey(const QJsonValue& id)
{
    // Called several times per request: built with one allocation each.
    if (id.isDouble()) {
        const qint64 value = id.toInteger();
        char16_t buffer[24];
        char16_t* const end = buffer + std::size(buffer);
        char16_t* p = end;
        quint64 magnitude = value < 0 ? quint64(0) - quint64(value) : quint64(value);
        do {
            *--p = char16_t(u'0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude != 0);
        if (value < 0)
            *--p = u'-';
        *--p = u'n';
        return QString(reinterpret_cast<const QChar*>(p), end - p);
    }
    if (id.isString()) {
        const QString text = id.toString();
        QString key(text.size() + 1, Qt::Uninitialized);
        QChar* out = key.data();
        out[0] = u's';
        std::copy(text.cbegin(), text.cend(), out + 1);
        return key;
    }
    return {};
}

} // namespace mcpscope
