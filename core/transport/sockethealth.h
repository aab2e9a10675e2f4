#pragma once

#include <QtGlobal>

namespace mcpscope::SocketHealth {

/// Whether the peer of a connected, idle socket has closed or reset it, asked of the kernel without
/// reading or blocking (the FIN may be there before Qt's event loop has seen it). Data waiting on an
/// idle HTTP connection also counts as not reusable: nothing may arrive before a request.
bool idlePeerGone(qintptr descriptor);

} // namespace mcpscope::SocketHealth
