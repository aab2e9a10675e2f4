#include "toolinfo.h"

#include "jsonrpc/enumnames.h"
#include "schemavalidator.h"

#include <QCoreApplication>
#include <QHash>

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
    const QJsonValue support = object.value(QLatin1String("execution")).toObject().value(QLatin1String("taskSupport"));
    if (support == QJsonValue(QStringLiteral("required")))
        tool.taskSupport = TaskSupport::Required;
    else if (support == QJsonValue(QStringLiteral("optional")))
        tool.taskSupport = TaskSupport::Optional;
    return tool;
}

QString ToolInfo::taskSupportName(TaskSupport support)
{
    switch (support) {
    case TaskSupport::Required:
        return QStringLiteral("required");
    case TaskSupport::Optional:
        return QStringLiteral("optional");
    case TaskSupport::Forbidden:
        break;
    }
    return QStringLiteral("forbidden");
}

QList<ToolInfo> ToolInfo::listFromJson(const QJsonArray& tools)
{
    QList<ToolInfo> list;
    list.reserve(tools.size());
    for (const QJsonValue& value : tools)
        list.append(fromJson(value.toObject()));
    markRepeatedNames(list);
    return list;
}

void ToolInfo::markRepeatedNames(QList<ToolInfo>& tools)
{
    QHash<QString, int> counts;
    counts.reserve(tools.size());
    for (const ToolInfo& tool : std::as_const(tools))
        ++counts[tool.name];
    for (ToolInfo& tool : tools)
        tool.listedMoreThanOnce = counts.value(tool.name) > 1;
}

ToolListing ToolListing::of(const QList<ToolInfo>& tools, const QString& name)
{
    ToolListing listing;
    for (const ToolInfo& tool : tools) {
        if (tool.name != name)
            continue;
        if (listing.listed) {
            // Counted here, not read from the flag: a list built by hand may never have been marked.
            listing.listedMoreThanOnce = true;
            break;
        }
        listing.listed = true;
        listing.annotations = tool.annotations;
    }
    return listing;
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

namespace {
constexpr EnumName<ToolCallResult::SchemaVerdict> VerdictEntries[] = {
    { ToolCallResult::SchemaVerdict::NotApplicable, u"not_applicable" },
    { ToolCallResult::SchemaVerdict::Valid, u"valid" },
    { ToolCallResult::SchemaVerdict::Invalid, u"invalid" },
    { ToolCallResult::SchemaVerdict::Missing, u"missing" },
};
constexpr EnumNames<ToolCallResult::SchemaVerdict> VerdictNames(VerdictEntries);
} // namespace

QString ToolCallResult::verdictName(SchemaVerdict verdict)
{
    return VerdictNames.name(verdict);
}

} // namespace mcpscope
