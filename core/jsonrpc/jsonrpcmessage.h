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

/// A JSON-RPC id as a hash key, so that 1 and "1" stay distinct. Integer ids (all that McpScope sends)
/// hash and compare as integers: several maps look an id up on every message, and hashing a string
/// built per lookup was a tenth of a stdio call's CPU. Any other id (null, bool, object) is the empty key.
class IdKey
{
public:
    IdKey() = default;
    explicit IdKey(const QJsonValue& id);

    bool isEmpty() const { return m_kind == Kind::None; }
    /// "n" and the digits for a number, "s" and the text for a string, empty for any other id.
    QString toString() const;
    /// The id as the wire wrote it: a number's digits or a string's text (toString() without its tag).
    QString display() const;

    friend bool operator==(const IdKey& a, const IdKey& b) noexcept
    {
        return a.m_kind == b.m_kind && a.m_number == b.m_number && a.m_text == b.m_text;
    }
    friend bool operator!=(const IdKey& a, const IdKey& b) noexcept { return !(a == b); }
    friend size_t qHash(const IdKey& key, size_t seed = 0) noexcept
    {
        return key.m_kind == Kind::Text ? qHash(key.m_text, seed) : qHash(key.m_number, seed) ^ size_t(key.m_kind);
    }

private:
    enum class Kind : quint8 { None, Number, Text };
    Kind m_kind = Kind::None;
    qint64 m_number = 0;
    QString m_text;
};

inline IdKey idKey(const QJsonValue& id)
{
    return IdKey(id);
}

} // namespace mcpscope
