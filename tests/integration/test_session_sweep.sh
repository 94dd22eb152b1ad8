#!/usr/bin/env bash
# What the agent starts ends with the session, so nothing of it can race the post-session audit.
# With bwrap, the pid namespace ends it. Without one (macOS Seatbelt, --no-sandbox on the POSIX
# calls), blaude sweeps the child's session after the child exits (src/pty/sweep.hpp). The attack:
# a daemonized grandchild that ignores SIGHUP (the pty's hangup does not end it) and outlives its
# shell. Control: the same command on a plain host pty, nobody sweeping: it survives. Pty mode
# and pipes mode without a controlling terminal are swept; pipes mode on one is not (stated).
. "$(dirname "$0")/lib.sh"
PT="python3 $BLAUDE_SRC/tests/integration/ptyterm.py"
export XDG_STATE_HOME="$T_DIR/state"   # blaude's log, this test's own
LOG="$XDG_STATE_HOME/blaude/blaude.log"
mark=$((900000 + RANDOM))$$   # a sleep length no other process has: pgrep finds only ours
daemon="(trap '' HUP; exec sleep $mark </dev/null >/dev/null 2>&1 &); exit 0"
# Any process whose command line holds "sleep MARK": the daemon once it has exec'd sleep, and
# also before (the forked shell that is about to exec it), so neither check can look too early.
alive() { pgrep -f "sleep $mark" >/dev/null; }
reap() { pkill -KILL -f "sleep $mark" 2>/dev/null || true; wait_until not alive || true; }
at_exit reap

# Control: a plain pty (the host, no blaude): the daemon outlives its session.
$PT capture "$T_DIR/ctl" -- sh -c "$daemon" >/dev/null
check "control: on a plain pty the daemonized grandchild survives the session" wait_until alive
reap

if grep -q 'BLAUDE_POSIX_FALLBACKS:BOOL=ON' "$BLAUDE_BUILD/CMakeCache.txt"; then
  # The POSIX calls (what macOS makes): --no-sandbox has no pid namespace either, so the sweep
  # is what ends the daemon, as it does under sandbox-exec on a Mac.
  $PT capture "$T_DIR/out" -- "$BLAUDE" --no-sandbox --exec sh -c "$daemon" >/dev/null
  check "posix calls, --no-sandbox: the daemonized grandchild is gone when blaude returns" not alive
  reap
  # What remains out of reach (sweep.hpp): setsid + double fork leaves no link to the session.
  $PT capture "$T_DIR/out2" -- "$BLAUDE" --no-sandbox --exec sh -c \
    "setsid sh -c \"(trap '' HUP; exec sleep $mark </dev/null >/dev/null 2>&1 &)\"; exit 0" >/dev/null
  if alive; then log "known gap (stated in README): a setsid + double-fork daemon survives the sweep"; fi
  reap
  # Pipes mode (stdio not a terminal) with no controlling terminal (setsid -w: scripts, CI, an
  # IDE's pipes): the child gets a session of its own, and the sweep ends what it left.
  : >"$LOG"
  setsid -w "$BLAUDE" --no-sandbox --exec sh -c "$daemon" </dev/null >"$T_DIR/pipes.out" 2>&1
  check "posix calls, pipes mode, no controlling terminal: the daemon is gone when blaude returns" not alive
  check "... and the log says the sweep killed it" grep -q "session end: killed" "$LOG"
  reap
  # Control in this build: pipes mode ON a controlling terminal keeps the child in blaude's (the
  # user's shell's) session, which is not swept (stated): the daemon survives, the log says why.
  : >"$LOG"
  $PT capture "$T_DIR/out3" -- sh -c "\"$BLAUDE\" --no-sandbox --exec sh -c \"$daemon\" </dev/null" >/dev/null
  check "control: pipes mode on a controlling terminal, not swept: the daemon survives" wait_until alive
  check "... and the log says it is not swept" grep -q "pipes mode on a controlling terminal" "$LOG"
  reap
else
  # Linux calls: --no-sandbox is unchanged (no sweep; the user's own shell semantics).
  $PT capture "$T_DIR/out" -- "$BLAUDE" --no-sandbox --exec sh -c "$daemon" >/dev/null
  check "linux calls, --no-sandbox: unchanged, the daemon survives as on the plain host" wait_until alive
  reap
  # Control for the pipes-mode sweep: the same command and stdio here, nobody sweeping.
  setsid -w "$BLAUDE" --no-sandbox --exec sh -c "$daemon" </dev/null >"$T_DIR/pipes.out" 2>&1
  check "linux calls, pipes mode, no controlling terminal: unchanged, the daemon survives" wait_until alive
  reap
fi
finish
