#!/usr/bin/env bash
# The held binds (held.hpp) need bwrap's --ro-bind-fd (bubblewrap 0.5+). blaude asks
# the installed bwrap once (the cached feature probe, features.cpp) and, where the plan needs a
# held bind and bwrap has no descriptor form, refuses with a clear error instead of binding by
# path (the probe-then-mount race). The old bwrap is the real bwrap 0.8 behind a wrapper that
# answers the descriptor options as bwrap < 0.5 does ("Unknown option", exit 1); everything else
# is the real bwrap. Controls: the same launch with the real bwrap starts; with the wrapper, the
# protect helper's form (no held bind) starts too.
. "$(dirname "$0")/lib.sh"

need_sandbox
H="$T_DIR/home"
W="$T_DIR/proj"
OLD="$T_DIR/oldbwrap"
mkdir -p "$H/.claude" "$W/.git/hooks" "$OLD"
echo "[core]" >"$W/.git/config"
chown -R 65534:65534 "$H" "$W"
cat >"$OLD/bwrap" <<'SH'
#!/bin/sh
for a in "$@"; do
  case "$a" in --bind-fd|--ro-bind-fd) echo "bwrap: Unknown option $a" >&2; exit 1 ;; esac
done
exec /usr/bin/bwrap "$@"
SH
chmod 755 "$OLD" "$OLD/bwrap"

run() {  # $1: dir holding bwrap, $2: BLAUDE_PROTECT_MOUNTS
  (cd "$W" && env -i HOME="$H" PATH="$1:/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS="$2" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard --exec sh -c 'echo RAN' </dev/null 2>"$T_DIR/err")
}
out=$(run "$OLD" bwrap-options) && rc=0 || rc=$?
check "bwrap < 0.5, bwrap-option form: the launch refuses (exit $rc)" test "$rc" -ne 0
check "bwrap < 0.5: nothing ran" test -z "$out"
check "bwrap < 0.5: the error names what is missing" grep -q "needs bubblewrap 0.5 or newer" "$T_DIR/err"
check "bwrap < 0.5: with a hint" grep -q "Install bubblewrap 0.5" "$T_DIR/err"
check_eq "control: the real bwrap 0.8, same launch, runs" RAN "$(run /usr/bin bwrap-options || cat "$T_DIR/err")"
check_eq "control: bwrap < 0.5 with the protect helper (no held bind) runs" RAN "$(run "$OLD" "" || cat "$T_DIR/err")"
finish
