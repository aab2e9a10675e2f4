#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace mcpscope {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

/// The 2026-07-28 revision's HTTP headers (SEP-2243, MCP-NOTES.md): Mcp-Name from the body, and the
/// Mcp-Param-{X} headers a tool's inputSchema asks for with `x-mcp-header`.
namespace McpHeaders {

/// One `x-mcp-header` declaration: the argument's path through `properties`, and the header's X.
struct ParamHeader
{
    QStringList path;
    QString header;
};

/// A tool's declarations, or why its inputSchema is invalid (the tool is then left out of tools/list):
/// the annotation must sit on a property reached only through `properties`, be a non-empty RFC 9110
/// token, unique case-insensitively, on a string, integer or boolean property.
struct Scan
{
    QList<ParamHeader> params;
    QString invalidReason; ///< empty when valid
    bool valid() const { return invalidReason.isEmpty(); }
};
Scan scan(const QJsonObject& inputSchema);

/// Mcp-Param-{X} for one tools/call: absent and null arguments are left out; a value that is not a
/// primitive is left out rather than sent malformed.
HeaderList paramHeaders(const QList<ParamHeader>& params, const QJsonObject& arguments);

/// A header value as sent: safe visible ASCII as is, anything else as `=?base64?{utf-8 as base64}?=`.
QByteArray encodeValue(const QString& value);

/// The body field Mcp-Name mirrors for method (name, uri or taskId), empty for the other methods.
QString nameSource(const QString& method);

} // namespace McpHeaders

} // namespace mcpscope
