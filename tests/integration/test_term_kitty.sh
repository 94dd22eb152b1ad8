#!/usr/bin/env bash
# The reply fence on a real kitty under Xvfb: kitty answers nothing while synchronized output is
# on, and then echoes the text of a DECRQSS it does not know. A child that asks for the cursor
# position and for such a DECRQSS under synchronized output, and exits: without blaude (and with
# blaude's guard off) the answers reach the program that reads the terminal next, the shell; with
# blaude they never do. The shell is fenceterm.py's shell side, reading for 4 s after the command
# (longer than kitty holds answers when nothing ends synchronized output).
. "$(dirname "$0")/lib.sh"
for t in Xvfb kitty; do command -v "$t" >/dev/null || missing "$t is not installed"; done
FT="$BLAUDE_SRC/tests/integration/fenceterm.py"
unset WAYLAND_DISPLAY
# wait_secs N CMD...: polls CMD for up to N seconds
wait_secs() { local n=$1 i; shift; for ((i = 0; i < n * 10; i++)); do "$@" && return 0; sleep 0.1; done; return 1; }

Xvfb -displayfd 5 -nolisten tcp -screen 0 1024x768x24 5>"$T_DIR/xdisplay" >/dev/null 2>&1 &
at_exit "kill $!"
wait_secs 30 test -s "$T_DIR/xdisplay" || { fail "Xvfb did not start"; finish; }
X=":$(head -n1 "$T_DIR/xdisplay")"

# The child's last words; kitty types back the DECRQSS text (a vi-mode shell would take it as
# commands: ESC, then P, 0, $, r and the text).
ASK='printf "\033[?2026h\033[6n\033P\$q:xcctouch pwned\033\\\\"'
# in_kitty NAME ENV... -- CMD...: CMD in its own kitty, the shell side reporting to $T_DIR/NAME
in_kitty() {
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env DISPLAY="$X" FENCETERM_LISTEN=4 XDG_STATE_HOME="$T_DIR/state-$name" "${envs[@]}" \
    timeout 90 kitty --config NONE -o allow_remote_control=no --title "$name" \
    python3 "$FT" shell "$T_DIR/$name" 0 -- "$@" >"$T_DIR/kitty-$name.log" 2>&1 &
}
in_kitty direct -- sh -c "$ASK"
in_kitty guardoff BLAUDE_TERM_GUARD=off -- $BLAUDE --no-sandbox --exec sh -c "$ASK"
in_kitty blaude BLAUDE_LOG=debug -- $BLAUDE --no-sandbox --exec sh -c "$ASK"
for n in direct guardoff blaude; do
  wait_secs 60 test -s "$T_DIR/$n" || fail "$n: kitty's shell did not report (log: $(head -c 300 "$T_DIR/kitty-$n.log"))"
done
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }
# kitty's cursor report, \x1b[<row>;<col>R, in fenceterm's hex
cpr() { grep -Eq '\\x1b\\x5b(\\x3[0-9])+\\x3b(\\x3[0-9])+\\x52' <<<"$1"; }
got=$(field "$T_DIR/direct" got)
check "control (the child alone in kitty): the shell reads the cursor report" cpr "$got"
check "control (the child alone in kitty): ... and kitty's echo of the DECRQSS text" \
  grep -qF '\x1b\x50\x30\x24\x72\x3a\x78\x63\x63' <<<"$got"
check "control (blaude, BLAUDE_TERM_GUARD=off): the shell reads the cursor report" \
  cpr "$(field "$T_DIR/guardoff" got)"
check_eq "blaude: the shell reads nothing" "" "$(field "$T_DIR/blaude" got)"
check_eq "blaude: the child's exit code" "0" "$(field "$T_DIR/blaude" code)"
check "blaude: the fence was answered" grep -q "reply fence answered" "$T_DIR/state-blaude/blaude/blaude.log"

finish
