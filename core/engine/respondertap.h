#pragma once

#include "session/clientresponder.h"

#include <functional>

namespace mcpscope {

/// Stands between a connection's sessions and the client's responder: forwards every server request
/// and its answer unchanged, and tells the connection when an elicitation/create was not accepted
/// (declined or cancelled), so that the calls in flight can say their result was made without the
/// input the server asked for.
class ResponderTap : public ClientResponder
{
public:
    /// declined(action) is called with "decline" or "cancel" (or the error's message) after the answer.
    explicit ResponderTap(std::function<void(const QString&)> declined);

    void setInner(ClientResponder* inner) { m_inner = inner; }
    ClientResponder* inner() const { return m_inner; }

    QJsonObject capabilities() const override;
    void respond(const JsonRpcMessage& request, Reply reply) override;

private:
    ClientResponder* m_inner = nullptr;
    std::function<void(const QString&)> m_declined;
};

} // namespace mcpscope
