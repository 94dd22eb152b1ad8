#!/usr/bin/env bash
# The terminal state guard through the real blaude, with tmux as the user's terminal: whatever
# the child leaves switched on (alternate screen, mouse, hidden cursor, application cursor keys,
# keypad) is off again after blaude, on every way the session ends. tmux's own view of the pane
# (#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag}) must
# equal what it was before blaude started. Each case has a control: the same child run directly
# in the pane leaves the modes changed, so the check would notice a guard that does nothing.
. "$(dirname "$0")/lib.sh"
B="$BLAUDE --no-sandbox --exec"
export XDG_STATE_HOME="$T_DIR/state"

tm_start 100 30
tm_wait '^\$ $'
flags() { tm display-message -p -t t '#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag}'; }
BEFORE=$(flags)
check_eq "the pane starts at the defaults" "0 0 1 0 0" "$BEFORE"

# What the child switches on, then how it ends. In printf's own escapes, for sh -c '...'.
ON='printf "\\033[?1049h\\033[?1000h\\033[?2004h\\033[?25l\\033[?1h\\033="'
RESET='printf "\033[?1049l\033[?1000l\033[?2004l\033[?25h\033[?1l\033>"'

n=0
# sync: a marker typed after everything else so that tmux has parsed what came before it.
sync() { n=$((n+1)); tm_run "echo SYNC$n"; tm_wait "^SYNC$n\$" 10 >/dev/null; }
# put_back: the control left the pane changed; reset it by hand for the next case.
put_back() { tm_run "$RESET"; sync; check_eq "pane reset by hand after the control" "$BEFORE" "$(flags)"; }
# ended ID NAME: wait for the line the shell prints after the command.
ended() { tm_wait "^END-$1\$" 20 >/dev/null || fail "$2: did not end"; }
k=0
blaude_pid() { pgrep -P "$(tm_pane_pid)" -f -- '--no-sandbox' | head -n1; }
# The watchdog is blaude's other child: a fork of blaude itself (the command is sh or sleep).
BLAUDE_EXE=$(readlink -f "$BLAUDE")
watchdog_of() { local c; for c in $(pgrep -P "$1"); do [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$BLAUDE_EXE" ] && echo "$c"; done | head -n1; }
# gone PID: exited (a zombie that nobody reaps counts as gone)
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# run_exit NAME HOW: HOW is the child's last command (exit 0, kill -9 $$, ...)
run_exit() {
  local name=$1 how=$2
  k=$((k+1))
  tm_run "sh -c '$ON; $how'; echo END-c$k"
  ended "c$k" "control ($name)"
  sync
  check "control ($name, no blaude): the pane is left changed" test "$(flags)" != "$BEFORE"
  put_back
  tm_run "$B sh -c '$ON; $how'; echo END-$k"
  ended "$k" "$name"
  sync
  check_eq "$name: the pane is as before blaude" "$BEFORE" "$(flags)"
}
run_exit "normal exit" 'exit 0'
run_exit "child SIGKILLed" 'kill -9 $$'
run_exit "child crash (SIGSEGV)" 'kill -SEGV $$'

# Signals to blaude (forwarded to the child, which dies of them), and to the child directly
# for the control. HOW: how to kill what is running in the pane.
run_signal() {
  local name=$1 sig=$2 target=$3
  k=$((k+1))
  tm_run "sh -c '$ON; echo READY-c$k; exec sleep 60'; echo END-c$k"
  # (anchored: the typed command line holds the word too)
  tm_wait "^READY-c$k" 10 >/dev/null
  local p; p=$(pgrep -P "$(tm_pane_pid)" | head -n1)
  kill -"$sig" "$p"
  # (bash does not go on with the command line after a job died of SIGINT: wait for the pid)
  wait_until gone "$p" || fail "control ($name): the child did not end"
  sync
  check "control ($name to the child, no blaude): the pane is left changed" test "$(flags)" != "$BEFORE"
  put_back
  tm_run "$B sh -c '$ON; echo READY-$k; exec sleep 60'; echo END-$k"
  tm_wait "^READY-$k" 10 >/dev/null
  local bp="" wd=""
  wait_until eval 'bp=$(blaude_pid); [ -n "$bp" ]' || true
  # (blaude forks its watchdog while the child starts: it may come after the child's first line)
  wait_until eval 'wd=$(watchdog_of "$bp"); [ -n "$wd" ]' || fail "$name: blaude has no watchdog"
  if [ "$sig" = KILL ]; then
    # It must hold only what it needs: /dev/null as stdio, its pipe, and the terminal. A stray
    # copy of another pipe's write end would keep another watchdog (a paused recorder's)
    # waiting forever.
    local tty; tty=$(tm display-message -p -t t '#{pane_tty}')
    check_eq "the watchdog holds only /dev/null, its pipe and the terminal" "" \
      "$(for f in /proc/$wd/fd/*; do t=$(readlink "$f"); case "${f##*/}:$t" in [012]:/dev/null|3:pipe:*|*:"$tty") ;; *) echo "${f##*/}:$t" ;; esac; done)"
  fi
  [ "$target" = blaude ] && kill -"$sig" "$bp"
  wait_until gone "$bp" || fail "$name: blaude did not end"
  # After a crash or SIGKILL the watchdog writes the safe reset: wait for it to finish first.
  # (After SIGKILL the shell learns of blaude's death as the watchdog does, and may print its
  # next lines on the child's alternate screen before the watchdog leaves it: the END line is
  # not waited for. The shell is back at its prompt either way: sync types a command there.)
  if [ -n "$wd" ]; then wait_until gone "$wd" || fail "$name: the watchdog did not finish"; fi
  [ "$sig" = KILL ] || ended "$k" "$name"
  sync
  check_eq "$name: the pane is as before blaude" "$BEFORE" "$(flags)"
}
run_signal "SIGTERM to blaude" TERM blaude
run_signal "SIGHUP to blaude" HUP blaude
run_signal "SIGINT to blaude" INT blaude
# blaude's own error path: it crashes; its crash handler writes the safe reset.
run_signal "blaude crashes (SIGSEGV)" SEGV blaude
run_signal "blaude aborts (SIGABRT)" ABRT blaude
# SIGKILL of blaude: only the watchdog is left to do it.
run_signal "SIGKILL of blaude" KILL blaude

# --- Ctrl-Z of blaude: out of the child's modes while stopped, back in on fg ---------------------
tm_run "$B sh -c 'trap \"echo REDRAWN\" WINCH; printf \"\\033[?1049h\\033[?1000h\"; echo INALT; while :; do sleep 0.1; done'; echo END-tstp"
tm_wait '^INALT' 10 >/dev/null
check_eq "the child is in the alternate screen with the mouse on" "1 1" "$(flags | cut -d' ' -f1,2)"
bp=""; wait_until eval 'bp=$(blaude_pid); [ -n "$bp" ]' || true
kill -TSTP "$bp"
tm_wait 'Stopped' 10 >/dev/null || fail "blaude did not stop"
sync
check_eq "stopped: the pane is out of the alternate screen, mouse off" "0 0" "$(flags | cut -d' ' -f1,2)"
tm_run "fg"
tm_wait '^REDRAWN' 10 >/dev/null && pass "after fg the child is asked to redraw" || fail "no redraw after fg"
check_eq "after fg: back in the alternate screen with the mouse on" "1 1" "$(flags | cut -d' ' -f1,2)"
kill -TERM "$bp"
ended tstp "Ctrl-Z case"
# (END-tstp came at the stop already.) Typed only once blaude is gone: what is typed while its
# reply fence runs is dropped.
wait_until gone "$bp" || fail "Ctrl-Z case: blaude did not end"
sync
check_eq "and after it ends, the pane is as before" "$BEFORE" "$(flags)"

finish
