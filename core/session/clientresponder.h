#pragma once

#include "jsonrpc/jsonrpcmessage.h"

#include <QPointer>
#include <QStringList>

#include <functional>
#include <optional>

namespace mcpscope {

/// Who asks the client something: the server, the session it came on (gone once that session is), and the
/// calls in flight on the server's connection when the request came, which caused it (a stdio server
/// cannot say which one, so it is every call in flight).
struct ServerRequestOrigin
{
    QString server;
    QPointer<QObject> session;
    QStringList callIds;
};

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
    /// As respond(), for a responder that serves every server of an engine: the connection says who asks.
    virtual void respondFrom(const ServerRequestOrigin& origin, const JsonRpcMessage& request, Reply reply)
    {
        Q_UNUSED(origin);
        respond(request, std::move(reply));
    }
};

} // namespace mcpscope
