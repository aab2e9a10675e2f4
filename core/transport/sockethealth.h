#pragma once

#include <QtGlobal>

namespace mcpscope::SocketHealth {

/// Whether the peer of a connected, idle socket has closed or reset it, asked of the kernel without
/// reading or blocking (the FIN may be there before Qt's event loop has seen it). Data waiting on an
/// idle HTTP connection also counts as not reusable: nothing may arrive before a request.
bool idlePeerGone(qintptr descriptor);

/// Writes what the kernel takes now, without blocking and without SIGPIPE: the bytes it took (0 when its
/// buffer is full), or -1 when the socket failed (nothing was taken; the caller's own write reports why).
qint64 sendNow(qintptr descriptor, const char* data, qint64 size);

} // namespace mcpscope::SocketHealth
