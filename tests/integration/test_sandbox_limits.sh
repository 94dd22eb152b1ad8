#!/usr/bin/env bash
# The sandbox's resource limits (sandbox/bwrap/run/limits.hpp), attacked from inside through the
# real blaude as uid 65534, both ways blaude enforces them:
# - a delegated cgroup v2 parent, made here as root the way systemd's Delegate= makes one (the dir,
#   its cgroup.procs and cgroup.subtree_control chowned to the user), blaude started from a leaf in
#   it: a fork bomb inside ends at --pids-max within 10 s, a host-side probe timing `true` every
#   100 ms stays responsive, the exit line names the limit and its flag. Control: the same bomb
#   under --no-limits gets past that limit, up to the outer one this test set on the parent (which
#   keeps it from the machine), and runs until the test ends it. Where the kernel has the memory
#   controller in cgroup v2, a memory balloon the same way (this CI host keeps memory in cgroup v1,
#   so there it is logged as not run). pids may be bound to cgroup v1 here: when its v1 hierarchy is
#   unused, the test moves it to v2 for its run and back at exit.
# - without delegation (uid 65534 in the root cgroup): RLIMIT_NPROC, over the account's tasks; 300
#   background sleeps are cut short at --pids-max 64, and all start under --no-limits (control).
# Bad values: a clear error, nothing started; a project policy cannot set limits.
. "$(dirname "$0")/lib.sh"

need_sandbox
sandbox_dirs
[ "$(id -u)" = 0 ] || host_lacks "the test makes a delegated cgroup as root"

sbout() {  # sbout OUT [blaude options] -- SCRIPT: stdout in OUT, stderr in OUT.err, status in OUT.rc
  local out=$1
  shift
  set +e
  sb_nobody /usr/bin "$@" >"$out"
  echo $? >"$out.rc"
  set -e
  cp "$T_DIR/sb.err" "$out.err"
}

# --- bad values: nothing starts --------------------------------------------------------------------
sbout "$T_DIR/bad1" --pids-max 3 -- 'touch /tmp/started-$$; echo ran'
check_eq "--pids-max 3: usage error (exit 2)" 2 "$(cat "$T_DIR/bad1.rc")"
check "... saying why and the least it takes" grep -q "^blaude: --pids-max: '3' is too few for the sandbox to start (at least 64)" "$T_DIR/bad1.err"
check "... and nothing ran" not grep -q ran "$T_DIR/bad1"
sbout "$T_DIR/bad2" --memory-max 8X -- 'echo ran'
check "--memory-max 8X: a usage error naming the form" grep -q "^blaude: --memory-max: '8X' is not a size (a number with K, M, G or T" "$T_DIR/bad2.err"
check "... nothing ran" not grep -q ran "$T_DIR/bad2"
mkdir -p "$H/.config/blaude"
printf 'memory-max lots\n' >"$H/.config/blaude/policy"
chown -R 65534:65534 "$H/.config"
sbout "$T_DIR/bad3" -- 'echo ran'
check "a bad memory-max in the user policy: refused with the line" grep -q "policy:1: memory-max 'lots' is not a size" "$T_DIR/bad3.err"
check "... nothing ran" not grep -q ran "$T_DIR/bad3"
rm "$H/.config/blaude/policy"
printf 'pids-max 100000\n' >"$WS/.blaude"
chown 65534:65534 "$WS/.blaude"
sbout "$T_DIR/bad4" --trust-policy -- 'echo ran'
check "a project policy cannot set limits" grep -q "\.blaude:1: memory-max, pids-max and no-limits belong in your own policy" "$T_DIR/bad4.err"
check "... nothing ran" not grep -q ran "$T_DIR/bad4"
rm "$WS/.blaude"

# --- without delegation: RLIMIT_NPROC ------------------------------------------------------------------
# 300 forks that sleep, counted as they succeed (a shell's would need forks to count); the sleepers
# end with the sandbox when the counter exits.
command -v python3 >/dev/null || missing python3
SPAWN='python3 -c "
import os, time
n = 0
for i in range(300):
    try: pid = os.fork()
    except OSError: break
    if pid == 0: time.sleep(20); os._exit(0)
    n += 1
print(n)"'
sbout "$T_DIR/nproc" --debug --pids-max 64 -- "$SPAWN"
check "no delegation: the layers line names RLIMIT_NPROC and no memory limit" \
  grep -q "^blaude: layers: .*; limits: RLIMIT_NPROC (64 tasks beyond the account's), NO memory limit (" "$T_DIR/nproc.err"
n=$(tail -1 "$T_DIR/nproc")
log "RLIMIT_NPROC, --pids-max 64: $n of 300 started"
check "--pids-max 64 (RLIMIT_NPROC): far fewer than 300 start ($n)" test "$n" -lt 200
sbout "$T_DIR/nproc_ctl" --no-limits -- "$SPAWN"
n=$(tail -1 "$T_DIR/nproc_ctl")
check "control: under --no-limits all 300 start ($n)" test "$n" -ge 300
check "... and the layers line says there are no limits (no --debug needed)" \
  grep -q "^blaude: layers: .*; NO resource limits of blaude's (--no-limits" "$T_DIR/nproc_ctl.err"

# --- a delegated cgroup v2 parent ------------------------------------------------------------------------
CG=$(findmnt -n -t cgroup2 -o TARGET | head -1)
[ -n "$CG" ] || host_lacks "no cgroup v2 mounted"
if ! grep -qw pids "$CG/cgroup.controllers"; then
  # pids in an unused cgroup v1 hierarchy: bound to v2 for this test, back at exit.
  V1=$(findmnt -n -t cgroup -O pids -o TARGET | head -1)
  if [ -n "$V1" ] && [ -z "$(find "$V1" -mindepth 1 -maxdepth 1 -type d)" ] && umount "$V1"; then
    at_exit_late "echo -pids >'$CG/cgroup.subtree_control' 2>/dev/null; for i in 1 2 3 4 5 6 7 8 9 10; do mount -t cgroup -o pids cgroup '$V1' && break; sleep 0.2; done"
    # The v1 hierarchy is released asynchronously (seconds under load): up to 30 s.
    for _ in 1 2 3; do wait_until grep -qw pids "$CG/cgroup.controllers" && break; done
    grep -qw pids "$CG/cgroup.controllers" || host_lacks "pids did not come to cgroup v2 within 30 s"
  else
    host_lacks "the pids controller is neither in cgroup v2 nor in an unused v1 hierarchy"
  fi
fi
CTL=+pids
grep -qw memory "$CG/cgroup.controllers" && CTL="+pids +memory"
enable_pids() { echo +pids >"$CG/cgroup.subtree_control"; } 2>/dev/null
grep -qw pids "$CG/cgroup.subtree_control" || { wait_until enable_pids || wait_until enable_pids; at_exit_late "echo -pids >'$CG/cgroup.subtree_control' 2>/dev/null || true"; }
P="$CG/blaude-test-$$"
mkdir "$P"
rm_cg() {  # every process in P ended, then its dirs gone, deepest first
  local d
  for d in $(find "$P" -depth -type d 2>/dev/null); do
    echo 1 >"$d/cgroup.kill" 2>/dev/null || true
    wait_until rmdir "$d" 2>/dev/null || true
  done
}
at_exit rm_cg
# The outer bound: what the control's bomb reaches, keeping it from the rest of the machine.
echo 400 >"$P/pids.max"
echo "$CTL" >"$P/cgroup.subtree_control"
mkdir "$P/shell"
chown 65534:65534 "$P" "$P/cgroup.procs" "$P/cgroup.subtree_control" "$P/cgroup.threads"
# in_leaf: blaude started from the delegated parent's leaf (a terminal's scope, as systemd has it).
in_leaf() { sh -c 'echo $$ >"$1/shell/cgroup.procs"; shift; exec "$@"' sh "$P" "$@"; }
sb_leaf() { local out=$1; shift; set +e; in_leaf bash -c '. "$1"; shift; sb_nobody /usr/bin "$@"' sh "$T_DIR/sb_def.sh" "$@" >"$out"; echo $? >"$out.rc"; set -e; cp "$T_DIR/sb.err" "$out.err"; }
declare -f sb_nobody >"$T_DIR/sb_def.sh"
declare -p T_DIR WS H BLAUDE >>"$T_DIR/sb_def.sh"
echo 'SB_ENV=()' >>"$T_DIR/sb_def.sh"

# The host-side probe: `true` every 100 ms, the slowest in ms written at the end.
probe_start() { (max=0; end=$((SECONDS + 30)); while [ ! -e "$T_DIR/probe.stop" ] && [ $SECONDS -lt $end ]; do t0=$(date +%s%N); /bin/true; t=$((($(date +%s%N) - t0) / 1000000)); [ $t -gt $max ] && max=$t; sleep 0.1; done; echo $max >"$T_DIR/probe.max") & PROBE=$!; }
probe_stop() { touch "$T_DIR/probe.stop"; wait $PROBE || true; rm -f "$T_DIR/probe.stop"; slow=$(cat "$T_DIR/probe.max"); }

BOMB='b() { b & b & wait; }; b'
probe_start
t0=$(date +%s%N)
sb_leaf "$T_DIR/bomb" --debug --pids-max 200 -- "$BOMB"
el=$((($(date +%s%N) - t0) / 1000000))
probe_stop
log "fork bomb at --pids-max 200 (cgroup): ended after ${el} ms, exit $(cat "$T_DIR/bomb.rc"); host probe's slowest true: ${slow} ms"
check "delegated cgroup: the layers line names the cgroup and its pids.max" grep -q "^blaude: layers: .*; limits: cgroup v2 (.*200 tasks" "$T_DIR/bomb.err"
check "the fork bomb ends within 10 s (${el} ms)" test "$el" -lt 10000
check "the host stays responsive meanwhile (slowest true: ${slow} ms)" test "$slow" -lt 1000
check "the exit line names the limit and the flag" \
  grep -q "^blaude: the sandbox reached its process limit (pids.max 200 tasks): blaude ended its processes. --pids-max N raises it" "$T_DIR/bomb.err"
check "blaude removed its leaf" test -z "$(find "$P" -mindepth 1 -maxdepth 1 -type d -name 'blaude-*')"

# Control: --no-limits, the same bomb; only the parent's outer bound (400) holds it; ended here.
probe_start
in_leaf bash -c '. "$1"; shift; sb_nobody /usr/bin "$@"' sh "$T_DIR/sb_def.sh" --no-limits -- "$BOMB" >/dev/null 2>&1 &
CTL_PID=$!
reached() { [ "$(cat "$P/pids.current")" -ge 390 ]; }
check "control: under --no-limits the bomb gets past 200 tasks, to the test's outer bound" wait_until reached
echo 1 >"$P/shell/cgroup.kill"
wait $CTL_PID 2>/dev/null || true
probe_stop
log "control bomb: held by the test's own bound (400); host probe's slowest true: ${slow} ms"

# A memory balloon, where cgroup v2 has the memory controller.
if grep -qw memory "$CG/cgroup.controllers"; then
  BALLOON='python3 -c "a=[]
while True: a.append(bytearray(32 << 20))"'
  t0=$(date +%s%N)
  sb_leaf "$T_DIR/balloon" --memory-max 300M -- "$BALLOON"
  el=$((($(date +%s%N) - t0) / 1000000))
  check "the memory balloon ends within 10 s (${el} ms)" test "$el" -lt 10000
  check "the exit line names the memory limit and the flag" \
    grep -q "^blaude: the sandbox used all the memory it may (memory.max 300 MiB): the kernel ended its processes. --memory-max SIZE raises it" "$T_DIR/balloon.err"
  # Control: a bigger limit lets the same program get further (it stops itself at 400 MiB).
  sb_leaf "$T_DIR/balloon_ctl" --memory-max 1G -- 'python3 -c "a=[bytearray(32 << 20) for i in range(12)]; print(\"got\", len(a))"'
  check "control: under a bigger limit 400 MiB are had" grep -q "got 12" "$T_DIR/balloon_ctl"
else
  log "cgroup v2 has no memory controller here (cgroup v1 holds it): the memory balloon checks did not run"
fi

finish
