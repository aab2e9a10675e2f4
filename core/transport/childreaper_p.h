#pragma once

#include <QSet>
#include <QtGlobal>

namespace mcpscope::ChildReaperPlatform {

// What ChildReaper needs from the platform (childreaper_linux.cpp, childreaper_other.cpp). held: the
// pids of children a QProcess started, which only that QProcess may reap.

bool becomeSubreaper();

/// waitpid(pid, WNOHANG) for each zombie among this process's own children that is not in held.
/// *adoptedRunning: whether a child that is not in held still runs (it may end later and need a pass).
int reapChildren(const QSet<qint64>& held, bool* adoptedRunning);

/// ChildReaper::stopDescendants.
int stopDescendants(const QSet<qint64>& held, int graceMs);

} // namespace mcpscope::ChildReaperPlatform
