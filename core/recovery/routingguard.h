#pragma once

#include <QtGlobal>

namespace mcpscope {

/// What the routing guard (RECOVERY.md §4) reads before a healed call is sent again.
struct RoutingFacts
{
    quint64 callGeneration = 0; ///< the server configuration's generation when the call started
    quint64 currentGeneration = 0;
    bool isToolCall = false;
    bool hasSession = false;
    /// The session finished listing its tools; a list still in progress cannot say a tool is gone.
    bool toolsListed = false;
    bool toolListed = false; ///< the session's listing has the call's tool
};

/// The routing veto as a pure function: true when a retry may go out. The configuration changed
/// (a new generation) or the tool vanished from a finished listing → no retry.
bool stillRouted(const RoutingFacts& facts);

} // namespace mcpscope
