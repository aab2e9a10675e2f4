#pragma once

#include "session/clientresponder.h"

#include <functional>

namespace mcpscope {

/// Stands between a connection's sessions and the client's responder: forwards every server request
/// with its origin (the server, its session, the calls in flight), puts the request and its answer on
/// the timeline of those calls, and tells the connection when an elicitation/create was not accepted
/// (declined or cancelled), so that the calls in flight can say their result was made without the
/// input the server asked for.
class ResponderTap : public ClientResponder
{
public:
    struct Hooks
    {
        /// Who asks, at the moment the request arrives.
        std::function<ServerRequestOrigin()> origin;
        /// Puts an event on the calls in flight (kind, text).
        std::function<void(const QString&, const QString&)> note;
        /// Called with "decline" or "cancel" (or the error's message) after an elicitation's answer.
        std::function<void(const QString&)> declined;
    };

    explicit ResponderTap(Hooks hooks);

    void setInner(ClientResponder* inner) { m_inner = inner; }
    ClientResponder* inner() const { return m_inner; }

    QJsonObject capabilities() const override;
    void respond(const JsonRpcMessage& request, Reply reply) override;

    /// The timeline's words for a server request and for its answer.
    static QString describeRequest(const JsonRpcMessage& request);
    static QString describeAnswer(
        const QString& method, const QJsonValue& result, const std::optional<JsonRpcError>& error);

private:
    ClientResponder* m_inner = nullptr;
    Hooks m_hooks;
};

} // namespace mcpscope
