#!/usr/bin/env bash
# `blaude selftest` (app/selftest.cpp) as a user runs it, as uid 65534: every row held on this
# host, exit 0, and the temp dir it made gone. Controls, with a layer really missing rather than
# a switch made for the test: BLAUDE_SECCOMP=off (the suite's way to run without the syscall
# filter, which also says so on every start) turns the rows the filter holds to NOT HELD with the
# reason, and the exit code to 1; --nested-sandbox and --no-limits make their rows not applicable.
. "$(dirname "$0")/lib.sh"

need_sandbox
sandbox_dirs

st() {  # st OUT [VAR=VALUE...] -- [blaude options]: `blaude [options] selftest`, status in OUT.rc
  local out=$1 envs=()
  shift
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  set +e
  (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb "${envs[@]}" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" "$@" selftest </dev/null >"$out" 2>"$out.err")
  echo $? >"$out.rc"
  set -e
}
row() { grep "^$2 " "$1" | sed 's/  */ /g'; }
before=$(ls -d /tmp/blaude-selftest-* 2>/dev/null | sort || true)

st "$T_DIR/all" --
cat "$T_DIR/all"
check_eq "selftest exits 0 when every protection holds" 0 "$(cat "$T_DIR/all.rc")"
check "it prints its table" grep -q "^PROBE  *EXPECTED  *RESULT  *DETAIL" "$T_DIR/all"
check_eq "eleven rows" 11 "$(grep -c '  \(held\|NOT HELD\|n/a\)  ' "$T_DIR/all")"
check "every row is held here" not grep -q "NOT HELD\|  n/a  " "$T_DIR/all"
for p in "write .git/hooks/pre-commit" "write .git/config" "connect to a host abstract socket" \
  "connect to a host socket in /tmp" "TIOCSTI (command's high bits set)" io_uring_setup bpf \
  "a user namespace of its own" "tasks bounded (pids.max or RLIMIT_NPROC)" "--no-network: a host loopback port" \
  "a new repository's fsmonitor, after exit"; do
  check "row: $p held" grep -qF -- "$p" <(grep "  held  " "$T_DIR/all")
done
check "the temp dir it made is gone" test "$(ls -d /tmp/blaude-selftest-* 2>/dev/null | sort || true)" = "$before"

st "$T_DIR/off" BLAUDE_SECCOMP=off --
check_eq "control: without the syscall filter selftest exits 1" 1 "$(cat "$T_DIR/off.rc")"
check "... io_uring_setup is NOT HELD, saying why" \
  grep -q "^io_uring_setup .*NOT HELD .*it worked; no syscall filter here" "$T_DIR/off"
check "... and so is a user namespace" grep -q "^a user namespace of its own .*NOT HELD" "$T_DIR/off"
check "... the rows other layers hold stay held" grep -q "^write .git/hooks/pre-commit .*  held  " "$T_DIR/off"

st "$T_DIR/nested" -- --nested-sandbox --no-limits
check_eq "--nested-sandbox --no-limits: still exit 0" 0 "$(cat "$T_DIR/nested.rc")"
check "... the user-namespace row is not applicable, naming the flag" \
  grep -q "^a user namespace of its own .*  n/a  .*--nested-sandbox allows them" "$T_DIR/nested"
check "... and so is the tasks row" grep -q "^tasks bounded .*  n/a  .*--no-limits" "$T_DIR/nested"

# The exit audit's row, against the session that turns it off: the host's git then runs what the
# session planted (a touch of a file in the host's /tmp), and selftest says so.
st "$T_DIR/apw" -- --allow-protected-writes
check_eq "control: with --allow-protected-writes selftest exits 1" 1 "$(cat "$T_DIR/apw.rc")"
check "... the new repository's fsmonitor is NOT HELD: the host's git ran it" \
  grep -q "^a new repository's fsmonitor, after exit .*NOT HELD .*the host's git ran it" "$T_DIR/apw"

finish
