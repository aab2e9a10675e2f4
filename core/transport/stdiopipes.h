#pragma once

#include <QString>

#include <sys/types.h>

/// The POSIX pipe and signal details under StdioTransport, which does its own stdin and stdout I/O.
namespace mcpscope::stdiopipes {

/// Closes fd if it is open and marks it closed (-1).
void closeFd(int& fd);
/// "9 (SIGKILL)", for the message of a child a signal ended.
QString signalDescription(int signal);
/// Moves fd above 0-2, which QProcess's own redirections would overwrite in the child; false on failure.
bool moveAboveStdio(int& fd);
/// Makes a write to a pipe whose reader is gone harmless; returns whether writes must block SIGPIPE
/// themselves (writeWithSigpipeBlocked) because someone installed a handler for it.
bool writesNeedSigpipeBlocked();
/// write() without SIGPIPE reaching a handler.
ssize_t writeWithSigpipeBlocked(int fd, const char* data, size_t size);

} // namespace mcpscope::stdiopipes
