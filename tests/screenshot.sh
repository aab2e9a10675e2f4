#!/usr/bin/env bash
# `make screenshot`: the app under Xvfb on the demo workspace runs the scripted demo sequence
# (connect both servers, echo, expire-after on a write and on a read, open the breaker) and writes
# PNGs of the main window, the tools table, two call timelines and the Auth tab after a completed and
# after a failed authorization (auth-steps.png, auth-failed.png), the Prompts tab with args-prompt
# rendered (prompts-rendered.png), a 250 kB echo answer in the result view and its Raw JSON
# (large-result.png, large-result-raw.png), the banner over a server whose start failed (error-banner.png), the
# Server Output view and Traffic (stderr.png, traffic.png), the Resources tab with a text and an image
# resource (resources-text.png, resources-image.png), the Tasks tab with one simulate-research-query task
# completed and one cancelled (tasks.png), the Load… dialog after a load of echo with faults
# (load-dialog.png), that server's latency chart and histogram (latency-chart.png, latency-histogram.png),
# the Server Requests panel with a sampling request, a form and a URL elicitation (sampling-panel.png,
# elicitation-form.png, elicitation-url.png), the roots editor (roots.png), the Overview of the 2026-07-28
# modern-ledger peer with every server's era in the servers list (modern-overview.png), a call's timeline with
# its MRTR round (mrtr-timeline.png), the Tools tab with a tool excluded for its invalid x-mcp-header
# annotation (modern-tools-excluded.png), the stdio demo server's settings dialog (server-dialog.png), and a
# window without a workspace (empty-state.png)
# into BUILD/screenshots/.
#
# The Auth images come from real flows: two servers on tests/peers/protected-peer.mjs join the demo
# workspace (protected-http authorizes; protected-http-failing reaches the same peer as "localhost", so the
# resource metadata it finds is for another origin and is refused). MCPSCOPE_SCREENSHOT_AUTH=fed instead
# feeds the Auth view with sample steps of both flows, on the demo workspace alone.
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
workspace=resources/demo-workspace.json
if [[ "${MCPSCOPE_SCREENSHOT_AUTH:-real}" == real ]]; then
    # The demo servers, with ${workspaceFolder} made absolute, plus the two protected ones.
    root=$(pwd)
    node="$root/tests/peers/node_modules/node/bin/node"
    peer="$root/tests/peers/protected-peer.mjs"
    workspace="$XDG_CONFIG_HOME/auth-workspace.json"
    "$node" -e '
        const fs = require("fs");
        const [demo, out, node, peer, resources] = process.argv.slice(1);
        const ws = JSON.parse(fs.readFileSync(demo, "utf8").split("${workspaceFolder}").join(resources));
        ws.servers["protected-http"] = { transport: "http", url: "http://127.0.0.1:3902/mcp",
            launchCommand: `${node} ${peer} 3902` };
        ws.servers["protected-http-failing"] = { transport: "http", url: "http://localhost:3903/mcp",
            launchCommand: `${node} ${peer} 3903` };
        fs.writeFileSync(out, JSON.stringify(ws, null, 2));
    ' "$root/resources/demo-workspace.json" "$workspace" "$node" "$peer" "$root/resources"
fi
# The Resources tab's images: tests/peers/image-resources.mjs (a PNG, text, JSON and bytes) joins the workspace.
root=$(pwd)
"$root/tests/peers/node_modules/node/bin/node" -e '
    const fs = require("fs");
    const [from, out, node, peer, resources, modern, ledger] = process.argv.slice(1);
    const ws = JSON.parse(fs.readFileSync(from, "utf8").split("${workspaceFolder}").join(resources));
    ws.servers["image-resources"] = { transport: "stdio", command: node, args: [peer] };
    // The 2026-07-28 peer (SDK v2) in era auto: probed to modern, with its ledger in the scratch home.
    ws.servers["modern-ledger"] = { transport: "stdio", era: "auto", command: node,
        args: [modern, "stdio", ledger] };
    fs.writeFileSync(out, JSON.stringify(ws, null, 2));
' "$workspace" "$XDG_CONFIG_HOME/resources-workspace.json" "$root/tests/peers/node_modules/node/bin/node" \
    "$root/tests/peers/image-resources.mjs" "$root/resources" "$root/tests/peers/modern-ledger-peer.mjs" \
    "$XDG_CONFIG_HOME/modern-ledger.jsonl"
workspace="$XDG_CONFIG_HOME/resources-workspace.json"
timeout 240 xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$build/app/mcpscope" --workspace "$workspace" --screenshots "$out"
ls -1 "$out"
