#include "toolinfo.h"

#include "schemavalidator.h"

#include <QCoreApplication>

namespace mcpscope {

ToolInfo ToolInfo::fromJson(const QJsonObject& object)
{
    ToolInfo tool;
    tool.name = object.value(QLatin1String("name")).toString();
    tool.title = object.value(QLatin1String("title")).toString();
    if (tool.title.isEmpty())
        tool.title = object.value(QLatin1String("annotations")).toObject().value(QLatin1String("title")).toString();
    tool.description = object.value(QLatin1String("description")).toString();
    tool.inputSchema = object.value(QLatin1String("inputSchema")).toObject();
    tool.outputSchema = object.value(QLatin1String("outputSchema")).toObject();
    tool.annotations = object.value(QLatin1String("annotations")).toObject();
    tool.raw = object;
    return tool;
}

ToolCallResult ToolCallResult::fromResult(const QJsonObject& result, const ToolInfo* tool)
{
    ToolCallResult call;
    call.content = result.value(QLatin1String("content")).toArray();
    call.structuredContent = result.value(QLatin1String("structuredContent"));
    call.isError = result.value(QLatin1String("isError")).toBool();
    if (tool && tool->hasOutputSchema() && !call.isError) {
        if (call.structuredContent.isUndefined()) {
            call.schemaVerdict = SchemaVerdict::Missing;
            call.schemaError = QCoreApplication::translate(
                "ToolCallResult", "tool '%1' declares an outputSchema but returned no structuredContent")
                                   .arg(tool->name);
        } else {
            call.schemaError = SchemaValidator::validate(tool->outputSchema, call.structuredContent);
            call.schemaVerdict = call.schemaError.isEmpty() ? SchemaVerdict::Valid : SchemaVerdict::Invalid;
        }
    }
    return call;
}

QString ToolCallResult::verdictName(SchemaVerdict verdict)
{
    switch (verdict) {
    case SchemaVerdict::NotApplicable:
        return QStringLiteral("not_applicable");
    case SchemaVerdict::Valid:
        return QStringLiteral("valid");
    case SchemaVerdict::Invalid:
        return QStringLiteral("invalid");
    case SchemaVerdict::Missing:
        return QStringLiteral("missing");
    }
    return {};
}

} // namespace mcpscope
