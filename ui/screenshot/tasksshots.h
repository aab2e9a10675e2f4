#pragma once

#include "frictionshots.h"

namespace mcpscope {

/// `make screenshot`'s Tasks tab: tasks.png, server-everything's simulate-research-query run twice as a task
/// (its execution.taskSupport is required), one to completion with its report below, one cancelled with
/// tasks/cancel. Waits with the driver's wait (which fails the run on a timeout), then calls done.
namespace TasksShots {
void run(MainWindow* window, FrictionShots::Save save, FrictionShots::Wait wait, std::function<void()> done);
} // namespace TasksShots

} // namespace mcpscope
