#pragma once

// Test support: the real server-everything over stdio as a configured server, for tests that drive an
// Engine or a ServerConnection (the CLI's tests use clirun.h's everythingStdioCommand()).

#include "config/serverconfig.h"
#include "peerprocess.h"

namespace mcpscope::test {

inline ServerConfig everythingStdioConfig(const QString& name = QStringLiteral("everything"))
{
    ServerConfig config;
    config.name = name;
    config.transport = TransportKind::Stdio;
    config.command = nodeBinary();
    config.args = { everythingScript(), QStringLiteral("stdio") };
    config.cwd = peersDir();
    return config;
}

} // namespace mcpscope::test
