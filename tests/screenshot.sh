#!/usr/bin/env bash
# `make screenshot`: the app under Xvfb on the demo workspace runs the scripted demo sequence
# (connect both servers, echo, expire-after on a write and on a read, open the breaker) and writes
# PNGs of the main window, the tools table and two call timelines into BUILD/screenshots/.
set -euo pipefail
build=${1:-build}
out="$build/screenshots"
rm -rf "$out"
mkdir -p "$out"
export QT_QPA_PLATFORM=xcb
# A throwaway settings home, so a screenshot run never changes the user's layout or theme.
# The call log goes there too: each run starts with an empty calls table.
export XDG_CONFIG_HOME MCPSCOPE_LOG_DIR
XDG_CONFIG_HOME=$(mktemp -d)
MCPSCOPE_LOG_DIR=$XDG_CONFIG_HOME/logs
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
timeout 180 xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$build/app/mcpscope" --workspace resources/demo-workspace.json --screenshots "$out"
ls -1 "$out"
