#!/usr/bin/env bash
# Runs a command with a real Secret Service, the keychain the token store uses on Linux (issue 13):
# a private D-Bus session (dbus-run-session) in which gnome-keyring-daemon runs with only its secrets
# component and a fresh "login" keyring that is created and unlocked with a fixed test password, so
# qtkeychain writes without a prompt. Works headless, as root, without a desktop session.
#
#   tests/support/with-secret-service.sh COMMAND [ARGS...]      (make test and make screenshot use it)
#
# The command sees DBUS_SESSION_BUS_ADDRESS of that session and MCPSCOPE_REQUIRE_SECRET_SERVICE=1, which
# turns the keychain tests' "skip: no Secret Service" into a failure. The daemon gets its own data and
# runtime directories (a temporary folder, removed at the end), so it never opens or changes the user's
# keyrings, and the user's own keyring daemon, if any, is not touched. The exit status is the command's.
# Needs: dbus-run-session (dbus-daemon), gnome-keyring-daemon (gnome-keyring), dbus-send (dbus-bin), and
# libsecret (libsecret-1-0: qtkeychain opens it at run time); `make deps` installs them.
set -euo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

if [ "${_MCPSCOPE_SECRET_SERVICE_STAGE:-}" != inside ]; then
    for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "$0: $tool is missing; run make deps (it installs dbus-daemon, dbus-bin, gnome-keyring)" >&2
            exit 2
        fi
    done
    export _MCPSCOPE_SECRET_SERVICE_STAGE=inside
    exec dbus-run-session -- "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" "$@"
fi
# Inside the new session from here on. A nested call starts a session of its own.
unset _MCPSCOPE_SECRET_SERVICE_STAGE

home=$(mktemp -d "${TMPDIR:-/tmp}/mcpscope-secret-service.XXXXXX")
mkdir -m 700 "$home/run" "$home/data"
daemon=""
cleanup() {
    if [ -n "$daemon" ]; then
        kill "$daemon" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    fi
    rm -rf "$home"
}
trap cleanup EXIT

# The password only guards a throwaway keyring in $home; it is not a secret.
printf '%s' "mcpscope-test-keyring" |
    env -u GNOME_KEYRING_CONTROL -u DISPLAY -u WAYLAND_DISPLAY XDG_DATA_HOME="$home/data" XDG_RUNTIME_DIR="$home/run" \
        gnome-keyring-daemon --foreground --unlock --components=secrets >"$home/daemon.log" 2>&1 &
daemon=$!

bus_call() {
    dbus-send --session --print-reply --reply-timeout=2000 "$@" 2>/dev/null
}

# Ready when the daemon owns org.freedesktop.secrets (asked of the bus itself: asking the name would
# activate a second daemon from the service file) and its default alias is the unlocked login keyring.
ready=""
for _ in $(seq 1 100); do
    if ! kill -0 "$daemon" 2>/dev/null; then
        break
    fi
    if bus_call --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
        string:org.freedesktop.secrets | grep -q "boolean true" &&
        bus_call --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias \
            string:default | grep -q '"/org/freedesktop/secrets/collection/login"' &&
        bus_call --dest=org.freedesktop.secrets /org/freedesktop/secrets/collection/login \
            org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked |
        grep -q "boolean false"; then
        ready=1
        break
    fi
    sleep 0.1
done
if [ -z "$ready" ]; then
    echo "$0: gnome-keyring-daemon did not offer an unlocked login keyring within 10 s; its output:" >&2
    cat "$home/daemon.log" >&2 || true
    exit 3
fi
echo "with-secret-service: gnome-keyring-daemon (pid $daemon) serves an unlocked login keyring on $DBUS_SESSION_BUS_ADDRESS"

export MCPSCOPE_REQUIRE_SECRET_SERVICE=1
set +e
"$@"
status=$?
set -e
exit "$status"
