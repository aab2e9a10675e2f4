#pragma once

#include <functional>

class QWidget;

namespace mcpscope {

class WorkspaceSession;

/// Before the window closes with workspace changes that were never saved: asks Save, Discard or
/// Cancel. Returns true when closing may go on: nothing to save, Discard, or Save and save() returned
/// true. Cancel, Escape, or a save that failed or was cancelled keep the window open.
bool confirmCloseWorkspace(QWidget* parent, const WorkspaceSession* session, const std::function<bool()>& save);

} // namespace mcpscope
