#pragma once

#include "config/serverconfig.h"
#include "transport/transport.h"

#include <functional>
#include <memory>

namespace mcpscope {

/// Builds the transport a server's configuration asks for. Returns nullptr and sets *error when the
/// configuration cannot be served (for example a transport this build does not have).
std::unique_ptr<Transport> createTransport(const ServerConfig& config, QString* error);

using TransportFactory = std::function<std::unique_ptr<Transport>(const ServerConfig& config, QString* error)>;
/// Makes createTransport build every transport with factory, until it is called with an empty one. The
/// seam through which tests give a connection a scripted transport (tests/support/faketransport.h).
void setTransportFactory(TransportFactory factory);

} // namespace mcpscope
