#include "transportfactory.h"

#include "transport/stdiotransport.h"

#include <QCoreApplication>

namespace mcpscope {

std::unique_ptr<Transport> createTransport(const ServerConfig& config, QString* error)
{
    switch (config.transport) {
    case TransportKind::Stdio: {
        if (config.command.isEmpty()) {
            if (error)
                *error = QCoreApplication::translate("Engine", "Server '%1' has no command to start.").arg(config.name);
            return nullptr;
        }
        StdioTransport::Options options;
        options.serverName = config.name;
        options.command = config.command;
        options.args = config.args;
        options.env = config.env;
        options.cwd = config.cwd;
        options.maxMessageBytes = config.maxResponseBytes;
        return std::make_unique<StdioTransport>(options);
    }
    case TransportKind::StreamableHttp:
    case TransportKind::LegacySse:
    case TransportKind::AutoHttp:
        break;
    }
    if (error)
        *error = QCoreApplication::translate("Engine", "Server '%1' uses the %2 transport, which this build cannot "
                                                       "connect to yet.")
                     .arg(config.name, transportKindName(config.transport));
    return nullptr;
}

} // namespace mcpscope
