#include "jsonrpcmessage.h"

#include <QJsonDocument>

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

IdKey::IdKey(const QJsonValue& id)
{
    if (id.isDouble()) {
        m_kind = Kind::Number;
        m_number = id.toInteger();
    } else if (id.isString()) {
        m_kind = Kind::Text;
        m_text = id.toString();
    }
}

QString IdKey::display() const
{
    switch (m_kind) {
    case Kind::Number:
        return QString::number(m_number);
    case Kind::Text:
        return m_text;
    case Kind::None:
        break;
    }
    return {};
}

QString IdKey::toString() const
{
    return isEmpty() ? QString() : display().prepend(m_kind == Kind::Number ? u'n' : u's');
}

} // namespace mcpscope
