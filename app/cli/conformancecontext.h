#pragma once

#include "auth/oauthclient.h"

#include <QJsonObject>

namespace mcpscope {

/// Fills the OAuth options from a conformance scenario's MCP_CONFORMANCE_CONTEXT (pre-registered client
/// credentials).
void applyConformanceContext(const QJsonObject& context, OAuthClient::Options& options);

} // namespace mcpscope
