#!/bin/bash
# asciinema run by a non-interactive bash in tmux (no job control, so nobody notices a stop):
# blaude pauses it and talks to the real terminal itself. Then the same with blaude SIGKILLed
# mid-session: its watchdog must restore the terminal and resume asciinema within a second.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asciinema_lib.sh"

# --- normal run -----------------------------------------------------------------------------
tm_start 80 24 "bash -c $(printf %q "$(asciinema_cmd); echo ASC_RC=\$?; exec sleep 1000")"
tm_wait 'BEFORE_MARK' 60 || true
B=""
# Look at the watchdog while the session runs: it must hold no descriptor of the recorder's pty.
(
  for _ in $(seq 400); do
    B=$(blaude_pid 2>/dev/null) && W=$(watchdog_pid "$B") && break
    sleep 0.05
  done
  [ -n "${W:-}" ] || exit 0
  echo "$W" >"$T_DIR/wd.pid"
  ls -l "/proc/$W/fd" >"$T_DIR/wd.fds" 2>&1
  readlink /proc/"$B"/fd/0 >"$T_DIR/blaude.tty"
) &
drive_session pause
wait
check "the log says it paused" grep -q 'mode pause: paused' "$(log_file)"
check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
check "a watchdog ran during the session" test -s "$T_DIR/wd.pid"
if [ -s "$T_DIR/wd.pid" ]; then
  check "the watchdog holds none of blaude's terminal (the recorder's pty slave)" \
    sh -c "! grep -q \" $(cat "$T_DIR/blaude.tty")\$\" '$T_DIR/wd.fds'"
  check "the watchdog holds exactly 5 descriptors" \
    test "$(grep -c -- '->' "$T_DIR/wd.fds")" -eq 5
  check "the watchdog is gone after a normal end" \
    wait_until sh -c "! kill -0 $(cat "$T_DIR/wd.pid") 2>/dev/null"
fi
check_cast

# --- SIGKILL of blaude mid-session ----------------------------------------------------------
tm kill-server
rm -f "$CAST" "$(log_file)"
tm_start 80 24 "bash -c $(printf %q "$(asciinema_cmd); echo ASC_RC=\$?; exec sleep 1000")"
tm_wait 'BEFORE_MARK' 60 || true
MODES=$(tty_modes)
tm_enter
tm_wait 'SESSION_START' 30 || fail "second session started"
REC=$(recorder_pid) && B=$(blaude_pid) || { fail "found asciinema and blaude"; finish; exit; }
check_eq "asciinema is stopped before the kill (control)" T "$(proc_state "$REC")"
kill -KILL "$B"
t0=$(date +%s%N)
resumed=""
for _ in $(seq 500); do
  [ "$(proc_state "$REC")" != T ] && { resumed=$(( ($(date +%s%N) - t0) / 1000000 )); break; }
  sleep 0.01
done
log "asciinema resumed ${resumed:-never} ms after SIGKILL"
check "asciinema resumed within a second of blaude's SIGKILL" test -n "$resumed" -a "${resumed:-9999}" -lt 1000
check_eq "the real terminal's modes are back to asciinema's" "$MODES" "$(tty_modes)"
check "asciinema records again (the command after blaude)" tm_wait 'AFTER_MARK rc=137' 20
tm_type "relay$$"; tm_enter
check "asciinema relays input again" tm_wait "RELAY\\[relay$$\\]" 20
check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
check "cast has output from after the kill" grep -q 'AFTER_MARK rc=137' "$CAST"
finish
