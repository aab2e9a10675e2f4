#pragma once

#include "transport/transportfailure.h"

namespace mcpscope {

struct Reply;

/// mcpscope-cli's exit codes; README and --help document the same table.
enum ExitCode : int {
    ExitSuccess = 0,
    ExitToolError = 1, ///< the tool returned isError
    ExitUsage = 2, ///< usage or configuration error
    ExitOutcomeUncertain = 3, ///< a write may or may not have run (RECOVERY.md §5)
    ExitTransportFailure = 4, ///< transport or protocol failure
    ExitAuthRequired = 5, ///< authorization needed
    ExitBreakerOpen = 6, ///< the server's circuit breaker is open
    ExitTimeout = 7, ///< no answer before the deadline
};

/// The exit code for a failure of this kind, and for how a request ended.
int exitCodeFor(FailureKind kind);
int exitCodeFor(const Reply& reply);

} // namespace mcpscope
