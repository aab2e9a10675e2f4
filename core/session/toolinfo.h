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
    /// execution.taskSupport (2025-11-25, experimental): whether a tools/call may or must carry params.task.
    /// Absent, or any value but "optional" and "required", is Forbidden, as the spec's default says.
    enum class TaskSupport { Forbidden, Optional, Required };

    QString name;
    QString title;
    QString description;
    QJsonObject inputSchema;
    QJsonObject outputSchema;
    QJsonObject annotations;
    QJsonObject raw;
    TaskSupport taskSupport = TaskSupport::Forbidden;
    /// The same name appears more than once in the listing this entry came from. Such a tool is
    /// write-capable whatever each entry says (RECOVERY.md §2): no entry is the truth, so the first
    /// one must not win. Set on every entry of that name by listFromJson() and markRepeatedNames().
    bool listedMoreThanOnce = false;
    /// 2026-07-28: why the client must leave this tool out (its x-mcp-header annotations are invalid);
    /// empty for a usable tool.
    QString excludedReason;

    /// readOnlyHint is exactly the JSON value true: not "true", not 1, not absent. This entry's hint
    /// only: whether a call may be replayed is RetryPolicy's question (listed once, in both listings).
    bool isReadOnly() const { return annotations.value(QLatin1String("readOnlyHint")) == QJsonValue(true); }
    bool isIdempotent() const { return annotations.value(QLatin1String("idempotentHint")) == QJsonValue(true); }
    bool hasOutputSchema() const { return !outputSchema.isEmpty(); }
    /// A call to this tool is sent as a task: always when the tool requires it, when the caller asks for one
    /// and the tool allows it, never when the tool forbids it.
    bool callsAsTask(bool wanted) const
    {
        return taskSupport == TaskSupport::Required || (wanted && taskSupport == TaskSupport::Optional);
    }
    /// "forbidden", "optional" or "required", as the spec spells it.
    static QString taskSupportName(TaskSupport support);

    static ToolInfo fromJson(const QJsonObject& object);
    /// Every entry of a tools/list "tools" array, in order, with listedMoreThanOnce set.
    static QList<ToolInfo> listFromJson(const QJsonArray& tools);
    /// Sets listedMoreThanOnce on every entry whose name appears more than once in tools.
    static void markRepeatedNames(QList<ToolInfo>& tools);
};

/// What one tools/list said about one tool name: the evidence RetryPolicy reads (RECOVERY.md §2).
struct ToolListing
{
    bool listed = false; ///< the name is in the listing
    bool listedMoreThanOnce = false; ///< write-capable, whatever the entries say
    QJsonObject annotations; ///< as sent; of the first entry when listedMoreThanOnce

    /// name in tools, a complete listing; a name that is not in it gives listed == false.
    static ToolListing of(const QList<ToolInfo>& tools, const QString& name);
    /// One entry of a marked list (listFromJson(), markRepeatedNames()): its own flag says whether
    /// the name is repeated.
    static ToolListing ofEntry(const ToolInfo& entry) { return { true, entry.listedMoreThanOnce, entry.annotations }; }
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

/// The params of a tools/call, {name, arguments}, kept while the tool and its arguments stay equal.
/// Building that QJsonObject costs about 8,000 instructions, a tenth of a stdio call (bench_stdiocall,
/// callgrind); a load run, a script's loop or a call repeated from the window sends the same tool with
/// equal arguments again. QJsonObject compares shared data first, so with the caller's same arguments
/// object the check is a pointer comparison.
class ToolCallParams
{
public:
    const QJsonObject& of(const QString& tool, const QJsonObject& arguments)
    {
        if (m_params.isEmpty() || tool != m_tool || arguments != m_arguments) {
            m_tool = tool;
            m_arguments = arguments;
            m_params = QJsonObject { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), arguments } };
        }
        return m_params;
    }

private:
    QString m_tool;
    QJsonObject m_arguments;
    QJsonObject m_params;
};

} // namespace mcpscope
