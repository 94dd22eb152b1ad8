# Shared by test_asciinema_*.sh (not a test itself): the session program, the recorded command
# and the checks every topology makes. Source after lib.sh.
command -v asciinema >/dev/null || missing "asciinema is not installed (Debian package asciinema)"

export XDG_STATE_HOME="$T_DIR/state"
CAST="$T_DIR/rec.cast"
TOKEN="typed$$x$RANDOM"

# The session: a marker, a line read from the keyboard, the window size once it changes, a
# second line, an end marker. "SESSION_" appears in nothing else, so the cast must not have it.
cat >"$T_DIR/prog.sh" <<'PROG'
#!/bin/bash
init=$(stty size)
echo "SESSION_START $init"
IFS= read -r line; echo "SESSION_GOT[$line]"
s=$init
for _ in $(seq 600); do s=$(stty size); [ "$s" != "$init" ] && break; sleep 0.05; done
echo "SESSION_SIZE $s"
IFS= read -r line2; echo "SESSION_END"
PROG
chmod +x "$T_DIR/prog.sh"

# What asciinema records: output before (after a line, so the test can look at the terminal
# first), blaude, output after, then one more line read through the resumed recorder; a last
# Enter (end_recording) ends it. Not ending at once after RELAY: asciinema 2.2 closes its pty on
# SIGCHLD without reading what the command wrote last (pty_.py, EXIT_SIGNALS), so a line printed
# just before the exit can be lost under load (one CI run lost RELAY from screen and cast).
rec_cmd() { # rec_cmd [blaude options...]
  printf '%s' "printf 'BEFORE_%s\\n' MARK; read -r x; $BLAUDE --debug --no-sandbox $* --exec $T_DIR/prog.sh; echo AFTER_MARK rc=\$?; read -r y; echo RELAY[\$y]; echo relayed >>$T_DIR/rec.trace; read -r z"
}
end_recording() { tm_enter; }
asciinema_cmd() { # asciinema_cmd [blaude options...]
  printf "asciinema rec --overwrite -q -c %q %q" "$(rec_cmd "$@")" "$CAST"
}

pane_tty() { tm display-message -p -t t '#{pane_tty}'; }
tty_modes() { stty -g -F "$(pane_tty)"; }
# The asciinema main process: the parent of the process that runs the recorded command.
recorder_pid() {
  local b
  b=$(blaude_pid) || return 1
  local p=$b
  while [ "$p" -gt 1 ]; do
    p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || return 1
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = asciinema ] && { echo "$p"; return 0; }
  done
  return 1
}
# blaude under this test's tmux server (its pane's descendants only, never by name globally).
blaude_pid() {
  local root; root=$(tm_pane_pid)
  local p
  for p in $(descendants "$root"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$BLAUDE")" ] || continue
    # the session process, not its watchdog (which has its own session)
    [ "$(awk '{print $6}' "/proc/$p/stat")" != "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}
descendants() { local c; for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do echo "$c"; descendants "$c"; done; }
proc_state() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null || echo gone; }
watchdog_pid() { # the child of blaude in its own session
  local c
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    [ "$(awk '{print $6}' "/proc/$c/stat" 2>/dev/null)" = "$c" ] && { echo "$c"; return 0; }
  done
  return 1
}
log_file() { echo "$XDG_STATE_HOME/blaude/blaude.log"; }

# Drives one recorded session; the caller has started asciinema in the pane. Sets REC and
# MODES_BEFORE for the caller's extra checks. $1: expected mode (pause|mute|none).
drive_session() {
  local mode=$1
  tm_wait 'BEFORE_MARK' 60 || { fail "asciinema started"; return 1; }
  # A flag raw mode clears and asciinema leaves alone: if blaude forgot to restore the real
  # terminal, stty -g afterwards differs.
  stty -F "$(pane_tty)" echonl
  MODES_BEFORE=$(tty_modes)
  tm_enter
  tm_wait 'SESSION_START 24 80' 30 || { fail "session started"; return 1; }
  REC=$(recorder_pid) || { fail "found the asciinema process"; return 1; }
  local st; st=$(proc_state "$REC")
  if [ "$mode" = pause ]; then
    check_eq "asciinema is stopped during the session (control)" T "$st"
    check "blaude made the real terminal raw during the session (control)" \
      test "$(tty_modes)" != "$MODES_BEFORE"
  else
    check "asciinema keeps running during the session ($mode mode)" [ "$st" != T ]
  fi
  [ -n "${DRIVE_HOOK:-}" ] && "$DRIVE_HOOK"  # extra looks while the session runs
  tm_type "$TOKEN"; tm_enter
  check "typed text reaches the session" tm_wait "SESSION_GOT\\[$TOKEN\\]" 20
  tm_resize 100 30
  check "the session sees the new window size" tm_wait 'SESSION_SIZE 30 100' 40
  tm_enter
  check "the session ends" tm_wait 'SESSION_END' 20
  check "output after the session is shown" tm_wait 'AFTER_MARK rc=0' 20
  check "asciinema runs (not stopped) after the session" \
    wait_until sh -c "s=\$(awk '{print \$3}' /proc/$REC/stat); [ \"\$s\" != T ]"
  check_eq "the real terminal's modes are unchanged (stty -g)" "$MODES_BEFORE" "$(tty_modes)"
  tm_type "relay$$"; tm_enter
  if tm_wait "RELAY\\[relay$$\\]" 20; then pass "asciinema relays input again"; else
    fail "asciinema relays input again (the recorded command $( [ -s "$T_DIR/rec.trace" ] && echo printed it || echo never printed it))"
  fi
  end_recording
  check "asciinema exited after the recorded command" wait_until sh -c "[ \"\$(awk '{print \$3}' /proc/$REC/stat 2>/dev/null || echo Z)\" = Z ]"
  check "the log names the mode" grep -q "asciinema: mode $mode" "$(log_file)"
}

check_cast() {
  check "cast has output from before the session" grep -q BEFORE_MARK "$CAST"
  check "cast has output from after the session" grep -q 'AFTER_MARK rc=0' "$CAST"
  check "cast has output after asciinema resumed" grep -q "RELAY\\[relay$$\\]" "$CAST"
  check "cast has none of the session's output" sh -c "! grep -q SESSION_ '$CAST'"
  check "cast has none of the typed text" sh -c "! grep -q '$TOKEN' '$CAST'"
}

# A fresh tmux server for the next phase of a test: reusing the socket right after kill-server
# races with the old server's exit ("server exited unexpectedly").
next_server() {
  tm kill-server >/dev/null 2>&1 || true
  T_SOCK="${T_SOCK%-phase*}-phase$1"
}
