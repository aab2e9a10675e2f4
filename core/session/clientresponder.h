#pragma once

#include "jsonrpc/jsonrpcmessage.h"

#include <functional>
#include <optional>

namespace mcpscope {

/// Answers the requests a server sends to the client: roots/list, sampling/createMessage and
/// elicitation/create. The CLI answers from flags or a file; the GUI plugs in dialogs.
class ClientResponder
{
public:
    using Reply = std::function<void(const QJsonValue& result, const std::optional<JsonRpcError>& error)>;

    virtual ~ClientResponder() = default;
    /// The client capabilities to declare in initialize ({"roots": {...}, "sampling": {}, ...}).
    virtual QJsonObject capabilities() const = 0;
    /// Called on the session's thread; reply may be called later, exactly once.
    virtual void respond(const JsonRpcMessage& request, Reply reply) = 0;
};

} // namespace mcpscope
