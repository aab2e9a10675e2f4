#!/usr/bin/env bash
# `make screenshot`: start McpScope under Xvfb on the demo workspace, connect, save PNGs.
set -euo pipefail
build=${1:-build}
out="$build/screenshots"
mkdir -p "$out"
export QT_QPA_PLATFORM=xcb
export MCPSCOPE_SCREENSHOT="$out/main-window.png"
xvfb-run -a -s "-screen 0 1280x800x24" \
    "$build/app/mcpscope" --workspace resources/demo-workspace.json --connect
echo "wrote $MCPSCOPE_SCREENSHOT"
