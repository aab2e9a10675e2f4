#pragma once

#include "serverconfig.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

// Reads the server lists other MCP clients keep, and McpScope's own workspace file, into
// ServerConfigs. The dialect is detected from the top-level keys:
//   {"mcpscopeWorkspace": N, "servers": {...}}   McpScope workspace
//   {"mcpServers": {...}}                        Claude Desktop, Claude Code, Cursor, Cline...
//   {"servers": {...}} or {"mcp": {"servers"}}   VS Code .vscode/mcp.json and settings.json
//   {"name": ..., "packages": [...], "remotes": [...]}  a server.json of the MCP registry
namespace mcpscope::McpJsonImport {

enum class Dialect {
    McpScopeWorkspace,
    ClaudeDesktop, // also Cursor and the other "mcpServers" clients
    VsCode, // "servers" entries with "type"
    McpRegistry, // a registry server.json: its packages and remotes (RegistryServerJson)
};

// Every dialect may contain // and /* */ comments and trailing commas (VS Code's JSONC).
// ${workspaceFolder} expands to the directory of fileName, except that for a VS Code file
// inside a ".vscode" directory it is the folder above, as in VS Code. ${env:NAME} expands
// from the process environment; ${input:...} and unknown variables are kept as written.
// fileName names the file in errors. Returns std::nullopt and sets *error on failure.
// *rawForms, if given, gets each server's entry in the workspace form before any variable was
// expanded (keyed by server name), so a save can write ${workspaceFolder} back (Workspace::toJson).
std::optional<QList<ServerConfig>> parse(const QByteArray& json, const QString& fileName, ConfigError* error,
    Dialect* dialect = nullptr, QHash<QString, QJsonObject>* rawForms = nullptr);

// Replaces comments and trailing commas outside strings with spaces, so the result is
// plain JSON with every byte offset, and so every line number, unchanged.
// *unterminatedCommentAt is the offset of a "/*" that never closes, else -1.
QByteArray stripJsonc(const QByteArray& json, qsizetype* unterminatedCommentAt = nullptr);

// Expands ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator}
// and ${env:NAME} in one string. forCommandLine quotes a value with spaces, as a
// "launchCommand" needs.
QString expandVariables(const QString& text, const QString& workspaceFolder, bool forCommandLine = false);

} // namespace mcpscope::McpJsonImport
