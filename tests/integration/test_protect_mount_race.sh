#!/usr/bin/env bash
# Probe-then-mount for the mounts bwrap makes BY PATH — here the workspace's
# own bind, the issue's own example. While sessions start, another process of the same user keeps
# exchanging the workspace's parent dir with a symlink to a dir in $HOME (renameat2
# RENAME_EXCHANGE: the name is always there, the real dir or the link). blaude's cwd is the real
# workspace (the process holds it), but bwrap binds the workspace by path: a swap between the probe
# and bwrap's mount put the secret dir at /workspaces/proj. Now blaude's exec shim checks, inside
# the sandbox after every mount and before the command, that each by-path mount shows the object
# the launcher found at its source with no symlink on the way (st_dev, st_ino), and runs nothing
# otherwise (sandbox/bwrap/run/mount_checks.hpp). Fixed launch count, bwrap 0.8 and the overlay bwrap,
# both forms of the protections (helper; bwrap-options = setuid bwrap / old kernels). Each launch
# starts with the real workspace or refuses saying why; none shows the secret. The flipping is in
# the test's own dir (not a top-level /tmp name: other sessions' probes never see it).
# Where the protect helper runs, the workspace's bind is its own (it opens the source with
# no symlink on the way, under bwrap's old root, and checks it is the dir blaude runs in); with
# BLAUDE_LIFT_BINDS=off it is bwrap's again and the shim's check guards it: both are rounds here.
# Control: the same launches with both off (bwrap binds by path, BLAUDE_MOUNT_CHECKS=off) do show
# the secret (tried until one does, at most 20 times the launch count): the race is real and the
# test would notice. With the workspace at its host path, bwrap's mount destination is that path
# too (under the host's /tmp here): a swap there makes bwrap fail to find its own mount, and the
# launch stops before the protection step, said so.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
LAUNCHES=${BLAUDE_RACE_LAUNCHES:-30}
if [ -z "${BLAUDE_RACE_LAUNCHES:-}" ] && blaude_sanitized; then
  LAUNCHES=12
  log "a sanitizer build: $LAUNCHES launches per round, not 30 (each start is slower; the release and POSIX suites run 30)"
fi
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
[ -x "$OVERLAY" ] && BWRAPS+=("$OVERLAY")
[ "${CI:-}" = true ] && [ ! -x "$OVERLAY" ] && { fail "CI: the overlay bwrap is missing ($OVERLAY)"; finish; exit 1; }

H="$T_DIR/home"
P="$T_DIR/p"
W="$P/proj"
mkdir -p "$H/.claude" "$H/decoy/proj" "$W"
echo TOPSECRET >"$H/decoy/proj/SECRET"
ln -s "$H/decoy" "$T_DIR/p.link"
chown -R 65534:65534 "$T_DIR"
chown -h 65534:65534 "$T_DIR/p.link"

flip_until() {
  setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (s.encode() for s in sys.argv[1:4])
for i in range(2000000):
    if i % 256 == 0 and os.path.exists(stop):
        break
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
' "$P" "$T_DIR/p.link" "$T_DIR/stop"
}
put_back() { if [ -L "$P" ]; then mv -T "$P" "$T_DIR/x" && mv -T "$T_DIR/p.link" "$P" && mv -T "$T_DIR/x" "$T_DIR/p.link"; fi; }

inside='cat SECRET 2>/dev/null; cat /workspaces/proj/SECRET 2>/dev/null; echo END'
# One launch from the held cwd (the real workspace, whatever its name is at the moment).
launch() { # launch PM BWRAP [KNOB]: KNOB off = bwrap binds by path, unchecked (the control)
  env -i HOME="$H" PATH="$(dirname "$2"):/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS="$1" BLAUDE_MOUNT_CHECKS="${3:-}" \
    BLAUDE_LIFT_BINDS="${3:-$LIFT}" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard --exec sh -c "$inside" </dev/null 2>"$T_DIR/err" || true
}
cd "$W"
for mode in helper helper-unlifted bwrap-options; do
pm="" LIFT=""
[ "$mode" = bwrap-options ] && pm=bwrap-options
[ "$mode" = helper-unlifted ] && LIFT=off
for bw in "${BWRAPS[@]}"; do
  v="$("$bw" --version | awk '{print $2}') ($mode)"
  rm -f "$T_DIR/stop"
  flip_until &
  fpid=$!
  started=0 refused=0 leaked=0 silent=0
  for i in $(seq 1 "$LAUNCHES"); do
    out=$(launch "$pm" "$bw")
    if grep -q TOPSECRET <<<"$out"; then leaked=$((leaked + 1)); fi
    if grep -q END <<<"$out"; then started=$((started + 1)); else refused=$((refused + 1)); fi
    if ! grep -q END <<<"$out" && ! grep -q "changed while the sandbox was starting\|is a symlink\|bwrap stopped while making its mounts\|bwrap did not reach the protection step\|No such file or directory\|Not a directory" "$T_DIR/err" "$T_DIR/out" 2>/dev/null; then
      echo "launch $i ended without a word:"; cat "$T_DIR/err"
      silent=$((silent + 1))
    fi
  done
  # Control: the same launches with the check off, until one shows the secret. The flipper is
  # bounded by a swap count: restarted when it has ended, or the path would stop moving.
  ctl=0 tries=0
  while [ "$ctl" -eq 0 ] && [ "$tries" -lt $((LAUNCHES * 20)) ]; do
    tries=$((tries + 1))
    if ! kill -0 "$fpid" 2>/dev/null; then
      wait "$fpid" || true
      flip_until &
      fpid=$!
    fi
    out=$(launch "$pm" "$bw" off)
    grep -q TOPSECRET <<<"$out" && ctl=$((ctl + 1))
  done
  touch "$T_DIR/stop"
  wait "$fpid" || true
  put_back
  calm=0
  for i in 1 2 3 4 5; do
    out=$(launch "$pm" "$bw")
    if grep -q END <<<"$out" && ! grep -q TOPSECRET <<<"$out"; then calm=$((calm + 1)); else echo "calm launch $i:"; cat "$T_DIR/err"; fi
  done
  log "bwrap $v: $LAUNCHES launches under flipping: $started started, $refused refused, $leaked leaked; control (check off): leaked after $tries tries"
  check_eq "bwrap $v: no launch shows the secret dir at the workspace" 0 "$leaked"
  check_eq "bwrap $v: every refusal says why" 0 "$silent"
  check_eq "bwrap $v: once the flipping stops, every launch starts (5 of 5)" 5 "$calm"
  check "bwrap $v, control: with the check off the race is real (leaked after $tries tries)" test "$ctl" -gt 0
done
done
cd /
finish
