#pragma once

class QAbstractSocket;

namespace mcpscope {

/// Ends a TCP connection with a reset (RST) instead of an orderly close (FIN): sets SO_LINGER to
/// {on, 0 s} on the native descriptor, then aborts the socket, so the kernel discards what is unsent and
/// answers with RST. This is how a crashed or killed server looks to its client. Returns false when the
/// option could not be set; the socket is aborted all the same (which is then an ordinary close).
bool resetConnection(QAbstractSocket* socket);

} // namespace mcpscope
