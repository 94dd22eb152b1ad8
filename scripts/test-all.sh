#!/usr/bin/env bash
# `make test`: every test, in stages, each stage's wall time printed at the end (also when a stage
# fails), so that a stage that grows is seen the day it does. What runs where:
#   build, suite   the warning-free release build; every unit and integration test (once)
#   asan           a clang ASan/UBSan build (-O0), which also holds the libFuzzer targets; the tests
#                  labelled `asan` (tests/CMakeLists.txt: the unit tests and the integration tests
#                  of the host-side code it guards)
#   posix          the portability check; an unoptimised build with every POSIX fallback forced
#                  (the calls macOS makes); the tests labelled `posix` (the unit tests and the
#                  integration tests that go through a fallback)
#   fuzz           each libFuzzer target (from the asan build) on its checked-in corpus, two at a time
# Env: BUILD (build), JOBS (nproc), CMAKE_FLAGS, FUZZ_SECONDS (scripts/run-fuzzers.sh),
#      STAGES (default "build suite asan posix fuzz": a subset runs only those, in that order).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
STAGES=${STAGES:-build suite asan posix fuzz}
# What the POSIX build tests is which calls run, not code generation (the release build's): -O0
# and no debug info, the cheapest build (0.56x of -O2's compile time on sampled files).
POSIX_FLAGS=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O0' -DCMAKE_C_FLAGS_DEBUG='-O0')
# shellcheck disable=SC2206
EXTRA=(${CMAKE_FLAGS:-})

names=() secs=() results=()
start_all=$(date +%s)
kill_tree() { local c; for c in $(pgrep -P "$1"); do kill_tree "$c"; done; kill -TERM "$1" 2>/dev/null; }
report() {
  local i total=$(( $(date +%s) - start_all ))
  # A stage that failed while the test builds compiled beside it: stop them too.
  if [ -n "${side_pid:-}" ] && kill -0 "$side_pid" 2>/dev/null; then kill_tree "$side_pid"; fi
  echo
  echo "== make test: stage wall times =="
  for i in "${!names[@]}"; do
    printf '  %-22s %5d s  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"
  done
  printf '  %-22s %5d s  (%d min)\n' total "$total" $(( (total + 59) / 60 ))
  # Over every ctest run (a test in two runs counts twice): passed = run - failed.
  if [ -s "${COUNTS:-}" ]; then
    awk '{ f += $4; n += $NF } END { printf "%d passed, %d failed\n", n - f, f }' "$COUNTS"
  fi
  rm -rf "${COUNTS:-}" "${COUNTS:-}.out" "${SIDE:-}"
}
trap report EXIT

# stage NAME COMMAND...: runs it, records its time; the first failure ends the run.
stage() {
  local name=$1; shift
  local t0 rc
  t0=$(date +%s)
  echo "== stage $name: $*"
  "$@"; rc=$?
  names+=("$name"); secs+=($(( $(date +%s) - t0 )))
  if [ $rc -ne 0 ]; then results+=("FAILED (exit $rc)"); exit $rc; fi
  results+=(ok)
}
wants() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

build_release() {
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLAUDE_WERROR=ON "${EXTRA[@]}" >/dev/null &&
    cmake --build "$BUILD" -j "$JOBS"
}
# The POSIX build is a unity build (CMakeLists.txt, BLAUDE_UNITY): a clean build parses each
# target's headers once per batch of sources, not once per file: 0.80x its CPU time. Not the
# sanitizer build: there, in a sample of three modules, batches took 1.42x the CPU of single
# files (docs/PERFORMANCE.md). A developer's incremental build keeps one object per file.
UNITY=(-DBLAUDE_UNITY=ON)
# Only what the labelled tests run: blaude, its exec shim and the unit tests.
TEST_TARGETS=(--target blaude --target blaude-exec --target unit_tests)
# The test builds link the distribution's shared spdlog and fmt: the release build's static copy
# (chosen for start-up time; header-only where src/common/impl/spdlog_fmt.cpp does not know the
# versions) makes no difference the tests can see.
TEST_BUILD=(-DBLAUDE_PREFER_STATIC=OFF)
# One sanitizer build for the asan tests and the fuzzers: clang (libFuzzer's compiler), every
# file instrumented for both (ASan/UBSan, and libFuzzer's coverage, which costs the tests little),
# one compile of the program instead of a gcc one and a clang one. -O0 (0.53x of -O1's compile
# time on sampled files; the fuzzers' short runs need coverage more than speed) and line tables
# (symbolised reports).
build_asan() {
  CC=clang CXX=clang++ cmake -S . -B "$BUILD-asan" -DCMAKE_BUILD_TYPE=Debug -DBLAUDE_WERROR=ON \
    -DBLAUDE_SANITIZE=ON -DBLAUDE_FUZZ=ON "${TEST_BUILD[@]}" \
    -DCMAKE_CXX_FLAGS_DEBUG='-O0 -gline-tables-only' -DCMAKE_C_FLAGS_DEBUG='-O0 -gline-tables-only' >/dev/null &&
    cmake --build "$BUILD-asan" -j "$JOBS" "${TEST_TARGETS[@]}" --target fuzz_all
}
build_posix() {
  cmake -S . -B "$BUILD-posix" "${POSIX_FLAGS[@]}" -DBLAUDE_WERROR=ON \
    -DBLAUDE_POSIX_FALLBACKS=ON "${TEST_BUILD[@]}" "${UNITY[@]}" "${EXTRA[@]}" >/dev/null &&
    JOBS=$JOBS scripts/portability-check.sh "$BUILD-posix" &&
    cmake --build "$BUILD-posix" -j "$JOBS" "${TEST_TARGETS[@]}"
}
# Each ctest run's summary line is kept for the total at the end.
COUNTS=$(mktemp)
ctest_in() {
  local dir=$1; shift
  (cd "$dir" && ctest --output-on-failure -j 2 "$@") | tee "$COUNTS.out"
  local rc=${PIPESTATUS[0]}
  grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$COUNTS.out" >>"$COUNTS"
  return "$rc"
}

# The real Claude Code for the *_claude_real tests, installed once before them rather than by the
# first test that needs it (inside its time bound). Offline outside CI: those tests say so.
deps() {
  scripts/deps.sh test && make --no-print-directory bwrap-overlay || return 1
  scripts/install-test-claude.sh >/dev/null && return 0
  [ "${CI:-}" = true ] && return 1
  echo "warning: Claude Code could not be installed; the *_claude_real tests will fail" >&2
}
# The suite waits on terminals, sandboxes and timers far more than it computes (about a third of
# two cores): the test builds compile beside it, one after another, each into its own log, and
# the tests of the first build run while the second one compiles. That is also load the tests
# must pass under. The builds' times are recorded as stages of their own, and so is each wait.
# POSIX first: its build is the shorter, so its tests start sooner; the sanitizer build (which
# the fuzzers also need) then compiles beside them.
SIDE=$(mktemp -d)
side_list=()
wants posix && side_list+=(posix)
{ wants asan || wants fuzz; } && side_list+=(asan)
side_builds() {
  local b t0 rc
  for b in "${side_list[@]}"; do
    t0=$(date +%s)
    "build_$b" >"$SIDE/$b.log" 2>&1; rc=$?
    echo "$b-build $(( $(date +%s) - t0 )) $rc" >>"$SIDE/done"
    [ "$rc" -eq 0 ] || return "$rc"
  done
}
# test_build NAME: the build NAME's stage: built here, or (with the side builds) waited for, the
# wait recorded, then its recorded time, and its log's tail when it failed.
test_build() {
  local line n t rc t0
  if ! $side; then stage "$1-build" "build_$1"; return; fi
  t0=$(date +%s)
  while ! grep -q "^$1-build " "$SIDE/done" 2>/dev/null && kill -0 "$side_pid" 2>/dev/null; do sleep 2; done
  names+=("(waiting)"); secs+=($(( $(date +%s) - t0 ))); results+=("for the $1 build")
  line=$(grep "^$1-build " "$SIDE/done" 2>/dev/null) || {
    names+=("$1-build (beside)"); secs+=(0); results+=("FAILED (the side builds ended without it)"); exit 1; }
  read -r n t rc <<<"$line"
  names+=("$n (beside)"); secs+=("$t")
  if [ "$rc" -ne 0 ]; then
    results+=("FAILED (exit $rc)")
    echo "== $n failed; the end of its log:"; tail -n 80 "$SIDE/$1.log"
    exit "$rc"
  fi
  results+=(ok)
}

stage deps deps
wants build && stage build build_release
side=false
if wants suite && [ ${#side_list[@]} -gt 0 ]; then
  side=true
  side_builds &
  side_pid=$!
fi
wants suite && stage suite ctest_in "$BUILD"
if wants posix; then
  test_build posix
  stage posix-tests ctest_in "$BUILD-posix" -L '^posix$'
fi
if wants asan || wants fuzz; then test_build asan; fi
wants asan && stage asan-tests ctest_in "$BUILD-asan" -L '^asan$'
wants fuzz && stage fuzz-run scripts/run-fuzzers.sh "$BUILD-asan"
exit 0
