# The README's commands. `make run` and `make test` install what is missing first.
SHELL := /bin/bash
PRESET ?= dev
BUILD_DIR := $(if $(filter asan,$(PRESET)),build-asan,$(if $(filter tsan,$(PRESET)),build-tsan,$(if $(filter release,$(PRESET)),build-release,build)))
NODE22 := tests/peers/node_modules/node/bin/node

# Debian packages McpScope builds and tests with (DESIGN.md, Dependencies).
# The token store's keychain in the tests (tests/support/with-secret-service.sh): a private D-Bus session
# (dbus-daemon: dbus-run-session; dbus-bin: dbus-send), gnome-keyring-daemon as its Secret Service,
# libsecret-1-0 that qtkeychain opens at run time, and secret-tool for tst_tokenstore's check of the entry.
DEB_PACKAGES := cmake ninja-build g++ ccache pkg-config \
	qt6-base-dev qt6-networkauth-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev qtkeychain-qt6-dev \
	libqt6sql6-sqlite libvalijson-dev libgl-dev libssl-dev zlib1g-dev libsqlite3-dev nodejs npm xvfb xauth \
	dbus-daemon dbus-bin gnome-keyring libsecret-1-0 libsecret-tools

# Only the fuzz targets need clang and libFuzzer; `make test` never does.
FUZZ_DEB_PACKAGES := clang libclang-rt-14-dev

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps deps-system deps-node configure build run test test-asan test-tsan bench soak screenshot clean \
	deps-fuzz fuzz-build fuzz fuzz-smoke

all: build

deps: deps-system deps-node

deps-system:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  if [ "$$p" = nodejs ] || [ "$$p" = npm ]; then command -v $${p/nodejs/node} >/dev/null 2>&1 && continue; fi; \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-fuzz:
	@$(MAKE) --no-print-directory deps-system DEB_PACKAGES="cmake ninja-build ccache pkg-config qt6-base-dev qtkeychain-qt6-dev libqt6sql6-sqlite libvalijson-dev libgl-dev libssl-dev zlib1g-dev libsqlite3-dev $(FUZZ_DEB_PACKAGES)"

deps-node:
	@# The lock file's contents decide, not its time: a fresh checkout (a git worktree) has a newer lock file,
	@# and npm ci through a symlinked node_modules would wipe the peers another checkout is using.
	@if [ ! -x $(NODE22) ] || ! cmp -s tests/peers/package-lock.json tests/peers/node_modules/.mcpscope-package-lock.json; then \
	  echo "make deps: installing the pinned test peers (npm ci in tests/peers: server-everything, sdk, conformance, node@22)"; \
	  (cd tests/peers && npm ci --no-audit --no-fund --loglevel=error) && \
	  cp tests/peers/package-lock.json tests/peers/node_modules/.mcpscope-package-lock.json; \
	fi

configure:
	@[ -f $(BUILD_DIR)/build.ninja ] || cmake --preset $(PRESET)

build: deps configure
	cmake --build --preset $(PRESET)

run: build
	$(BUILD_DIR)/app/mcpscope --workspace resources/demo-workspace.json

# Every test run sees a real Secret Service: a private D-Bus session with gnome-keyring-daemon unlocked, and
# MCPSCOPE_REQUIRE_SECRET_SERVICE=1 so the keychain tests fail rather than skip without one.
WITH_SECRET_SERVICE := tests/support/with-secret-service.sh

test: build
	$(WITH_SECRET_SERVICE) ctest --preset $(PRESET)

test-asan:
	$(MAKE) test PRESET=asan

# ThreadSanitizer on the threaded parts only (the log store's encoder, writer and reader threads, exports
# on worker threads, the JSON tree build, the stdio transport's large-line parse and the result view's
# workers): the tsan build preset builds just those tests, the tsan test preset runs just them.
test-tsan: deps
	@[ -f build-tsan/build.ninja ] || cmake --preset tsan
	cmake --build --preset tsan
	ctest --preset tsan

INSPECTOR_VERSION := 2.12.0

bench: deps
	@[ -f build-release/build.ninja ] || cmake --preset release
	cmake --build --preset release
	@# The official Inspector is only a yardstick: a scratch install beside the build, not a pinned peer.
	@[ -f build-release/inspector/node_modules/@modelcontextprotocol/inspector/package.json ] || \
	  (echo "make bench: installing @modelcontextprotocol/inspector@$(INSPECTOR_VERSION) into build-release/inspector for the side-by-side start-up and load figures"; \
	   npm install --prefix build-release/inspector --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@$(INSPECTOR_VERSION)) || true
	MCPSCOPE_INSPECTOR_DIR=$(CURDIR)/build-release/inspector ctest --test-dir build-release -L bench --output-on-failure -V

# The recovery soak: 10,000 faulted calls; takes minutes, so neither `test` nor `bench` runs it.
soak: deps
	@[ -f build-release/build.ninja ] || cmake --preset release
	cmake --build --preset release --target soak_recovery
	ctest --test-dir build-release -L soak --output-on-failure -V

# libFuzzer targets (tests/fuzz) under ASan+UBSan; build-fuzz holds them and nothing else.
FUZZ_TARGETS := sse jsonrpc stdioframing http wwwauthenticate mcpjson calllog faultproxyrequest
FUZZ_RUNS ?= 1000000
FUZZ_SECONDS ?= 30
# Leak checking stays on: the goal is 0 crashes and 0 leaks. New inputs go to build-fuzz, not the seed corpus.
FUZZ_FLAGS := -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1

fuzz-build: deps-fuzz
	@[ -f build-fuzz/build.ninja ] || cmake --preset fuzz
	cmake --build --preset fuzz

# `make fuzz`: each target for FUZZ_RUNS executions (make fuzz FUZZ_RUNS=10000000 for the 10M goal).
# Long runs keep no allocation stacks: ASan's stack depot grows with every new recursion depth the
# fuzzer finds, which took fuzz_stdioframing to 1 GB and from 2,400 to 800 executions/s within 20
# minutes. A crash still prints its own stack, and its input replays with full stacks in `make test`.
fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t; echo "== fuzz_$$t: $(FUZZ_RUNS) runs"; \
	  ASAN_OPTIONS=$${ASAN_OPTIONS:-malloc_context_size=0} build-fuzz/tests/fuzz/fuzz_$$t $(FUZZ_FLAGS) -runs=$(FUZZ_RUNS) -artifact_prefix=build-fuzz/fuzz_$$t- \
	    build-fuzz/corpus/$$t tests/fuzz/corpus/$$t; \
	done

# The CI smoke: each target for FUZZ_SECONDS seconds.
fuzz-smoke: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t; echo "== fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  build-fuzz/tests/fuzz/fuzz_$$t $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build-fuzz/fuzz_$$t- \
	    build-fuzz/corpus/$$t tests/fuzz/corpus/$$t; \
	done

screenshot: build
	$(WITH_SECRET_SERVICE) tests/screenshot.sh $(BUILD_DIR)

clean:
	rm -rf build build-asan build-tsan build-release build-fuzz
