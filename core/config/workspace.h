#pragma once

#include "mcpjsonimport.h"
#include "serverconfig.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
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
    // Server name -> its entry as the file wrote it, before ${workspaceFolder}, ${env:NAME} and the
    // other variables were expanded. Saving writes a field in this form again while it still expands
    // to the server's value there, so a workspace stays portable across a load, an edit and a save.
    // Callers that rename, copy or drop a server keep this in step (or leave it: a missing entry only
    // means the expanded values are written).
    QHash<QString, QJsonObject> rawForms;

    const ServerConfig* find(QStringView name) const;

    // Reads a workspace file or any mcp.json dialect (see McpJsonImport::parse). Returns
    // std::nullopt and sets *error, naming the file, on any failure.
    static std::optional<Workspace> load(const QString& path, ConfigError* error);

    // Writes the workspace format atomically (QSaveFile), so a crash never leaves a
    // half-written file. On failure returns false and sets *error to a translated message
    // naming the file. Fails without writing if two servers share a name.
    bool save(const QString& path, QString* error) const;

    // The workspace format, indented. Servers come out sorted by name. A string field whose raw form
    // (rawForms) expands, with ${workspaceFolder} = workspaceFolder, to the server's value is written
    // in its raw form; workspaceFolder defaults to the folder of filePath.
    QByteArray toJson(const QString& workspaceFolder = {}) const;
};

} // namespace mcpscope
