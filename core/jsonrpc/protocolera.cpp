#include "protocolera.h"

#include "translation.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace mcpscope::Modern {

QString explainError(const JsonRpcError& error, int httpStatus, const QString& method)
{
    const QJsonObject data = error.data.toObject();
    switch (error.code) {
    case HeaderMismatch:
        return McpScope::tr(
            "-32020 header mismatch: the server found that this request's Mcp-Method, Mcp-Name or Mcp-Param-* "
            "headers do not match its body, and refused it before running anything. McpScope builds those headers "
            "from the method, the name and the tool's x-mcp-header annotations in the newest tools/list; a proxy "
            "that rewrites headers, or annotations that changed since that list, cause this.");
    case MissingClientCapability: {
        const QJsonValue required = data.value(QLatin1String("requiredCapabilities"));
        const QString which = required.isObject()
            ? QString::fromUtf8(QJsonDocument(required.toObject()).toJson(QJsonDocument::Compact))
            : McpScope::tr("the server did not say which");
        return McpScope::tr(
            "-32021 missing client capability: the server needs a capability McpScope did not declare in this "
            "request's _meta (%1). In 2026-07-28 capabilities travel with every request. The official SDK raises "
            "this from inside the handler, so a tool may have started before it was refused.")
            .arg(which);
    }
    case UnsupportedProtocolVersion: {
        QStringList versions;
        for (const QJsonValue& version : data.value(QLatin1String("supported")).toArray())
            versions.append(version.toString());
        return McpScope::tr(
            "-32022 unsupported protocol version: the server does not accept %1 on this request and refused it "
            "before running anything; it supports %2. A server that lists only 2025-11-25 or earlier speaks the "
            "legacy era: set its protocol era to auto or legacy.")
            .arg(ProtocolVersion,
                versions.isEmpty() ? McpScope::tr("no version it named") : versions.join(QStringLiteral(", ")));
    }
    case -32601:
        return httpStatus == 404
            ? McpScope::tr("-32601 method not found (HTTP 404): the server does not implement %1, and in 2026-07-28 "
                           "an unknown method is refused before anything runs. It is an optional feature this server "
                           "does not offer.")
                  .arg(method)
            : McpScope::tr("-32601 method not found: the server does not implement %1; nothing ran. It is an "
                           "optional feature this server does not offer.")
                  .arg(method);
    default:
        return {};
    }
}

} // namespace mcpscope::Modern
