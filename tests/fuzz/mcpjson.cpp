#include "config/mcpjsonimport.h"
#include "fuzzinput.h"

// The mcp.json importers: McpScope workspaces, Claude Desktop style "mcpServers" files and VS Code's
// "servers" files, all JSONC. The first byte picks the file's name, which decides ${workspaceFolder}.
// Properties: stripping comments keeps every byte offset; a parse either gives servers or says why.
using namespace mcpscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto [control, view] = fuzz::takeControl(data, size);
    const QByteArray json = view.toByteArray();
    static const QString names[] = { QStringLiteral("/home/fuzz/project/.vscode/mcp.json"),
        QStringLiteral("/home/fuzz/claude_desktop_config.json"), QStringLiteral("/home/fuzz/demo.mcpscope.json"),
        QStringLiteral("mcp.json") };
    const QString& fileName = names[control % 4];

    qsizetype unterminated = -2;
    const QByteArray stripped = McpJsonImport::stripJsonc(json, &unterminated);
    fuzz::check(stripped.size() == json.size(), "stripping comments keeps every byte offset");
    fuzz::check(unterminated >= -1 && unterminated < json.size(), "an unterminated comment is inside the file");

    ConfigError error;
    McpJsonImport::Dialect dialect;
    const std::optional<QList<ServerConfig>> servers = McpJsonImport::parse(json, fileName, &error, &dialect);
    if (!servers)
        fuzz::check(!error.message.isEmpty(), "a failed import says why");

    (void)McpJsonImport::expandVariables(QString::fromUtf8(json), QStringLiteral("/home/fuzz/project"));
    return 0;
}
