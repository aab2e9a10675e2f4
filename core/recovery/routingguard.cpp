#include "routingguard.h"

namespace mcpscope {

bool stillRouted(const RoutingFacts& facts)
{
    if (facts.callGeneration != facts.currentGeneration)
        return false;
    if (!facts.isToolCall)
        return true;
    return facts.hasSession && (!facts.toolsListed || facts.toolListed);
}

} // namespace mcpscope
