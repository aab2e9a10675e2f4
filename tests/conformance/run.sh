#!/bin/sh
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against mcpscope-cli's client
# mode: `--suite core`, then `--suite backcompat`. Fails on any failed or warning check (the suite counts a
# WARNING as a failure) unless the scenario is listed in the expected-failures file.
#
# usage: run.sh NODE PEERS_DIR CLI OUTPUT_DIR [EXPECTED_FAILURES_YML]
set -u
if [ $# -lt 4 ]; then
    echo "usage: $0 NODE PEERS_DIR CLI OUTPUT_DIR [EXPECTED_FAILURES_YML]" >&2
    exit 2
fi
node=$1
peers=$2
cli=$3
out=$4
expected=${5:-}

if [ ! -x "$node" ] || [ ! -f "$peers/node_modules/.bin/conformance" ]; then
    echo "conformance: $node or $peers/node_modules/.bin/conformance is missing; run 'npm ci' in $peers" >&2
    exit 1
fi
case $cli in
*" "*)
    # The runner splits --command at spaces.
    echo "conformance: the path of mcpscope-cli must not contain spaces: $cli" >&2
    exit 1
    ;;
esac

# Child processes the runner starts must use the pinned Node 22 as well.
PATH=$(dirname "$node"):$PATH
export PATH
cd "$peers" || exit 1

# The baseline is passed only when it lists a scenario; the runner rejects stale entries either way.
baseline=
if [ -n "$expected" ] && [ -f "$expected" ] && grep -Eq '^[[:space:]]*-[[:space:]]*[^[:space:]#]' "$expected"; then
    baseline=$expected
fi

status=0
for suite in core backcompat; do
    rm -rf "$out/$suite"
    mkdir -p "$out/$suite"
    log=$out/$suite.log
    if [ -n "$baseline" ]; then
        "$node" node_modules/.bin/conformance client --command "$cli conformance" --suite "$suite" --verbose \
            -o "$out/$suite" --expected-failures "$baseline" >"$log" 2>&1
    else
        "$node" node_modules/.bin/conformance client --command "$cli conformance" --suite "$suite" --verbose \
            -o "$out/$suite" >"$log" 2>&1
    fi
    rc=$?
    ok=1
    [ $rc -eq 0 ] || ok=0
    if [ -n "$baseline" ]; then
        grep -q 'Baseline check passed' "$log" || ok=0
    else
        grep -Eq 'Total: [0-9]+ passed, 0 failed, 0 warnings' "$log" || ok=0
    fi
    if [ $ok -eq 1 ]; then
        echo "== conformance --suite $suite: passed (results in $out/$suite)"
        sed -n '/=== SUITE SUMMARY ===/,$p' "$log"
    else
        echo "== conformance --suite $suite: FAILED (exit code $rc; results in $out/$suite)"
        cat "$log"
        status=1
    fi
done
exit $status
