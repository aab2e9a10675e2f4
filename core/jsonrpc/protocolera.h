#pragma once

#include "enumnames.h"
#include "jsonrpcmessage.h"

#include <QLatin1String>

#include <optional>

namespace mcpscope {

/// Which MCP revision family a server is spoken to in (MCP-NOTES.md, "The 2026-07-28 revision"):
/// legacy is 2025-11-25 and earlier (initialize, sessions), modern is 2026-07-28 (sessionless, per-request
/// _meta). Auto probes with server/discover first and falls back to legacy.
enum class ProtocolEra { Auto, Legacy, Modern };

constexpr EnumName<ProtocolEra> ProtocolEraEntries[] = {
    { ProtocolEra::Auto, u"auto" },
    { ProtocolEra::Legacy, u"legacy" },
    { ProtocolEra::Modern, u"modern" },
};
constexpr EnumNames<ProtocolEra> ProtocolEraNames(ProtocolEraEntries);

/// The names in workspace files, on the command line and in `info --json`: "auto", "legacy", "modern".
inline QString protocolEraName(ProtocolEra era)
{
    return ProtocolEraNames.name(era);
}
inline std::optional<ProtocolEra> protocolEraFromName(QStringView name)
{
    return ProtocolEraNames.fromName(name);
}

namespace Modern {
/// The one modern revision McpScope speaks.
inline constexpr QLatin1String ProtocolVersion("2026-07-28");
inline constexpr QLatin1String Discover("server/discover");
inline constexpr QLatin1String Listen("subscriptions/listen");
inline constexpr QLatin1String Acknowledged("notifications/subscriptions/acknowledged");
inline constexpr QLatin1String ProtocolVersionKey("io.modelcontextprotocol/protocolVersion");
inline constexpr QLatin1String ClientCapabilitiesKey("io.modelcontextprotocol/clientCapabilities");
inline constexpr QLatin1String ClientInfoKey("io.modelcontextprotocol/clientInfo");
inline constexpr QLatin1String LogLevelKey("io.modelcontextprotocol/logLevel");
inline constexpr QLatin1String ServerInfoKey("io.modelcontextprotocol/serverInfo");
inline constexpr QLatin1String SubscriptionIdKey("io.modelcontextprotocol/subscriptionId");
/// The tasks extension (SEP-2663): tasks/get, tasks/update, tasks/cancel and resultType "task".
inline constexpr QLatin1String TasksExtension("io.modelcontextprotocol/tasks");
inline constexpr QLatin1String TaskStatusNotification("notifications/tasks");

// The revision's own error codes (MCP-NOTES.md; RECOVERY.md §9).
constexpr int HeaderMismatch = -32020;
constexpr int MissingClientCapability = -32021;
constexpr int UnsupportedProtocolVersion = -32022;

/// resultType values (a missing one means complete).
inline constexpr QLatin1String Complete("complete");
inline constexpr QLatin1String InputRequired("input_required");
inline constexpr QLatin1String Task("task");

/// The methods that may answer input_required (MRTR) and carry Mcp-Name.
inline bool isNamedMethod(QStringView method)
{
    return method == u"tools/call" || method == u"resources/read" || method == u"prompts/get";
}
/// Plain words for the revision's own errors (-32020, -32021, -32022, and -32601, which arrives as HTTP 404):
/// what the server said and what to do about it, for the result view and the call's timeline. Empty for any
/// other code. httpStatus: the status the error came with over HTTP (0 over stdio); method: the request's.
QString explainError(const JsonRpcError& error, int httpStatus, const QString& method);
/// Whether an error is one only a 2026-07-28 server raises: what era detection may trust.
inline bool isRecognizedModernError(const JsonRpcError& error)
{
    return error.code == HeaderMismatch || error.code == UnsupportedProtocolVersion;
}
} // namespace Modern

} // namespace mcpscope
