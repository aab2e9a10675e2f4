#pragma once

#include "calllog/callrecord.h"
#include "transport/transportfailure.h"

#include <QString>

namespace mcpscope {

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

/// What a command's start() returns when it runs on the event loop and reports its code later.
constexpr int ExitStillRunning = -1;

/// The exit code of a run ended by SIGINT/SIGTERM, as a shell reports a killed process.
constexpr int exitCodeForSignal(int signal)
{
    return 128 + signal;
}

/// The table above as --help prints it.
QString exitCodesHelp();

/// The exit code for a failure of this kind (a session that could not start), and for how a call ended.
int exitCodeFor(FailureKind kind);
int exitCodeFor(CallOutcome outcome);

} // namespace mcpscope
