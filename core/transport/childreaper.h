#pragma once

#include <QtGlobal>

class QProcess;

namespace mcpscope {

/// Makes McpScope answer for every process its servers start, not only for their process groups.
///
/// A process group stop (ProcessGroupStop) misses what left the group: a grandchild that called
/// setsid() (Node's `spawn(..., { detached: true })`), or a daemon that forked twice. On Linux the
/// main becomes a child subreaper, so such a process is reparented to McpScope instead of to init
/// when its parent dies. While McpScope runs, an adopted process that ends is reaped within about a
/// second (no zombie stays behind a server that was respawned), and stopDescendants() ends what still
/// runs at exit.
///
/// Only adopted processes are reaped, each by its own pid: a child a QProcess started is reaped by
/// that QProcess (through its forkfd), and reaping it here would leave the QProcess waiting on a
/// process that no longer exists. So every QProcess that starts a server is announced with hold(),
/// and nothing here ever waits on "any child".
///
/// Other platforms have no subreaper: macOS has none, and Windows would need every server in a Job
/// Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. There only the group stop applies, a process that
/// left its server's group outlives McpScope, and the functions below do nothing.
///
/// Everything here runs on the main thread, where the QProcess objects live.
namespace ChildReaper {

/// Linux: prctl(PR_SET_CHILD_SUBREAPER). For a main, before it starts any child; it also turns on the
/// reaping while running. False where the platform has no subreaper or the call failed.
bool becomeSubreaper();

/// A QProcess that was just started: its child is never reaped here. While one held process runs, or
/// an adopted process does, a pass runs about every second; the passes stop when neither remains.
void hold(QProcess* process);

/// One pass: waitpid(pid, WNOHANG) for each zombie whose parent is this process and that no held
/// QProcess started (nor any QProcess below the application object). Returns how many it reaped.
int reapAdopted();

/// For a main at exit, after its engine is gone and the detached group stops finished: SIGTERM to
/// every process still running below this one, up to graceMs for them to end, then SIGKILL and at
/// most 500 ms more. It blocks for that time at most, and returns at once when nothing runs below.
/// Adopted processes are reaped here; a leader a QProcess still holds (a stop that did not finish
/// in time) is signalled, and left for its QProcess to reap. Returns how many processes it found
/// running; always 0 where the platform has no /proc.
int stopDescendants(int graceMs);

} // namespace ChildReaper

} // namespace mcpscope
