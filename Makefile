# The front door: `make run ARGS='...'` and `make test`. Both install missing system packages first.
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build run test check unit asan posix fuzz bench deps deps-test bwrap-overlay clean install uninstall deb rpm

all: build

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/blaude $(ARGS)

# Install the stripped release binary, the man page and the bash/zsh/fish completions.
# PREFIX: ~/.local for a user, /usr/local for root; DESTDIR is honoured (staged installs).
# `make uninstall` removes exactly the files the last install wrote (build/install_manifest.txt).
PREFIX ?= $(if $(filter 0,$(shell id -u)),/usr/local,$(HOME)/.local)
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

uninstall:
	cmake -DMANIFEST=$(BUILD)/install_manifest.txt -P packaging/uninstall.cmake

# Packages of the same install tree under /usr, in $(BUILD)/packages: a .deb (depends on
# bubblewrap, recommends xclip | xsel | wl-clipboard) and an .rpm (needs rpmbuild).
deb: build
	cd $(BUILD) && cpack -G DEB

rpm: build
	@command -v rpmbuild >/dev/null || { echo "make rpm: rpmbuild is missing (apt install rpm, or dnf install rpm-build)" >&2; exit 1; }
	cd $(BUILD) && cpack -G RPM

# Every test, in stages with their wall times printed at the end (scripts/test-all.sh): the
# warning-free build and every unit and integration test; the POSIX-fallback build over the unit
# tests and the `posix`-labelled ones; the clang ASan/UBSan build over the unit tests and the
# `asan`-labelled integration tests; each fuzz target (from that build) on its corpus.
# STAGES='suite asan' runs a subset.
test:
	@BUILD=$(BUILD) JOBS=$(JOBS) CMAKE_FLAGS='$(CMAKE_FLAGS)' scripts/test-all.sh

# A maintainer's loop (minutes from a built tree): one build, the unit tests and the integration
# tests that take seconds (CTest label `check`). One area: `cd build && ctest -L net` (or term,
# sandbox, pty, osc52, escapes, protect, ...).
check: deps-test build
	cd $(BUILD) && ctest --output-on-failure -j 2 -L '^check$$'

unit: build
	cd $(BUILD) && ctest --output-on-failure -L '^unit$$'

# A bubblewrap with overlays (>= 0.9) for test_sandbox_overlay, from Debian's registry into
# /var/cache/blaude-test (Debian 12's own is 0.8). Without it: an error in CI (CI=true), where
# every test must run; elsewhere (say, offline) a warning, and that test skips saying why.
bwrap-overlay: deps-test
	@scripts/get-bwrap-overlay.sh >/dev/null || { \
	  if [ "$${CI:-}" = true ]; then echo "error: no bwrap >= 0.9 (CI=true): test_sandbox_overlay cannot run" >&2; exit 1; fi; \
	  echo "warning: no bwrap >= 0.9; test_sandbox_overlay will skip (with CI=true it fails)" >&2; }

asan:
	@STAGES=asan BUILD=$(BUILD) JOBS=$(JOBS) scripts/test-all.sh

# The calls macOS makes (pipe + fcntl, a close loop, a temp file for memfd, readdir, fork, `ps` for
# /proc, socket + fcntl, the audit's component-by-component opens), run for real here.
posix:
	@STAGES=posix BUILD=$(BUILD) JOBS=$(JOBS) CMAKE_FLAGS='$(CMAKE_FLAGS)' scripts/test-all.sh

fuzz:
	@STAGES=fuzz BUILD=$(BUILD) JOBS=$(JOBS) scripts/test-all.sh

# Side-by-side pty benchmark (direct, script, ptybench's minimal relay, blaude) over several producer
# shapes; docs/PERFORMANCE.md explains the tables.
# Extra options: make bench BENCH_ARGS='--reps 3 --size 16 --shapes text-64k'
BENCH_ARGS ?=
bench: build
	$(BUILD)/ptybench --blaude $(BUILD)/blaude $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-posix
