#include "respondertap.h"

#include "calllog/callsummary.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QUrl>

namespace mcpscope {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ResponderTap", text);
}

QString shortened(QString text, int max = 80)
{
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text.size() > max ? text.left(max - 1) + QChar(0x2026) : text;
}

} // namespace

ResponderTap::ResponderTap(Hooks hooks)
    : m_hooks(std::move(hooks))
{ }

QJsonObject ResponderTap::capabilities() const
{
    return m_inner ? m_inner->capabilities() : QJsonObject();
}

QString ResponderTap::describeRequest(const JsonRpcMessage& request)
{
    const QJsonObject& params = request.params;
    if (request.method == QLatin1String("sampling/createMessage")) {
        const int messages = int(params.value(QLatin1String("messages")).toArray().size());
        QString text = tr("sampling/createMessage from the server: %1 message(s), maxTokens %2")
                           .arg(messages)
                           .arg(params.value(QLatin1String("maxTokens")).toInteger());
        if (params.contains(QLatin1String("tools")))
            text += tr(", %1 tool(s)").arg(params.value(QLatin1String("tools")).toArray().size());
        return text;
    }
    if (request.method == QLatin1String("elicitation/create")) {
        if (params.value(QLatin1String("mode")).toString() == QLatin1String("url"))
            return tr("elicitation/create (url) from the server: %1")
                .arg(QUrl(params.value(QLatin1String("url")).toString()).toDisplayString());
        const int fields = int(params.value(QLatin1String("requestedSchema"))
                                   .toObject()
                                   .value(QLatin1String("properties"))
                                   .toObject()
                                   .size());
        return tr("elicitation/create (form, %1 field(s)) from the server: %2")
            .arg(fields)
            .arg(shortened(params.value(QLatin1String("message")).toString()));
    }
    return tr("%1 from the server").arg(request.method);
}

QString ResponderTap::describeAnswer(
    const QString& method, const QJsonValue& result, const std::optional<JsonRpcError>& error)
{
    if (error)
        return tr("McpScope answered %1 with error %2: %3").arg(method).arg(error->code).arg(error->message);
    const QJsonObject object = result.toObject();
    if (method == QLatin1String("sampling/createMessage")) {
        const QJsonObject content = object.value(QLatin1String("content")).toObject();
        QString what = content.value(QLatin1String("type")).toString();
        if (what == QLatin1String("text"))
            what = QLatin1Char('"') + shortened(content.value(QLatin1String("text")).toString(), 60) + QLatin1Char('"');
        return tr("McpScope answered sampling/createMessage: %1 %2, model %3, stopReason %4")
            .arg(object.value(QLatin1String("role")).toString(), what, object.value(QLatin1String("model")).toString(),
                object.value(QLatin1String("stopReason")).toString());
    }
    if (method == QLatin1String("elicitation/create")) {
        const QString action = object.value(QLatin1String("action")).toString();
        if (!object.contains(QLatin1String("content")))
            return tr("McpScope answered elicitation/create: %1").arg(action);
        return tr("McpScope answered elicitation/create: %1 with %2 field(s)")
            .arg(action)
            .arg(object.value(QLatin1String("content")).toObject().size());
    }
    if (method == QLatin1String("roots/list"))
        return tr("McpScope answered roots/list: %1 root(s)")
            .arg(object.value(QLatin1String("roots")).toArray().size());
    return tr("McpScope answered %1").arg(method);
}

void ResponderTap::respond(const JsonRpcMessage& request, Reply reply)
{
    if (!m_inner) {
        reply({}, JsonRpcError { ErrorCode::MethodNotFound, QStringLiteral("Method not found"), {} });
        return;
    }
    if (m_hooks.note)
        m_hooks.note(CallSummary::ServerRequestEventKind, describeRequest(request));
    const ServerRequestOrigin origin = m_hooks.origin ? m_hooks.origin() : ServerRequestOrigin();
    m_inner->respondFrom(origin, request,
        [hooks = m_hooks, method = request.method, reply = std::move(reply)](
            const QJsonValue& result, const std::optional<JsonRpcError>& error) {
            // Answered first: the notes describe what the server already has.
            reply(result, error);
            if (hooks.note)
                hooks.note(CallSummary::ServerRequestEventKind, describeAnswer(method, result, error));
            if (method != QLatin1String("elicitation/create"))
                return;
            const QString action = error ? error->message : result.toObject().value(QLatin1String("action")).toString();
            if (action != QLatin1String("accept") && hooks.declined)
                hooks.declined(action);
        });
}

} // namespace mcpscope
