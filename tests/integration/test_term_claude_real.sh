#!/usr/bin/env bash
# The real Claude Code (npm @anthropic-ai/claude-code) under blaude in its real bubblewrap
# sandbox, in tmux, as uid 65534: SIGKILL of blaude while claude's TUI is up leaves the pane as
# it was before blaude started (tmux's view of its modes), because the watchdog writes the safe
# reset. Control: claude run directly in the same pane and SIGKILLed leaves the pane changed.
. "$(dirname "$0")/lib.sh"

need_sandbox
claude_tmp_cleanup_at_exit
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || missing "Claude Code (scripts/install-test-claude.sh failed)"
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")
USER_PATH="$CLAUDE_DIR:/usr/local/bin:/usr/bin:/bin"
log "claude: $(as_nobody env HOME="$T_DIR" "$CLAUDE_BIN" --version 2>/dev/null)"

mkdir -p "$T_DIR/home" "$T_DIR/proj" "$T_DIR/homed" "$T_DIR/projd" "$T_DIR/state"
# Both start at the welcome screen: onboarding done, the project trusted (blaude writes the
# onboarding flags itself; inside, the project is at its own path).
printf '{"projects": {"%s": {"hasTrustDialogAccepted": true}}, "numStartups": 5}\n' "$T_DIR/proj" \
  >"$T_DIR/home/.claude.json"
printf '{"hasCompletedOnboarding": true, "bypassPermissionsModeAccepted": true, "projects": {"%s": {"hasTrustDialogAccepted": true}}}\n' \
  "$T_DIR/projd" >"$T_DIR/homed/.claude.json"
chown -R 65534:65534 "$T_DIR/home" "$T_DIR/proj" "$T_DIR/homed" "$T_DIR/projd" "$T_DIR/state"

# The user's shell in the pane, as uid 65534.
tm -f /dev/null new-session -d -s t -x 120 -y 40 \
  "env -i HOME=$T_DIR/home TERM=xterm-256color LANG=C.UTF-8 PATH=$USER_PATH XDG_STATE_HOME=$T_DIR/state PS1='$ ' \
   setpriv --reuid=65534 --regid=65534 --clear-groups bash --norc --noprofile -i"
tm set-option -t t remain-on-exit on >/dev/null
tm set-option -g status off >/dev/null
tm_wait '^\$ $' 20 >/dev/null
F='#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag} #{mouse_sgr_flag} #{insert_flag} #{wrap_flag} #{origin_flag}'
flags() { tm display-message -p -t t "$F"; }
n=0
# (unanchored: after claude dies, the line may hold what its screen had there)
# Before typing: discard input nobody has read yet (TCIFLUSH on the pane's terminal). claude asks
# the terminal questions as it draws (device attributes, version, colours); tmux's answers to a
# question asked just before the SIGKILL are left queued for the shell, whose readline takes an
# answer's ESC P / ESC ] as a command (M-p starts a history search) and then eats the typed line:
# a load-dependent timeout seen in the ASan suite. A user's terminal would show that junk too; it
# is not what this test looks at (the modes), and the flags are read only after the sync.
pending() { python3 -c 'import array, fcntl, os, sys, termios
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY); b = array.array("i", [0])
fcntl.ioctl(fd, termios.FIONREAD, b); print(b[0])
if sys.argv[2] == "flush": termios.tcflush(fd, termios.TCIFLUSH)' "$PANE_TTY" "${1:-}"; }
# Answers readline already read before the flush are worse: ESC P (a DCS answer) puts it in a
# history search that eats the typed line, an OSC answer's tail stays on the line (seen once in
# four runs, in the control part, claude run directly). So readline is reset first: C-g aborts
# whatever command an answer started, C-u empties the line (by hand in tmux: a DCS answer typed
# into bash, then `echo SYNC` runs only with C-g C-u in between).
sync() {
  n=$((n+1))
  local left; left=$(pending flush)
  [ "$left" -gt 0 ] && log "sync $n: discarded $left unread input bytes"
  tm send-keys -t t C-g C-u
  tm_run "echo SYNC$n"
  tm_wait "SYNC$n\$" 30 >/dev/null || tm_wait "^SYNC$n" 5 >/dev/null && return 0
  fail "sync $n: the shell did not run the typed line ($(pending) bytes unread; tty: $(stty -F "$PANE_TTY" -g))"
  finish; exit 1
}
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
group_gone() { ! ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'; }
welcome() { tm_wait 'bypass permissions on' 300 >/dev/null; }
# only_shell_reads: no process but the pane's shell holds the pane's terminal open. A helper claude
# started in its own session keeps a copy of the tty without job control over it, so after claude
# dies it can still read (eat) the keys typed for the shell until it exits.
PANE_TTY=$(tm display-message -p -t t '#{pane_tty}')
only_shell_reads() {
  local sh p f
  sh=$(tm_pane_pid)
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$sh" ] && continue
    for f in "$p"/fd/*; do
      [ "$(readlink "$f" 2>/dev/null)" = "$PANE_TTY" ] && return 1
    done
  done
  return 0
}
BEFORE=$(flags)
log "pane before: $BEFORE"

# --- control: claude directly ---------------------------------------------------------------
tm_run "cd $T_DIR/projd && HOME=$T_DIR/homed claude --dangerously-skip-permissions"
check "control: claude's welcome screen renders" welcome
DURING=$(flags)
log "pane with claude's TUI up: $DURING"
check "control: claude's TUI changes the pane's modes" test "$DURING" != "$BEFORE"
c=$(pgrep -P "$(tm_pane_pid)" | head -n1)
g=$(ps -o pgid= -p "$c" | tr -d ' ')
kill -KILL "$c"
wait_until gone "$c" || fail "control: claude did not die"
# Keys typed before the shell has the terminal back, or while a child claude left behind still
# runs in its process group, may never reach the shell: wait for both first.
wait_until group_gone "$g" || fail "control: claude's process group did not end"
tm_wait 'Killed' 30 >/dev/null || fail "control: the shell did not report claude killed"
wait_until only_shell_reads || fail "control: a process claude left behind still holds the pane's terminal"
tm send-keys -t t C-u
sync
LEFT=$(flags)
log "pane after claude was SIGKILLed: $LEFT"
check "control: SIGKILLed directly, claude leaves the pane changed" test "$LEFT" != "$BEFORE"
# Put the pane back by hand (the same reset the watchdog writes).
tm_run "printf '\\030\\033\\\\\\033[?2026l\\033[<64u\\033[?1049l\\033[<64u\\033[=0;1u\\033[>4;0m\\033[?1000l\\033[?1002l\\033[?1003l\\033[?1006l\\033[?1004l\\033[?2004l\\033[?1l\\033>\\033[?25h\\033[0m'; cd $T_DIR/proj"
sync
check_eq "pane reset by hand" "$BEFORE" "$(flags)"
# Claude draws on the main screen: clear it and the history so that its old screen cannot be
# mistaken for the next one.
tm_run "clear"
sync
tm clear-history -t t

# --- claude under blaude, SIGKILL of blaude -----------------------------------------------------
tm_run "$BLAUDE"
check "under blaude: claude's welcome screen renders" welcome
DURING_B=$(flags)
log "pane with claude's TUI up under blaude: $DURING_B"
check "under blaude: claude's TUI changes the pane's modes too" test "$DURING_B" != "$BEFORE"
bp=$(pgrep -P "$(tm_pane_pid)" | head -n1)
BLAUDE_EXE=$(readlink -f "$BLAUDE")
wd=""
for c in $(pgrep -P "$bp"); do
  [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$BLAUDE_EXE" ] && wd=$c
done
check "blaude has its watchdog" test -n "$wd"
kill -KILL "$bp"
wait_until gone "$bp" || fail "blaude did not die"
[ -n "$wd" ] && { wait_until gone "$wd" || fail "the watchdog did not finish"; }
wait_until only_shell_reads || fail "a process blaude left behind still holds the pane's terminal"
tm send-keys -t t C-u
sync
AFTER=$(flags)
log "pane after blaude was SIGKILLed: $AFTER"
check_eq "SIGKILL of blaude with claude's TUI up: the pane is as before blaude" "$BEFORE" "$AFTER"

finish
