#!/usr/bin/env bash
# blaude's own path (common/self_exe.hpp), through the real binary: the bwrap plan binds it into
# the sandbox as the exec shim (`--ro-bind <blaude> /run/blaude/blaude`), so --dry-run shows what
# self_exe() answered. Linux asks the kernel (/proc/self/exe); the forced-fallbacks build answers
# from argv[0] and the PATH blaude started with, as an unknown POSIX system would (macOS asks dyld:
# never ran here). A symlink on PATH, a relative argv[0], and a bogus argv[0] (`exec -a`), which
# is the control: it changes the fallback's answer and not the kernel's.
. "$(dirname "$0")/lib.sh"
real=$(realpath "$BLAUDE")
mkdir -p "$T_DIR/bin" "$T_DIR/ws"
ln -s "$real" "$T_DIR/bin/blaude"
cd "$T_DIR/ws"
binds_self() { grep -qF -- "--ro-bind $real /run/blaude/blaude" "$1"; }

PATH="$T_DIR/bin:$PATH" blaude --dry-run --exec true >"$T_DIR/path.out" 2>&1
check "a bare name found on PATH, through a symlink: the real binary is bound as the shim" binds_self "$T_DIR/path.out"
(cd "$T_DIR" && ./bin/blaude --dry-run --exec true) >"$T_DIR/rel.out" 2>&1
check "a relative argv[0] (./bin/blaude, a symlink): the real binary is bound" binds_self "$T_DIR/rel.out"
rc=0; (exec -a blaude-no-such-name "$real" --dry-run --exec true) >"$T_DIR/bogus.out" 2>&1 || rc=$?
if grep -q 'BLAUDE_POSIX_FALLBACKS:BOOL=ON' "$BLAUDE_BUILD/CMakeCache.txt"; then
  check "posix calls: a bogus argv[0] resolves nowhere: no shim bound (the answer came from argv[0])" \
    not grep -q "/run/blaude/blaude" "$T_DIR/bogus.out"
  # Without the shim nothing inside checks bwrap's by-path mounts: blaude refuses, it does not
  # run the command bare (it did, silently, until the mount checks depended on the shim).
  check "... and blaude refuses, saying why (it never runs the command unshimmed)" \
    grep -q "cannot find its own binary" "$T_DIR/bogus.out"
  check "... with a failing exit code" test "$rc" -ne 0
  check "... and no command line was planned" not grep -q -- "-- true" "$T_DIR/bogus.out"
else
  check "linux calls: a bogus argv[0] changes nothing (the kernel's answer)" binds_self "$T_DIR/bogus.out"
fi
finish
