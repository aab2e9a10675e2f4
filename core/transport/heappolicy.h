#pragma once

namespace mcpscope {

/// Large blocks (a long stdio line, a 20 MB answer's parsed text and Raw JSON) are each mapped when
/// allocated and unmapped when freed. By default glibc raises its mmap threshold to the size of each
/// large block freed (up to 32 MiB); later blocks of that size come from the heap, and one freed between
/// live blocks stays resident. For a 20 MB answer that kept one payload's worth of freed memory in the
/// process: 5.0x the payload at the Raw JSON tab's peak instead of 4.0x (bench_appcalls). Setting the
/// threshold pins it. Call once, at the top of main(); a no-op without glibc.
void pinLargeBlockThreshold();

} // namespace mcpscope
