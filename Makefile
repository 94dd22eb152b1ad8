# The front door: `make run ARGS='...'` and `make test`. Both install missing system packages first.
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build run test unit asan posix fuzz bench deps deps-test bwrap-overlay clean install uninstall deb rpm

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

# Every test: unit and integration (real ptys, tmux, bwrap, Xvfb, asciinema), warnings as errors,
# then the same suite's unit part under ASan/UBSan, then the whole suite again with every POSIX
# fallback forced (the calls macOS makes), then each fuzz target briefly.
test: deps-test bwrap-overlay
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLAUDE_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j 2
	$(MAKE) --no-print-directory asan
	$(MAKE) --no-print-directory posix
	$(MAKE) --no-print-directory fuzz

# A bubblewrap with overlays (>= 0.9) for test_sandbox_overlay, from Debian's registry into
# /var/cache/blaude-test (Debian 12's own is 0.8). Without it: an error in CI (CI=true), where
# every test must run; elsewhere (say, offline) a warning, and that test skips saying why.
bwrap-overlay: deps-test
	@scripts/get-bwrap-overlay.sh >/dev/null || { \
	  if [ "$${CI:-}" = true ]; then echo "error: no bwrap >= 0.9 (CI=true): test_sandbox_overlay cannot run" >&2; exit 1; fi; \
	  echo "warning: no bwrap >= 0.9; test_sandbox_overlay will skip (with CI=true it fails)" >&2; }

asan: deps-test
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DBLAUDE_WERROR=ON -DBLAUDE_SANITIZE=ON >/dev/null
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ctest --output-on-failure -j 2

# The whole suite on a build that takes the POSIX fallback of every Linux-only call (pipe + fcntl,
# a close loop, a temp file for memfd, readdir, fork, `ps` for /proc, socket + fcntl, the audit's
# component-by-component opens): what macOS compiles, run for real here. Without debug info
# (-O2, no -g): the same code, a cheaper build for CI.
POSIX_FLAGS = -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -DNDEBUG' -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O2 -DNDEBUG'
posix: deps-test bwrap-overlay
	cmake -S . -B $(BUILD)-posix -DCMAKE_BUILD_TYPE=RelWithDebInfo $(POSIX_FLAGS) -DBLAUDE_WERROR=ON -DBLAUDE_POSIX_FALLBACKS=ON $(CMAKE_FLAGS) >/dev/null
	JOBS=$(JOBS) scripts/portability-check.sh $(BUILD)-posix
	cmake --build $(BUILD)-posix -j $(JOBS)
	cd $(BUILD)-posix && ctest --output-on-failure -j 2

fuzz: deps-test
	CC=clang CXX=clang++ cmake -S . -B $(BUILD)-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLAUDE_FUZZ=ON >/dev/null
	cmake --build $(BUILD)-fuzz -j $(JOBS)
	@scripts/run-fuzzers.sh $(BUILD)-fuzz

# Side-by-side pty benchmark (direct, script, ptybench's minimal relay, blaude) over several producer
# shapes; docs/PERFORMANCE.md explains the tables.
# Extra options: make bench BENCH_ARGS='--reps 3 --size 16 --shapes text-64k'
BENCH_ARGS ?=
bench: build
	$(BUILD)/ptybench --blaude $(BUILD)/blaude $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-posix $(BUILD)-fuzz
