#pragma once

#include "auth/oauthclient.h"

#include <QJsonObject>
#include <QString>

namespace mcpscope {

/// Fills the OAuth options from a conformance scenario's MCP_CONFORMANCE_CONTEXT: pre-registered client
/// credentials, and for the extension scenarios the grant they test (client_credentials with a secret
/// or a private key, cross-app access with the IdP's ID token).
void applyConformanceContext(const QString& scenario, const QJsonObject& context, OAuthClient::Options& options);

} // namespace mcpscope
