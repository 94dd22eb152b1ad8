#!/usr/bin/env bash
# Job control with the real Claude Code (npm @anthropic-ai/claude-code) under blaude in its real
# bubblewrap sandbox, in tmux, as uid 65534: Ctrl-Z suspends claude ("Claude Code is suspended"),
# which stops itself inside the sandbox, and blaude stops with it: the pane's shell has the
# terminal back with its modes as before, `jobs` lists blaude; `fg` brings claude's screen back
# and keys reach it; after it exits, the modes are as before. The control that shows the checks
# can fail is test_pty_job_control's (a relay without job control keeps the terminal).
. "$(dirname "$0")/lib.sh"

need_sandbox
claude_tmp_cleanup_at_exit
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || missing "Claude Code (scripts/install-test-claude.sh failed)"
USER_PATH="$(dirname "$CLAUDE_BIN"):/usr/local/bin:/usr/bin:/bin"
mkdir -p "$T_DIR/home" "$T_DIR/proj" "$T_DIR/state"
# The welcome screen at once: the project trusted (blaude writes the onboarding flags itself).
printf '{"projects": {"%s": {"hasTrustDialogAccepted": true}}, "numStartups": 5}\n' "$T_DIR/proj" \
  >"$T_DIR/home/.claude.json"
chown -R 65534:65534 "$T_DIR/home" "$T_DIR/proj" "$T_DIR/state"
P="$T_DIR/proj"  # the pane's shell runs as uid 65534: its files go where it may write

tm -f /dev/null new-session -d -s t -x 120 -y 40 \
  "env -i HOME=$T_DIR/home TERM=xterm-256color LANG=C.UTF-8 PATH=$USER_PATH XDG_STATE_HOME=$T_DIR/state PS1='$ ' \
   setpriv --reuid=65534 --regid=65534 --clear-groups bash --norc --noprofile -i"
tm set-option -t t remain-on-exit on >/dev/null
tm set-option -g status off >/dev/null
tm_wait '^\$ $' 20 >/dev/null
tm_run "cd $P; stty -g > $P/stty.before; $BLAUDE; echo END-stop=\$?"
check "claude's welcome screen under blaude" tm_wait 'bypass permissions on' 300
# claude reads keys once a typed one shows in its prompt; then the line is emptied again.
tm_type "ready-check"
tm_wait 'ready-check' 60 >/dev/null || fail "claude does not show typed keys"
tm send-keys -t t C-u
tm send-keys -t t C-z
check "Ctrl-Z: claude suspends itself" tm_wait 'Claude Code is suspended' 60
check "... and blaude stops with it (SIGTSTP: the shell goes on, status 148)" tm_wait '^END-stop=148' 60
tm_run "stty -g > $P/stty.stopped; jobs > $P/jobs; echo JOBS-DONE"
check "the shell runs what is typed" tm_wait '^JOBS-DONE' 30
check "jobs lists blaude, stopped" grep -qE 'Stopped +.*blaude' "$P/jobs"
check "while stopped the terminal's modes are the shell's" cmp -s "$P/stty.before" "$P/stty.stopped"
tm_run "clear; fg; echo END-fg=\$?"
check "fg: claude's screen again" tm_wait 'bypass permissions on' 60
tm_type "typed-after-fg"
check "keys reach claude after fg" tm_wait 'typed-after-fg' 30
tm send-keys -t t C-u
tm send-keys -t t C-c
tm send-keys -t t C-c
check "claude exits on Ctrl-C Ctrl-C, and blaude with it" tm_wait '^END-fg=' 60
tm_run "stty -g > $P/stty.after; echo AFTER-DONE"
tm_wait '^AFTER-DONE' 30 >/dev/null || fail "the shell did not run stty after the end"
check "the terminal's modes after the end are as before" cmp -s "$P/stty.before" "$P/stty.after"
check "the log says blaude stopped with the command" \
  grep -q "stopped; stopping blaude with it" "$T_DIR/state/blaude/blaude.log"
finish
