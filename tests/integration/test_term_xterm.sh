#!/usr/bin/env bash
# The terminal firewall against a real terminal: xterm (under an Xvfb of the test's own) answers
# the rectangle checksum request DECRQCRA with a checksum of what its screen shows, so that a
# program can read the screen a character at a time. A child prints a line, asks, and reads what
# comes back for 2 s (raw, no echo). Control: run directly in xterm (and through the build's
# blaude with the request judged, a device-attributes query that must still be answered, so
# that "no answer" means the request was dropped, not that the terminal went quiet).
. "$(dirname "$0")/lib.sh"
for t in Xvfb xterm python3; do command -v "$t" >/dev/null || missing "$t is not installed"; done
export XDG_STATE_HOME="$T_DIR/state"
LOG="$T_DIR/state/blaude/blaude.log"

Xvfb -displayfd 5 -nolisten tcp -screen 0 640x480x24 5>"$T_DIR/xdisplay" >/dev/null 2>&1 &
XVFB_PID=$!
at_exit "kill $XVFB_PID"
wait_until test -s "$T_DIR/xdisplay" || { echo "FAIL: Xvfb did not start"; exit 1; }
export DISPLAY=":$(head -n1 "$T_DIR/xdisplay")"

cat >"$T_DIR/ask.py" <<'PY'
import os, select, sys, termios, tty
out, query = sys.argv[1], sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"SECRET-ON-SCREEN\r\n" + query)
got = b""
while select.select([0], [], [], 2)[0]:
    got += os.read(0, 256)
termios.tcsetattr(0, termios.TCSADRAIN, old)
open(out, "w").write(got.hex())
PY
# in_xterm OUT QUERY [blaude]: the answer xterm sent back to the child, in hex
in_xterm() {
  rm -f "$T_DIR/$1"
  if [ "${3:-}" = blaude ]; then
    timeout 60 xterm -e "$BLAUDE" --no-sandbox --exec python3 "$T_DIR/ask.py" "$T_DIR/$1" "$2" 2>/dev/null
  else
    timeout 60 xterm -e python3 "$T_DIR/ask.py" "$T_DIR/$1" "$2" 2>/dev/null
  fi
  cat "$T_DIR/$1" 2>/dev/null || echo MISSING
}
DECRQCRA='\x1b[1;1;1;1;2;80*y'
DA1='\x1b[c'
# DECRQCRA's answer: DCS Pid ! ~ checksum ST (1b50 31 217e ... 1b5c)
check "control: directly, xterm answers DECRQCRA with a checksum of the screen" \
  grep -qE '^1b5031217e[0-9a-f]{8}1b5c$' <<<"$(in_xterm direct.hex "$DECRQCRA")"
check_eq "under blaude: no answer to DECRQCRA (the request never reached xterm)" "" \
  "$(in_xterm blaude.hex "$DECRQCRA" blaude)"
check "under blaude: xterm still answers what passes (DA1)" \
  grep -qE '^1b5b3f[0-9a-f;3b]*63$' <<<"$(in_xterm da.hex "$DA1" blaude)"
check "the log names the drop" grep -q "terminal firewall: dropped DECRQCRA" "$LOG"

finish
