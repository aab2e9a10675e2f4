// ChildReaper where there is no subreaper (macOS, Windows; see childreaper.h): nothing is ever handed
// to McpScope, so there is nothing to reap or stop beyond the process groups.

#include "childreaper_p.h"

namespace mcpscope {

bool ChildReaperPlatform::becomeSubreaper()
{
    return false;
}

int ChildReaperPlatform::reapChildren(const QSet<qint64>&, bool* adoptedRunning)
{
    *adoptedRunning = false;
    return 0;
}

int ChildReaperPlatform::stopDescendants(const QSet<qint64>&, int)
{
    return 0;
}

} // namespace mcpscope
