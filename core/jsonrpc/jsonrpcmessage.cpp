#include "jsonrpcmessage.h"

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

QJsonObject JsonRpcMessage::toJson() const
{
    QJsonObject object { { QStringLiteral("jsonrpc"), QStringLiteral("2.0") } };
    switch (type) {
    case Type::Request:
        object.insert(QStringLiteral("id"), id);
        object.insert(QStringLiteral("method"), method);
        if (!params.isEmpty())
            object.insert(QStringLiteral("params"), params);
        break;
    case Type::Notification:
        object.insert(QStringLiteral("method"), method);
        if (!params.isEmpty())
            object.insert(QStringLiteral("params"), params);
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
    if (id.isString())
        return QLatin1Char('s') + id.toString();
    if (id.isDouble())
        return QLatin1Char('n') + QString::number(id.toInteger());
    return {};
}

} // namespace mcpscope
