#pragma once

#include <QtGlobal>

namespace mcpscope {

/// Makes McpScope answer for every process its servers start, not only for their process groups.
///
/// A process group stop (ProcessGroupStop) misses what left the group: a grandchild that called
/// setsid() (Node's `spawn(..., { detached: true })`), or a daemon that forked twice. On Linux the
/// main becomes a child subreaper, so such a process is reparented to McpScope instead of to init
/// when its parent dies, and stopDescendants() ends it at exit.
///
/// Other platforms have no subreaper: macOS has none, and Windows would need every server in a Job
/// Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. There only the group stop applies, and a process
/// that left its server's group outlives McpScope.
namespace ChildReaper {

/// Linux: prctl(PR_SET_CHILD_SUBREAPER). For a main, before it starts any child. False where the
/// platform has no subreaper or the call failed.
bool becomeSubreaper();

/// For a main at exit, after its engine is gone and the detached group stops finished: SIGTERM to
/// every process still running below this one, up to graceMs for them to end, then SIGKILL and at
/// most 500 ms more. It blocks for that time at most, and returns at once when nothing runs below.
/// Adopted processes are reaped here; a leader a QProcess still holds (a stop that did not finish
/// in time) is signalled, and left for its QProcess to reap. Returns how many processes it found
/// running; always 0 where the platform has no /proc.
int stopDescendants(int graceMs);

} // namespace ChildReaper

} // namespace mcpscope
