#!/bin/bash
# Controls: with --no-asciinema the recorder is left alone and the session IS recorded (so the
# other tests' "cast has none of the session" would notice a leak); with ASCIINEMA_REC=1 but no
# recorder around, blaude runs normally and logs why nothing was paused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asciinema_lib.sh"

tm_start 80 24 "$(printf 'bash -c %q' "$(asciinema_cmd --no-asciinema); echo ASC_RC=\$?; exec sleep 1000")"
drive_session none
check "the log says --no-asciinema" grep -q 'mode none: --no-asciinema' "$(log_file)"
check "asciinema exited normally" tm_wait 'ASC_RC=0' 20
check "cast has the session's output (control)" grep -q 'SESSION_START' "$CAST"
check "cast has the typed text (control)" grep -q "$TOKEN" "$CAST"

# --- a stray ASCIINEMA_REC=1 without a recorder ----------------------------------------------
next_server 2
rm -f "$(log_file)"
tm_start 80 24 "env ASCIINEMA_REC=1 $BLAUDE --debug --no-sandbox --exec $T_DIR/prog.sh"
check "the session starts" tm_wait 'SESSION_START 24 80' 30
# Read while blaude still runs: the log is written as it goes, not when blaude exits (it was
# buffered until exit once, and a check made after the child's last output lost that race).
check "the log says why nothing was paused (while the session runs)" \
  grep -q 'mode none: ASCIINEMA_REC=1 but no ancestor' "$(log_file)"
tm_type "$TOKEN"; tm_enter
check "typed text reaches the session" tm_wait "SESSION_GOT\\[$TOKEN\\]" 20
tm_resize 100 30
check "the session sees the new window size" tm_wait 'SESSION_SIZE 30 100' 40
tm_enter
check "the session ends" tm_wait 'SESSION_END' 20
check "the log still says why nothing was paused" grep -q 'mode none: ASCIINEMA_REC=1 but no ancestor' "$(log_file)"
finish
