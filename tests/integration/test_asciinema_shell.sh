#!/bin/bash
# asciinema started from an interactive bash in tmux: stopping it would make bash report the job
# stopped and take the terminal, so blaude mutes it. The prompt must work afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asciinema_lib.sh"

tm_start 80 24
tm_wait '^\$ ' 20 || true
PROMPT_MODES=$(tty_modes)
tm_run "$(asciinema_cmd); echo ASC_RC=\$?"
drive_session mute
check "the log says why it did not pause" grep -q 'as a job in the same terminal session' "$(log_file)"
check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
check "bash never saw the job stop" sh -c "! tmux -L $T_SOCK capture-pane -t t -p -J -S -2000 | grep Stopped"
tm_run 'echo PROMPT_OK_$((6*7))'
check "the shell prompt works" tm_wait '^PROMPT_OK_42' 20
# Polled: bash switches modes around each command; at its idle prompt they must be as before.
check "the terminal's modes at the prompt are unchanged (stty -g)" \
  wait_until sh -c "[ \"\$(stty -g -F $(pane_tty))\" = '$PROMPT_MODES' ]"
check_cast
finish
