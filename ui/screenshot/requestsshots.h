#pragma once

#include "screenshot/frictionshots.h"

namespace mcpscope {

/// Screenshots of issue 15's server requests, for `make screenshot`, against the demo stdio server: the
/// Server Requests panel with a trigger-sampling-request being answered (sampling-panel.png), the form of
/// trigger-elicitation-request partly filled (elicitation-form.png), a URL elicitation at its consent step
/// (elicitation-url.png; the browser opener is a no-op, nothing is opened), and the server dialog with
/// its roots and canned replies (roots.png). Each request is answered before the next.
namespace RequestsShots {
void run(MainWindow* window, FrictionShots::Save save, FrictionShots::Wait wait, std::function<void()> done);
} // namespace RequestsShots

} // namespace mcpscope
