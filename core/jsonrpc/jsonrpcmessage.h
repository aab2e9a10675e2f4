#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace mcpscope {

// JSON-RPC 2.0 and MCP error codes (MCP-NOTES.md, "Error codes").
namespace ErrorCode {
constexpr int ParseError = -32700;
constexpr int InvalidRequest = -32600;
constexpr int MethodNotFound = -32601;
constexpr int InvalidParams = -32602;
constexpr int InternalError = -32603;
constexpr int ResourceNotFound = -32002;
constexpr int UrlElicitationRequired = -32042;
} // namespace ErrorCode

struct JsonRpcError
{
    int code = 0;
    QString message;
    QJsonValue data;

    QJsonObject toJson() const;
    static JsonRpcError fromJson(const QJsonObject& object);
};

/// One JSON-RPC 2.0 message. Ids are strings or integers, never null (MCP forbids null ids).
struct JsonRpcMessage
{
    enum class Type {
        Request,
        Notification,
        Response,
        ErrorResponse,
    };

    Type type = Type::Notification;
    QJsonValue id;
    QString method;
    QJsonObject params;
    /// Members added to params' _meta on the wire, already encoded ("key":value, comma-separated): for
    /// what is new on every request (the attempt's identity), where building QJsonObjects costs Qt 6.4
    /// thousands of instructions each. JsonRpcCodec::encode writes them; toJson() parses them back in.
    QByteArray rawMeta;
    QJsonValue result;
    JsonRpcError error;

    bool isRequest() const { return type == Type::Request; }
    bool isNotification() const { return type == Type::Notification; }
    bool isReply() const { return type == Type::Response || type == Type::ErrorResponse; }

    QJsonObject toJson() const;
    /// params with rawMeta's members in its _meta (a _meta that is not an object gives way to them).
    QJsonObject paramsWithRawMeta() const;

    static JsonRpcMessage request(const QJsonValue& id, const QString& method, const QJsonObject& params = {});
    static JsonRpcMessage notification(const QString& method, const QJsonObject& params = {});
    static JsonRpcMessage response(const QJsonValue& id, const QJsonValue& result);
    static JsonRpcMessage errorResponse(const QJsonValue& id, const JsonRpcError& error);
};

/// A stable key for an id, so that 1 and "1" stay distinct in hash maps.
QString idKey(const QJsonValue& id);

} // namespace mcpscope
