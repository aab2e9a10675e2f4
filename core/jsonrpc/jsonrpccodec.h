#pragma once

#include "jsonrpcmessage.h"

#include <QByteArray>
#include <QByteArrayView>

namespace mcpscope {

struct DecodeResult
{
    bool ok = false;
    JsonRpcMessage message;
    QString error; ///< why the bytes are not a JSON-RPC 2.0 message, in words
    QJsonValue id; ///< the id, when the object had a usable one despite being invalid

    explicit operator bool() const { return ok; }
};

/// Encodes and decodes single JSON-RPC 2.0 messages. MCP has no batching, so an array is an error.
namespace JsonRpcCodec {
/// How deep QJsonDocument (Qt 6) nests arrays and objects before it gives up with DeepNesting.
constexpr int MaxNestingDepth = 1024;

QByteArray encode(const JsonRpcMessage& message);
DecodeResult decode(QByteArrayView bytes);
DecodeResult fromJson(const QJsonObject& object);
bool isValidId(const QJsonValue& id);
} // namespace JsonRpcCodec

} // namespace mcpscope
