#!/bin/bash
# asciinema run by a non-interactive bash in tmux (no job control, so nobody notices a stop):
# blaude pauses it and talks to the real terminal itself. Then the same with blaude SIGKILLed
# mid-session: its watchdog must restore the terminal and resume asciinema within a second.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asciinema_lib.sh"

wrapped() { printf 'bash -c %q' "$(asciinema_cmd); echo ASC_RC=\$?; exec sleep 1000"; }

# --- normal run -----------------------------------------------------------------------------
tm_start 80 24 "$(wrapped)"
# Look at the watchdog while the session runs: it must hold no descriptor of the recorder's pty.
observe_watchdog() {
  local b w
  b=$(blaude_pid) && w=$(watchdog_pid "$b") || return 0
  readlink "/proc/$b/fd/0" >"$T_DIR/blaude.tty"
  ls -l "/proc/$w/fd" >"$T_DIR/wd.fds" 2>&1
  echo "$w" >"$T_DIR/wd.pid"
}
DRIVE_HOOK=observe_watchdog
drive_session pause
DRIVE_HOOK=
check "the log says it paused" grep -q 'mode pause: paused' "$(log_file)"
check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
check "a watchdog ran during the session" test -s "$T_DIR/wd.pid"
if [ -s "$T_DIR/wd.pid" ]; then
  check "the watchdog holds none of blaude's terminal (the recorder's pty slave)" \
    sh -c "! grep -q ' $(cat "$T_DIR/blaude.tty")\$' '$T_DIR/wd.fds'"
  check "the watchdog holds exactly 5 descriptors (null x3, pipe, real terminal)" \
    test "$(grep -c -- '->' "$T_DIR/wd.fds")" -eq 5
  check "the watchdog is gone after a normal end" \
    wait_until sh -c "! kill -0 $(cat "$T_DIR/wd.pid") 2>/dev/null"
fi
check_cast

# --- SIGKILL of blaude mid-session ----------------------------------------------------------
next_server 2
rm -f "$CAST" "$(log_file)"
tm_start 80 24 "$(wrapped)"
tm_wait 'BEFORE_MARK' 60 || fail "second recording started"
stty -F "$(pane_tty)" echonl
MODES=$(tty_modes)
tm_enter
tm_wait 'SESSION_START' 30 || fail "second session started"
if REC=$(recorder_pid) && B=$(blaude_pid); then
  check_eq "asciinema is stopped before the kill (control)" T "$(proc_state "$REC")"
  kill -KILL "$B"
  t0=$(date +%s%N)
  resumed=""
  for _ in $(seq 500); do
    if [ "$(proc_state "$REC")" != T ]; then
      resumed=$(( ($(date +%s%N) - t0) / 1000000 ))
      break
    fi
    sleep 0.01
  done
  log "asciinema resumed ${resumed:-never} ms after SIGKILL"
  check "asciinema resumed within a second of blaude's SIGKILL" test "${resumed:-9999}" -lt 1000
  check_eq "the real terminal's modes are back to asciinema's" "$MODES" "$(tty_modes)"
  check "asciinema records again (the command after blaude)" tm_wait 'AFTER_MARK rc=137' 20
  tm_type "relay$$"; tm_enter
  check "asciinema relays input again" tm_wait "RELAY\\[relay$$\\]" 20
  end_recording
  check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
  check "cast has output from after the kill" grep -q 'AFTER_MARK rc=137' "$CAST"
  check "cast has none of the killed session's output" sh -c "! grep -q SESSION_ '$CAST'"
else
  fail "found asciinema and blaude in the second run"
fi

# --- blaude stopped (SIGTSTP) and continued mid-session ---------------------------------------
next_server 3
rm -f "$CAST" "$(log_file)"
tm_start 80 24 "$(wrapped)"
tm_wait 'BEFORE_MARK' 60 || fail "third recording started"
tm_enter
tm_wait 'SESSION_START' 30 || fail "third session started"
if REC=$(recorder_pid) && B=$(blaude_pid); then
  check_eq "asciinema is stopped during the session (control)" T "$(proc_state "$REC")"
  kill -TSTP "$B"
  check "blaude stops on SIGTSTP" wait_until sh -c "[ \"\$(awk '{print \$3}' /proc/$B/stat)\" = T ]"
  check "asciinema runs while blaude is stopped" \
    wait_until sh -c "[ \"\$(awk '{print \$3}' /proc/$REC/stat)\" != T ]"
  kill -CONT "$B"
  check "asciinema is paused again once blaude continues" \
    wait_until sh -c "[ \"\$(awk '{print \$3}' /proc/$REC/stat)\" = T ]"
  tm_type "$TOKEN"; tm_enter
  check "typed text reaches the continued session" tm_wait "SESSION_GOT\\[$TOKEN\\]" 20
  tm_resize 90 20
  check "the continued session sees the new size" tm_wait 'SESSION_SIZE 20 90' 40
  tm_enter
  check "output after the session is shown" tm_wait 'AFTER_MARK rc=0' 20
  tm_type "relay$$"; tm_enter
  check "asciinema relays input after the continued session" tm_wait "RELAY\\[relay$$\\]" 20
  end_recording
  check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
  check "cast has none of the session's output" sh -c "! grep -q SESSION_ '$CAST'"
else
  fail "found asciinema and blaude in the third run"
fi
finish
