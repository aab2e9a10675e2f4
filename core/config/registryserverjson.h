#pragma once

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

// A server.json of the MCP registry (registry.modelcontextprotocol.io): how to run a server from a
// package (npm, PyPI, OCI, NuGet) or where its remote endpoint is. McpJsonImport reads it as one
// more dialect; each package and each remote becomes one server.
namespace mcpscope::RegistryServerJson {

// True when root looks like a server.json, or like the registry API's {"server": {...}} wrapper.
bool isServerJson(const QJsonObject& root);

struct Problem
{
    QString key; // dotted path, as in ConfigError
    QString message; // translated
};

// The servers of a server.json in McpScope's workspace form (what ServerConfig::fromJson reads),
// named after the server ("io.github.me/weather" gives "weather"; with several packages or remotes,
// "weather (npm)", "weather (remote)", …). Package and runtime arguments keep their values as
// written, named ones as "--flag value"; a variable without a value gets an empty one, for the user
// to fill in, and a secret one is marked secret. Returns std::nullopt and sets *problem when the file
// describes nothing McpScope can run.
std::optional<QList<QPair<QString, QJsonObject>>> toWorkspaceEntries(const QJsonObject& root, Problem* problem);

} // namespace mcpscope::RegistryServerJson
