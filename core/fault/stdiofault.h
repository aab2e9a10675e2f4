#pragma once

#include "jsonrpc/enumnames.h"

namespace mcpscope {

/// The faults the engine injects into a stdio server's channel (DESIGN.md, fault injection): the
/// counterpart of the HTTP faults the FaultProxy makes.
enum class StdioFault {
    KillAfterWrite, ///< kill the child right after the next request is written, before it can answer
    CloseStdin, ///< close the child's stdin right after the next request
    Delay, ///< hold the next request back for a while
};

/// In the order the fault bar lists them. The names are what the CLI's `fault` step and the UI accept.
inline constexpr EnumName<StdioFault> StdioFaultEntries[] = {
    { StdioFault::KillAfterWrite, u"kill-after-write" },
    { StdioFault::CloseStdin, u"close-stdin" },
    { StdioFault::Delay, u"delay" },
};
inline constexpr EnumNames<StdioFault> StdioFaultNames(StdioFaultEntries);

} // namespace mcpscope
