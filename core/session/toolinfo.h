#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace mcpscope {

/// A tool as the last tools/list returned it. Annotations are kept exactly as sent: recovery
/// needs to know whether readOnlyHint is literally the JSON value true (RECOVERY.md §2).
struct ToolInfo
{
    QString name;
    QString title;
    QString description;
    QJsonObject inputSchema;
    QJsonObject outputSchema;
    QJsonObject annotations;
    QJsonObject raw;

    /// readOnlyHint is exactly the JSON value true: not "true", not 1, not absent.
    bool isReadOnly() const { return annotations.value(QLatin1String("readOnlyHint")) == QJsonValue(true); }
    bool isIdempotent() const { return annotations.value(QLatin1String("idempotentHint")) == QJsonValue(true); }
    bool hasOutputSchema() const { return !outputSchema.isEmpty(); }

    static ToolInfo fromJson(const QJsonObject& object);
};

/// What a tools/call result says, with the structuredContent checked against the tool's outputSchema.
struct ToolCallResult
{
    enum class SchemaVerdict { NotApplicable, Valid, Invalid, Missing };

    QJsonArray content;
    QJsonValue structuredContent;
    bool isError = false;
    SchemaVerdict schemaVerdict = SchemaVerdict::NotApplicable;
    QString schemaError;

    static ToolCallResult fromResult(const QJsonObject& result, const ToolInfo* tool);
    static QString verdictName(SchemaVerdict verdict);
};

} // namespace mcpscope
