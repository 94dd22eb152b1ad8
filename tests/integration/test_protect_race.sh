#!/usr/bin/env bash
# Probe-then-mount: while sessions start, another process of the same user
# (what an agent in a concurrent session is) keeps swapping a protected dir for a symlink to a
# dir holding a secret (in $HOME, which the sandbox never shows). A fixed number of real blaude launches, with bwrap 0.8 and the overlay
# bwrap, in both forms of the protections (the protect helper's mounts by descriptor, and the
# bwrap-option fallback of setuid bwrap / old kernels, BLAUDE_PROTECT_MOUNTS=bwrap-options, whose
# binds are made from descriptors blaude holds): each one must either start with the real dir protected, or refuse to start with a clear
# word; none may ever show the symlink's target. How many start while the flipper runs depends on
# the scheduler, so it is logged, not asserted; once the flipping stops, every launch starts (the
# refusals were the race, not a broken engine). The control: a plain bwrap bind of the same path,
# under the same flipping, does show the secret (tried until it does, at most 20 times the launch
# count), so the race is real and would be noticed.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
LAUNCHES=${BLAUDE_RACE_LAUNCHES:-40}
if [ -z "${BLAUDE_RACE_LAUNCHES:-}" ] && blaude_sanitized; then
  LAUNCHES=15
  log "a sanitizer build: $LAUNCHES launches per round, not 40 (each start is slower; the release and POSIX suites run 40)"
fi
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
[ -x "$OVERLAY" ] && BWRAPS+=("$OVERLAY")
[ "${CI:-}" = true ] && [ ! -x "$OVERLAY" ] && { fail "CI: the overlay bwrap is missing ($OVERLAY)"; finish; exit 1; }

H="$T_DIR/home"
W="$T_DIR/proj"
S="$H/.ssh"
mkdir -p "$H/.claude" "$W/pkg/.git/hooks" "$S"
echo "[core]" >"$W/pkg/.git/config"
mkdir -p "$W/.git/hooks" && echo "[core]" >"$W/.git/config"
echo TOPSECRET >"$S/SECRET"
chown -R 65534:65534 "$H" "$W" "$S"

# The flipper: exchanges pkg/.git/hooks with a symlink to the secret dir, atomically
# (renameat2 RENAME_EXCHANGE: the name is always there, a dir or the link), as fast as it can,
# until told to stop (bounded: at most 2,000,000 swaps). After each session blaude's audit may
# find the hooks dir a symlink and move the link aside: the flipper puts it
# back, as a persistent attacker would, so the race goes on.
# The layout each round (and each control) starts from: hooks a real, empty dir, hooks.link the
# symlink to the secret dir, nothing an earlier session's audit moved aside. Rebuilt rather than
# repaired: after a round of audits racing the flipper the pair can be anything (in one CI run
# the control then flipped two real dirs for 800 tries and never leaked).
reset_layout() {
  rm -rf "$W/pkg/.git/hooks" "$W/pkg/.git/hooks.link" "$W/pkg/.git/hooks".blaude-audit-*
  mkdir "$W/pkg/.git/hooks"
  ln -s "$S" "$W/pkg/.git/hooks.link"
  chown -h 65534:65534 "$W/pkg/.git/hooks" "$W/pkg/.git/hooks.link"
}
flip_until() {
  setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import ctypes, errno, glob, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (s.encode() for s in sys.argv[1:4])
if os.path.islink(a) == os.path.islink(b):
    sys.exit("flipper: expected one symlink and one dir, found %s and %s" % (
        os.path.islink(a) and "a link" or "no link", os.path.islink(b) and "a link" or "no link"))
for i in range(2000000):
    if i % 256 == 0 and os.path.exists(stop):
        break
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        e = ctypes.get_errno()
        moved = glob.glob(glob.escape(a.decode()) + ".blaude-audit-*")
        if e == errno.ENOENT and moved and not os.path.lexists(a):
            os.rename(moved[0], a)
            continue
        sys.exit("renameat2: " + os.strerror(e))
' "$W/pkg/.git/hooks" "$W/pkg/.git/hooks.link" "$T_DIR/stop"
}

inside='cat pkg/.git/hooks/SECRET 2>/dev/null; cat /workspaces/proj/pkg/.git/hooks/SECRET 2>/dev/null; echo END'
for mode in helper bwrap-options; do
pm=""
[ "$mode" = bwrap-options ] && pm=bwrap-options
for bw in "${BWRAPS[@]}"; do
  v="$("$bw" --version | awk '{print $2}') ($mode)"
  rm -f "$T_DIR/stop"
  reset_layout
  flip_until &
  fpid=$!
  started=0 refused=0 leaked=0 silent=0
  for i in $(seq 1 "$LAUNCHES"); do
    out=$(cd "$W" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS="$pm" \
      setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$BLAUDE" --no-clipboard --exec sh -c "$inside" </dev/null 2>"$T_DIR/err") || true
    if grep -q TOPSECRET <<<"$out"; then leaked=$((leaked + 1)); fi
    if grep -q END <<<"$out"; then started=$((started + 1)); else refused=$((refused + 1)); fi
    if ! grep -q END <<<"$out" && ! grep -q "changed while the sandbox was starting\|is a symlink\|bwrap stopped while making its mounts" "$T_DIR/err"; then
      echo "launch $i ended without a word:"; cat "$T_DIR/err"
      silent=$((silent + 1))
    fi
  done
  # Control: the same flipping against a bare bwrap bind of the path, as the old plan did, from
  # the known layout (the launches' audits may have moved either name aside).
  touch "$T_DIR/stop"
  wait "$fpid" || true
  rm -f "$T_DIR/stop"
  reset_layout
  flip_until &
  fpid=$!
  ctl=0 tries=0
  while [ "$ctl" -eq 0 ] && [ "$tries" -lt $((LAUNCHES * 20)) ]; do
    tries=$((tries + 1))
    # The flipper can use up its swaps during the control too (a fast flipper, slow tries under
    # load): without this the control tried against a path that had stopped moving and failed.
    if ! kill -0 "$fpid" 2>/dev/null; then
      wait "$fpid" || true
      flip_until &
      fpid=$!
    fi
    out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$bw" --unshare-user --ro-bind / / \
      --ro-bind "$W/pkg/.git/hooks" /mnt cat /mnt/SECRET 2>/dev/null) || true
    grep -q TOPSECRET <<<"$out" && ctl=$((ctl + 1))
  done
  touch "$T_DIR/stop"
  wait "$fpid" || true
  reset_layout
  # Calm: no flipper; every launch must start and see the real (empty) hooks dir.
  calm=0
  for i in 1 2 3 4 5; do
    out=$(cd "$W" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb BLAUDE_PROTECT_MOUNTS="$pm" \
      setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$BLAUDE" --no-clipboard --exec sh -c "$inside" </dev/null 2>"$T_DIR/err") || true
    if grep -q END <<<"$out" && ! grep -q TOPSECRET <<<"$out"; then calm=$((calm + 1)); else echo "calm launch $i:"; cat "$T_DIR/err"; fi
  done
  log "bwrap $v: $LAUNCHES launches under flipping: $started started, $refused refused, $leaked leaked; control: a bare bind leaked after $tries tries"
  check_eq "bwrap $v: no launch shows what the swapped-in symlink points to" 0 "$leaked"
  check_eq "bwrap $v: every refusal says why" 0 "$silent"
  check_eq "bwrap $v: once the flipping stops, every launch starts (5 of 5)" 5 "$calm"
  check "bwrap $v, control: the race is real (a bare bind leaked, after $tries tries)" test "$ctl" -gt 0
done
done
finish
