#!/bin/bash
# The terminal state guard under `asciinema rec`, in both topologies blaude uses: pause (asciinema
# run by a non-interactive bash in tmux: blaude stops it and draws on the real terminal itself)
# and mute (asciinema as tmux's pane process: blaude's output bypasses it to the real terminal).
# The child switches modes on and ends (or blaude is SIGKILLed); the real terminal (the pane)
# must be back to tmux's view of it before blaude. Control: the same child run directly inside
# the recording leaves the pane changed.
. "$(dirname "$0")/lib.sh"
command -v asciinema >/dev/null || missing "asciinema is not installed (Debian package asciinema)"
export XDG_STATE_HOME="$T_DIR/state"
CAST="$T_DIR/rec.cast"

cat >"$T_DIR/child.sh" <<'SH'
printf '\033[?1049h\033[?1000h\033[?25l\033[?1h\033='
echo INSIDE
IFS= read -r x
SH
flags() { tm display-message -p -t t '#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag}'; }
# rec CMD: what asciinema records: a marker, a line, CMD, a marker
rec() { printf "asciinema rec --overwrite -q -c %q %q" "printf 'BEFORE_%s\\n' MARK; read -r x; $1; echo AFTER_MARK rc=\$?; sleep 1000" "$CAST"; }
# A non-interactive bash (nobody sees a stop); the command after asciinema keeps bash from
# exec'ing it, which would make asciinema tmux's pane process.
pause_cmd() { printf 'bash -c %q' "$(rec "$1"); exec sleep 1000"; }
mute_cmd() { rec "$1"; }                              # tmux's own pane process
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
BLAUDE_EXE=$(readlink -f "$BLAUDE")
# blaude, and its watchdogs, under this test's pane. Nothing here may depend on pid order (pids
# wrap at pid_max, 32768 here, many times in a CI run) or end on a false test (set -e: the
# last pid pgrep listed being asciinema's shell once made `ps=$(blaudes)` end the script).
blaudes() { local p; for p in $(pgrep -f -- "--exec sh $T_DIR/child.sh"); do
  if [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$BLAUDE_EXE" ]; then echo "$p"; fi; done; }
# The session process among them, not a watchdog: a watchdog leads a session of its own.
main_blaude() { local p; for p in $(blaudes); do
  if [ "$(awk '{print $6}' "/proc/$p/stat" 2>/dev/null)" != "$p" ]; then echo "$p"; return 0; fi; done
  return 1; }
# asciinema: the nearest ancestor of blaude called so
recorder() { local p; p=$(main_blaude) || return 1; while [ -n "$p" ] && [ "$p" -gt 1 ]; do
  p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || return 1
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = asciinema ] && { echo "$p"; return 0; }; done; return 1; }
phase=0

# run TOPOLOGY HOW: HOW is "end" (the child exits) or "kill" (blaude is SIGKILLed)
run() {
  local topo=$1 how=$2 direct=${3:-}
  phase=$((phase+1))
  tm kill-server >/dev/null 2>&1 || true
  T_SOCK="${T_SOCK%-p*}-p$phase"
  local inner="$BLAUDE --debug --no-sandbox --exec sh $T_DIR/child.sh"
  [ -n "$direct" ] && inner="sh $T_DIR/child.sh"
  tm_start 80 24 "$("${topo}_cmd" "$inner")"
  tm_wait 'BEFORE_MARK' 60 >/dev/null || { fail "$topo/$how: asciinema started"; return; }
  local before; before=$(flags)
  tm_enter
  tm_wait '^INSIDE' 30 >/dev/null || { fail "$topo/$how: the child started"; return; }
  local name="$topo topology, $how${direct:+ (control: no blaude)}"
  check "$name: the child switched the pane's modes" test "$(flags)" != "$before"
  if [ -z "$direct" ]; then  # the topology, seen from outside: is asciinema stopped?
    local rec st; rec=$(recorder) || rec=none
    st=$(awk '{print $3}' "/proc/$rec/stat" 2>/dev/null)
    if [ "$topo" = pause ]; then check_eq "$name: blaude paused asciinema" T "$st"
    else check "$name: blaude left asciinema running (mute)" test -n "$st" -a "$st" != T; fi
  fi
  if [ -n "$direct" ] || [ "$how" = end ]; then
    tm_enter
  else
    local ps b; ps=$(blaudes)
    b=$(main_blaude) || { fail "$name: found blaude to kill"; return; }
    kill -KILL "$b"
    for p in $ps; do wait_until gone "$p" || fail "$name: blaude or a watchdog did not finish"; done
  fi
  if [ -n "$direct" ] || [ "$how" = end ]; then
    tm_wait 'AFTER_MARK' 30 >/dev/null || fail "$name: the recording went on after blaude"
  else
    # Unpaused (mute), asciinema may relay the shell's next line before the watchdog's reset,
    # which then leaves the screen it was drawn on: not waited for. A marker written to the
    # pane's terminal after the watchdogs are gone comes after everything they wrote.
    printf 'SYNC-%s\r\n' "$phase" >"$(tm display-message -p -t t '#{pane_tty}')"
    tm_wait "SYNC-$phase" 20 >/dev/null || fail "$name: marker after the watchdogs"
  fi
  if [ -n "$direct" ]; then
    check "$name: the pane is left changed" test "$(flags)" != "$before"
  else
    check_eq "$name: the pane is as before blaude" "$before" "$(flags)"
  fi
}

run pause end direct
run pause end
run pause kill
run mute end direct
run mute end
run mute kill
finish
