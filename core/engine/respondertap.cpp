#include "respondertap.h"

#include <QJsonObject>

namespace mcpscope {

ResponderTap::ResponderTap(std::function<void(const QString&)> declined)
    : m_declined(std::move(declined))
{ }

QJsonObject ResponderTap::capabilities() const
{
    return m_inner ? m_inner->capabilities() : QJsonObject();
}

void ResponderTap::respond(const JsonRpcMessage& request, Reply reply)
{
    if (!m_inner) {
        reply({}, JsonRpcError { ErrorCode::MethodNotFound, QStringLiteral("Method not found"), {} });
        return;
    }
    if (request.method != QLatin1String("elicitation/create")) {
        m_inner->respond(request, std::move(reply));
        return;
    }
    m_inner->respond(request,
        [declined = m_declined, reply = std::move(reply)](
            const QJsonValue& result, const std::optional<JsonRpcError>& error) {
            // Answered first: the note describes what the server already has.
            reply(result, error);
            const QString action = error ? error->message : result.toObject().value(QLatin1String("action")).toString();
            if (action != QLatin1String("accept") && declined)
                declined(action);
        });
}

} // namespace mcpscope
