#include "heappolicy.h"

#include <cstdlib> // defines __GLIBC__ where it is glibc

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace mcpscope {

void pinLargeBlockThreshold()
{
#ifdef __GLIBC__
    // glibc's own starting value; setting it at all turns its dynamic raising off.
    constexpr int ThresholdBytes = 128 * 1024;
    mallopt(M_MMAP_THRESHOLD, ThresholdBytes);
#endif
}

} // namespace mcpscope
