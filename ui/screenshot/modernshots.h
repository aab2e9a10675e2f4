#pragma once

#include "screenshot/frictionshots.h"

namespace mcpscope {

/// Screenshots of issue 16's 2026-07-28 revision, for `make screenshot`, against the workspace's server
/// "modern-ledger" (tests/peers/modern-ledger-peer.mjs over stdio, era auto): its Overview once the probe found
/// it modern, with the servers list showing each server's era (modern-overview.png), then confirm-write called
/// from the composer, its MRTR elicitation round accepted in the Server Requests panel, and that call's
/// timeline with the round (mrtr-timeline.png); between them the Tools tab with bad-header-tool selected, shown
/// excluded (modern-tools-excluded.png). Without that server all three are skipped with a line on stderr.
namespace ModernShots {
void run(MainWindow* window, FrictionShots::Save save, FrictionShots::Wait wait, std::function<void()> done);
} // namespace ModernShots

} // namespace mcpscope
