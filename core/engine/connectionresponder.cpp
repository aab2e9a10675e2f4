#include "connectionresponder.h"

#include "config/serverconfig.h"

namespace mcpscope {

QJsonObject ConnectionResponder::capabilities() const
{
    QJsonObject capabilities = m_inner ? m_inner->capabilities() : QJsonObject();
    if (!m_config->roots.isEmpty() || capabilities.contains(QLatin1String("roots")))
        capabilities.insert(QStringLiteral("roots"), QJsonObject { { QStringLiteral("listChanged"), true } });
    return capabilities;
}

void ConnectionResponder::respond(const JsonRpcMessage& request, Reply reply)
{
    if (request.method == QLatin1String("roots/list") && !m_config->roots.isEmpty()) {
        reply(QJsonObject { { QStringLiteral("roots"), m_config->rootsJson() } }, std::nullopt);
        return;
    }
    if (!m_inner) {
        reply({}, JsonRpcError { ErrorCode::MethodNotFound, QStringLiteral("Method not found"), {} });
        return;
    }
    m_inner->respond(request, std::move(reply));
}

} // namespace mcpscope
