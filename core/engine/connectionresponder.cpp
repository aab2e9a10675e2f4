#include "connectionresponder.h"

#include "config/serverconfig.h"

namespace mcpscope {

QJsonObject ConnectionResponder::capabilities() const
{
    QJsonObject capabilities = m_inner ? m_inner->capabilities() : QJsonObject();
    if (!m_config->roots.isEmpty() || capabilities.contains(QLatin1String("roots")))
        capabilities.insert(QStringLiteral("roots"), QJsonObject { { QStringLiteral("listChanged"), true } });
    // 2025-11-25 tasks: McpScope is a requestor (it sends task-augmented tools/call and follows the task, see
    // TaskTracker). It declares no "requests", "list" or "cancel" of its own: it never runs a server's
    // sampling or elicitation as a task, so a server must send those as plain requests.
    if (!capabilities.contains(QLatin1String("tasks")))
        capabilities.insert(QStringLiteral("tasks"), QJsonObject());
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
