#include "scriptedresponder.h"

#include "inputschema.h"

#include <QCoreApplication>

namespace mcpscope {

ScriptedResponder::ScriptedResponder(QJsonObject script)
    : m_script(std::move(script))
{ }

QJsonObject ScriptedResponder::capabilities() const
{
    // Declared even when unscripted, so servers show every tool; unscripted requests are declined.
    QJsonObject capabilities {
        { QStringLiteral("sampling"), QJsonObject() },
        { QStringLiteral("elicitation"),
            QJsonObject { { QStringLiteral("form"), QJsonObject() }, { QStringLiteral("url"), QJsonObject() } } },
    };
    if (m_declareUnscriptedRoots || m_script.contains(QLatin1String("roots")))
        capabilities.insert(QStringLiteral("roots"), QJsonObject { { QStringLiteral("listChanged"), false } });
    return capabilities;
}

QJsonObject ScriptedResponder::elicitationResult(const QJsonObject& script, const QJsonObject& params)
{
    const QJsonObject answer = script.value(QLatin1String("elicitation")).toObject();
    const QString action = answer.value(QLatin1String("action")).toString(QStringLiteral("decline"));
    QJsonObject result { { QStringLiteral("action"), action } };
    if (action != QLatin1String("accept"))
        return result;
    // The defaults as the app's elicitation form fills them in (InputSchema, shared with the tool composer).
    QJsonObject content;
    const InputSchema form = InputSchema::forArguments(params.value(QLatin1String("requestedSchema")).toObject());
    for (const InputSchema::Property& property : form.properties) {
        if (!property.field.defaultValue.isUndefined())
            content.insert(property.key, property.field.defaultValue);
    }
    const QJsonObject given = answer.value(QLatin1String("content")).toObject();
    for (auto it = given.constBegin(); it != given.constEnd(); ++it)
        content.insert(it.key(), it.value());
    result.insert(QStringLiteral("content"), content);
    return result;
}

void ScriptedResponder::respond(const JsonRpcMessage& request, Reply reply)
{
    ++m_answered;
    if (request.method == QLatin1String("roots/list")) {
        reply(QJsonObject { { QStringLiteral("roots"), m_script.value(QLatin1String("roots")).toArray() } },
            std::nullopt);
        return;
    }
    if (request.method == QLatin1String("sampling/createMessage")) {
        const QJsonValue sampling = m_script.value(QLatin1String("sampling"));
        if (!sampling.isObject()) {
            reply({},
                JsonRpcError { -1,
                    QCoreApplication::translate("ScriptedResponder",
                        "McpScope declined the sampling request: no sampling answer was scripted "
                        "(use --sampling-text)"),
                    {} });
            return;
        }
        const QJsonObject object = sampling.toObject();
        if (object.contains(QLatin1String("role"))) {
            reply(object, std::nullopt);
            return;
        }
        reply(
            QJsonObject {
                { QStringLiteral("role"), QStringLiteral("assistant") },
                { QStringLiteral("content"),
                    QJsonObject { { QStringLiteral("type"), QStringLiteral("text") },
                        { QStringLiteral("text"), object.value(QLatin1String("text")).toString() } } },
                { QStringLiteral("model"),
                    object.value(QLatin1String("model")).toString(QStringLiteral("mcpscope-scripted")) },
                { QStringLiteral("stopReason"), QStringLiteral("endTurn") },
            },
            std::nullopt);
        return;
    }
    if (request.method == QLatin1String("elicitation/create")) {
        reply(elicitationResult(m_script, request.params), std::nullopt);
        return;
    }
    reply({}, JsonRpcError { ErrorCode::MethodNotFound, QStringLiteral("Method not found"), {} });
}

} // namespace mcpscope
