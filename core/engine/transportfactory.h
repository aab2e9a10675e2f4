#pragma once

#include "config/serverconfig.h"
#include "transport/credentialprovider.h"
#include "transport/transport.h"

#include <functional>
#include <memory>

namespace mcpscope {

/// Builds the transport a server's configuration asks for. Returns nullptr and sets *error when the
/// configuration cannot be served (for example a transport this build does not have).
/// An HTTP transport reads the Authorization header of every request from credentials (the server's
/// OAuthClient, which gives it only for credentialUrl: the configured server URL, also when a local
/// fault proxy sits in front of it).
std::unique_ptr<Transport> createTransport(const ServerConfig& config, QString* error,
    const CredentialProvider* credentials = nullptr, const QUrl& credentialUrl = {});

using TransportFactory = std::function<std::unique_ptr<Transport>(const ServerConfig& config, QString* error)>;
/// Makes createTransport build every transport with factory, until it is called with an empty one. The
/// seam through which tests give a connection a scripted transport (tests/support/faketransport.h).
void setTransportFactory(TransportFactory factory);

} // namespace mcpscope
