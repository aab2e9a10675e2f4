#include "clientsession.h"

#include "jsonrpc/pagedlist.h"

#include <QJsonArray>

namespace mcpscope {

// The session's features over its requests: paged lists, the tool listing recovery reads, and what
// the server sends on its own (server→client requests and notifications).

namespace {
const QLatin1String Ping("ping");
} // namespace

void ClientSession::onServerRequest(const JsonRpcMessage& message)
{
    const QJsonValue id = message.id;
    auto send = [session = QPointer<ClientSession>(this), id](
                    const QJsonValue& result, const std::optional<JsonRpcError>& error) {
        if (!session || !session->m_transport || session->m_state == State::Closed || session->m_state == State::Failed)
            return;
        session->m_transport->send(
            error ? JsonRpcMessage::errorResponse(id, *error) : JsonRpcMessage::response(id, result));
    };
    if (message.method == Ping) {
        send(QJsonObject(), std::nullopt);
        return;
    }
    QString capability;
    if (message.method == QLatin1String("roots/list"))
        capability = QStringLiteral("roots");
    else if (message.method == QLatin1String("sampling/createMessage"))
        capability = QStringLiteral("sampling");
    else if (message.method == QLatin1String("elicitation/create"))
        capability = QStringLiteral("elicitation");
    if (!capability.isEmpty() && m_responder && m_responder->capabilities().contains(capability)) {
        m_responder->respond(message, send);
        return;
    }
    send({},
        JsonRpcError { ErrorCode::MethodNotFound,
            capability.isEmpty() ? tr("Method not found: %1").arg(message.method)
                                 : tr("Method not found: the client did not declare the %1 capability").arg(capability),
            {} });
}

void ClientSession::onNotification(const JsonRpcMessage& message)
{
    const QString& method = message.method;
    if (m_modern && !acceptedFromListen(message))
        return;
    if (method == QLatin1String("notifications/progress")) {
        const QJsonValue token = message.params.value(QLatin1String("progressToken"));
        const double value = message.params.value(QLatin1String("progress")).toDouble();
        if (const auto entry = m_tracker.progress(token, value)) {
            const auto it = m_pending.constFind(idKey(entry->id));
            if (it != m_pending.constEnd() && it->onProgress && (!it->hasContext || it->context)) {
                ProgressUpdate update;
                update.progress = value;
                const QJsonValue total = message.params.value(QLatin1String("total"));
                if (total.isDouble())
                    update.total = total.toDouble();
                update.message = message.params.value(QLatin1String("message")).toString();
                it->onProgress(update);
            }
        }
    } else if (method == QLatin1String("notifications/message")) {
        Q_EMIT logMessage(message.params.value(QLatin1String("level")).toString(),
            message.params.value(QLatin1String("logger")).toString(), message.params.value(QLatin1String("data")));
    } else if (method == QLatin1String("notifications/tools/list_changed")) {
        // server-everything sends this even before answering initialize. A list already on its way
        // may predate the change, so it is listed again once that one lands.
        if (m_toolsListsInFlight > 0)
            m_toolsDirty = true;
        else if (m_toolsListed && m_state == State::Ready)
            listTools(nullptr);
    }
    Q_EMIT notificationReceived(message);
}

void ClientSession::listAll(const QString& method, const QString& key, ReplyHandler done, QObject* context)
{
    QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    listPage(method, key, QString(), std::make_shared<QJsonArray>(),
        [done = std::move(done), guard, hasContext](const Reply& reply) {
            if (hasContext && !guard)
                return;
            if (done)
                done(reply);
        });
}

void ClientSession::listPage(const QString& method, const QString& key, const QString& cursor,
    std::shared_ptr<QJsonArray> items, std::function<void(const Reply&)> done)
{
    QJsonObject params;
    if (!cursor.isNull())
        params.insert(QStringLiteral("cursor"), cursor);
    RequestOptions options;
    options.timeoutMs = m_options.requestTimeoutMs;
    request(
        method, params, options,
        [this, method, key, items, done = std::move(done)](const Reply& reply) mutable {
            if (!reply.ok()) {
                done(reply);
                return;
            }
            const QJsonObject result = reply.resultObject();
            const QString next = PagedList::appendPage(result, key, *items);
            if (!next.isNull()) {
                listPage(method, key, next, items, std::move(done));
                return;
            }
            Reply all = reply;
            all.result = PagedList::merged(result, key, *items);
            done(all);
        },
        this);
}

void ClientSession::listTools(ReplyHandler done, QObject* context)
{
    QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    ++m_toolsListsInFlight;
    listAll(
        QStringLiteral("tools/list"), QStringLiteral("tools"),
        [this, done = std::move(done), guard, hasContext](const Reply& reply) {
            --m_toolsListsInFlight;
            if (m_toolsDirty && m_toolsListsInFlight == 0 && m_state == State::Ready) {
                m_toolsDirty = false;
                listTools(nullptr);
            }
            if (reply.ok()) {
                // Marks names listed more than once: they are write-capable (RECOVERY.md §2).
                m_tools = ToolInfo::listFromJson(reply.resultObject().value(QLatin1String("tools")).toArray());
                // 2026-07-28: a tool whose header annotations are invalid must be left out.
                screenModernTools();
                m_toolsListed = true;
                Q_EMIT toolsChanged();
            }
            if (hasContext && !guard)
                return;
            if (done)
                done(reply);
        },
        this);
}

QJsonValue ClientSession::callTool(const QString& name, const QJsonObject& arguments, const RequestOptions& options,
    ReplyHandler done, QObject* context)
{
    return request(QStringLiteral("tools/call"), m_lastToolCall.of(name, arguments), options, std::move(done), context);
}

const ToolInfo* ClientSession::tool(const QString& name) const
{
    for (const ToolInfo& tool : m_tools) {
        if (tool.name == name)
            return &tool;
    }
    return nullptr;
}

ToolListing ClientSession::listing(const QString& name) const
{
    // No listing yet says nothing about the tool: not listed, so write-capable.
    return m_toolsListed ? ToolListing::of(m_tools, name) : ToolListing {};
}

} // namespace mcpscope
