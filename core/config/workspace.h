#pragma once

#include "mcpjsonimport.h"
#include "serverconfig.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringView>

#include <optional>

namespace mcpscope {

// The list of servers McpScope works with, read from its own workspace file or imported
// from another client's mcp.json.
class Workspace
{
public:
    // The "mcpscopeWorkspace" version this build writes and the newest it reads.
    static constexpr int FormatVersion = 1;

    QList<ServerConfig> servers;
    QString filePath; // absolute path of the file loaded, empty for a new workspace
    // Which format filePath holds. Saving over a file of another client's dialect would
    // replace that client's configuration, so callers should ask for a new path then.
    McpJsonImport::Dialect dialect = McpJsonImport::Dialect::McpScopeWorkspace;

    const ServerConfig* find(QStringView name) const;

    // Reads a workspace file or any mcp.json dialect (see McpJsonImport::parse). Returns
    // std::nullopt and sets *error, naming the file, on any failure.
    static std::optional<Workspace> load(const QString& path, ConfigError* error);

    // Writes the workspace format atomically (QSaveFile), so a crash never leaves a
    // half-written file. On failure returns false and sets *error to a translated message
    // naming the file. Fails without writing if two servers share a name.
    bool save(const QString& path, QString* error) const;

    // The workspace format, indented. Servers come out sorted by name.
    QByteArray toJson() const;
};

} // namespace mcpscope
