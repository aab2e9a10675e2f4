#pragma once

#include "config/serverconfig.h"
#include "transport/transport.h"

#include <memory>

namespace mcpscope {

/// Builds the transport a server's configuration asks for. Returns nullptr and sets *error when the
/// configuration cannot be served (for example a transport this build does not have).
std::unique_ptr<Transport> createTransport(const ServerConfig& config, QString* error);

} // namespace mcpscope
