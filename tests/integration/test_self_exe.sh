#!/usr/bin/env bash
# blaude's own path (common/self_exe.hpp), through the real binary: the bwrap plan binds the exec
# shim found beside it (`--ro-bind <dir>/blaude-exec /run/blaude/exec`; blaude itself at
# /run/blaude/blaude where there is none), so --dry-run shows what self_exe() answered. Linux asks
# the kernel (/proc/self/exe); the forced-fallbacks build answers from argv[0] and the PATH blaude
# started with, as an unknown POSIX system would (macOS asks dyld: never ran here). A symlink on
# PATH, a relative argv[0], and a bogus argv[0] (`exec -a`), which is the control: it changes the
# fallback's answer and not the kernel's. Then the shim itself (src/shim_main.cpp): where blaude
# finds it (beside it, PREFIX/libexec/blaude), that blaude alone runs as its own shim, that the
# shim runs sandboxed commands, and that a shim from another protocol runs nothing.
. "$(dirname "$0")/lib.sh"
real=$(realpath "$BLAUDE")
mkdir -p "$T_DIR/bin" "$T_DIR/ws"
ln -s "$real" "$T_DIR/bin/blaude"
cd "$T_DIR/ws"
shim=$(dirname "$real")/blaude-exec
[ -x "$shim" ] || missing "blaude-exec beside $real (the build makes it with blaude)"
binds_self() { grep -qF -- "--ro-bind $shim /run/blaude/exec" "$1" && grep -qF -- "-- $SHIM true" "$1"; }

PATH="$T_DIR/bin:$PATH" blaude --dry-run --exec true >"$T_DIR/path.out" 2>&1
check "a bare name found on PATH, through a symlink: the real binary is bound as the shim" binds_self "$T_DIR/path.out"
(cd "$T_DIR" && ./bin/blaude --dry-run --exec true) >"$T_DIR/rel.out" 2>&1
check "a relative argv[0] (./bin/blaude, a symlink): the real binary is bound" binds_self "$T_DIR/rel.out"
rc=0; (exec -a blaude-no-such-name "$real" --dry-run --exec true) >"$T_DIR/bogus.out" 2>&1 || rc=$?
if grep -q 'BLAUDE_POSIX_FALLBACKS:BOOL=ON' "$BLAUDE_BUILD/CMakeCache.txt"; then
  check "posix calls: a bogus argv[0] resolves nowhere: no shim bound (the answer came from argv[0])" \
    not grep -q "/run/blaude/" "$T_DIR/bogus.out"
  # Without the shim nothing inside checks bwrap's by-path mounts: blaude refuses, it does not
  # run the command bare (it did, silently, until the mount checks depended on the shim).
  check "... and blaude refuses, saying why (it never runs the command unshimmed)" \
    grep -q "cannot find its own binary" "$T_DIR/bogus.out"
  check "... with a failing exit code" test "$rc" -ne 0
  check "... and no command line was planned" not grep -q -- "-- true" "$T_DIR/bogus.out"
else
  check "linux calls: a bogus argv[0] changes nothing (the kernel's answer)" binds_self "$T_DIR/bogus.out"
fi

# Where blaude finds the shim, and without it. Each layout is a copy of the binaries.
NOB=65534
lay() {  # lay DIR: blaude in DIR/bin, output of a dry run in DIR.out
  chmod -R a+rX "$1"
  (cd "$T_DIR/ws" && "$1/bin/blaude" --dry-run --exec true) >"$1.out" 2>&1
}
mkdir -p "$T_DIR/alone/bin" "$T_DIR/pfx/bin" "$T_DIR/pfx/libexec/blaude" "$T_DIR/stale/bin"
cp "$real" "$T_DIR/alone/bin/blaude"
lay "$T_DIR/alone"
check "blaude alone (no blaude-exec): its own binary is the shim" \
  grep -qF -- "--ro-bind $T_DIR/alone/bin/blaude /run/blaude/blaude" "$T_DIR/alone.out"
check "... and the command runs through blaude's own verb" grep -qF -- "-- /run/blaude/blaude __exec true" "$T_DIR/alone.out"
check "... (control: no blaude-exec bound)" not grep -q "/run/blaude/exec" "$T_DIR/alone.out"
cp "$real" "$T_DIR/pfx/bin/blaude"
cp "$shim" "$T_DIR/pfx/libexec/blaude/blaude-exec"
lay "$T_DIR/pfx"
check "an installed layout: PREFIX/libexec/blaude/blaude-exec is the shim" \
  grep -qF -- "--ro-bind $T_DIR/pfx/libexec/blaude/blaude-exec /run/blaude/exec" "$T_DIR/pfx.out"
# A file named blaude-exec that is not executable is not taken.
cp "$real" "$T_DIR/stale/bin/blaude"
printf 'not a program\n' >"$T_DIR/stale/bin/blaude-exec"
lay "$T_DIR/stale"  # (a+rX leaves a 0644 file without x)
check "a blaude-exec that is no program is passed over (blaude is the shim)" \
  grep -qF -- "-- /run/blaude/blaude __exec true" "$T_DIR/stale.out"

# The shim's own protocol check, run directly: another verb (a blaude-exec of another build)
# runs nothing and says what to do; its own verb runs the command (control).
rc=0; "$shim" __exec@0 touch "$T_DIR/ran" >"$T_DIR/proto.out" 2>&1 || rc=$?
check_eq "a verb of another protocol exits 2" 2 "$rc"
check "... runs nothing" test ! -e "$T_DIR/ran"
check "... and says how to fix it" grep -q "install both from one build" "$T_DIR/proto.out"
rc=0; "$shim" __exec@1 touch "$T_DIR/ran" >"$T_DIR/proto.out" 2>&1 || rc=$?
check "control: its own verb runs the command" test -e "$T_DIR/ran"
rc=0; "$shim" __exec@1 no-such-command-xyz >"$T_DIR/proto.out" 2>&1 || rc=$?
check_eq "... a missing command exits 127, as blaude's own shim" 127 "$rc"

# Sandboxed, for real, as uid 65534: the command runs under blaude-exec, and with blaude alone.
need_sandbox
mkdir -p "$T_DIR/home"
chown -R $NOB:$NOB "$T_DIR/home" "$T_DIR/ws"
for d in "$(dirname "$real")" "$T_DIR/alone/bin"; do
  rc=0
  out=$(cd "$T_DIR/ws" && env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin setpriv --reuid=$NOB --regid=$NOB --clear-groups \
    "$d/blaude" --no-clipboard --exec sh -c 'echo ran-$((6*7))' </dev/null 2>&1) || rc=$?
  check_eq "sandboxed through $d: exit 0" 0 "$rc"
  check "... the command ran" grep -q "ran-42" <<<"$out"
done
finish
