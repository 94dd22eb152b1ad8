#!/usr/bin/env bash
# The terminal firewall through the real blaude, on a pty harness that plays the terminal
# (ptyterm.py, raw: the bytes arrive exactly as written). The child prints sequences the table
# drops (DECRQCRA, the title report, kitty's remote control, iTerm2's OSC 1337, OSC 50, OSC 7,
# a file: link, ENQ, an 8-bit CSI, kitty's remote control inside tmux's passthrough) between
# markers, and the sequences Claude Code relies on: the terminal must get the markers and those
# unchanged and nothing of the dropped ones. Control: the same printf on the harness without
# blaude delivers every dropped sequence, byte for byte. The log names each drop (escaped), and
# --debug prints the count when the session ends.
. "$(dirname "$0")/lib.sh"
PT="$BLAUDE_SRC/tests/integration/ptyterm.py"
export XDG_STATE_HOME="$T_DIR/state"
LOG="$T_DIR/state/blaude/blaude.log"
unset DISPLAY WAYLAND_DISPLAY

hex() { python3 -c 'import sys; print("".join("\\x%02x" % b for b in sys.stdin.buffer.read()))'; }
# between FILE: the bytes from the first BEGIN to the last END, as \xNN escapes
between() { python3 - "$1" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
i, j = d.find(b"BEGIN"), d.rfind(b"END")
print("MISSING" if i < 0 or j < 0 else "".join("\\x%02x" % b for b in d[i:j + 3]))
PY
}

# printf formats (octal escapes, as dash's printf takes them).
DROP='A\033[1;1;1;1;20;80*yB\033[21tC\033P@kitty-cmd{"cmd":"launch","args":["xterm"]}\033\\D'
DROP="$DROP"'\033]1337;File=name=eA==;inline=0:QUFBQQ==\007E\033]50;?\007F\033]7;file://h/tmp\007G'
DROP="$DROP"'\033]8;;file:///etc/passwd\033\\link\033]8;;\033\\H\005I\2331;31mJ'
DROP="$DROP"'\033Ptmux;\033\033P@kitty-cmd{}\033\033\\\033\\K'
KEEP='\033[>1u\033[<u\033[?u\033[=1;1u\033[?2026h\033[?2026l\033]0;\342\234\263 Claude\007'
KEEP="$KEEP"'\033]8;;https://example.com\033\\site\033]8;;\033\\\033]9;4;1;50\007\033[38;2;1;2;3mC\033[0m'
KEEP="$KEEP"'\033[2 q\342\235\257 \342\224\200\342\224\200 \360\237\230\200'
# The markers are spelled with an octal escape: --debug prints the command line before it runs.
PRINT="printf 'B\\105GIN$DROP$KEEP'; printf 'E\\116D'"

python3 "$PT" capture "$T_DIR/out" -- $BLAUDE --debug --no-sandbox --exec sh -c "$PRINT" >"$T_DIR/rc"
check_eq "blaude ran the child" "0" "$(cat "$T_DIR/rc")"
# The closing `OSC 8 ;;` of the dropped file: link stays (it ends no link: harmless).
WANT=$(printf "BEGINABCDEFG""link\033]8;;\033\\\\HIJK$KEEP""END" | hex)
check_eq "under blaude: the dropped sequences are gone, the text and Claude Code's sequences intact" \
  "$WANT" "$(between "$T_DIR/out")"

# Control: without blaude the terminal gets every one of them.
python3 "$PT" capture "$T_DIR/direct" -- sh -c "$PRINT" >/dev/null
for s in $'\e[1;1;1;1;20;80*y' $'\e[21t' $'\eP@kitty-cmd{"cmd":"launch"' $'\e]1337;File=' $'\e]50;?' \
         $'\e]7;file:' $'\e]8;;file:///etc/passwd' $'\x05' $'\x9b1;31m' $'\ePtmux;\e\eP@kitty-cmd'; do
  check "control: the child alone sends $(printf '%q' "$s")" grep -qaF -- "$s" "$T_DIR/direct"
  check "under blaude: $(printf '%q' "$s") never reaches the terminal" not grep -qaF -- "$s" "$T_DIR/out"
done
check_eq "control: the child alone sends exactly what it printed" \
  "$(printf "BEGIN$DROP$KEEP""END" | hex)" "$(between "$T_DIR/direct")"

check "the log names the DECRQCRA drop" grep -q "terminal firewall: dropped DECRQCRA" "$LOG"
check "the log names kitty's remote control" grep -q "dropped kitty remote control" "$LOG"
check "the log shows the dropped bytes escaped, never raw" grep -qF 'dropped kitty remote control: \eP@kitty-cmd' "$LOG"
check "the log holds no raw ESC" not grep -qaF $'\e' "$LOG"
check "the log gives the total at the end" grep -q "terminal firewall: 10 sequence(s) dropped" "$LOG"
check "--debug prints the count when the session ends" \
  grep -qa "the terminal firewall dropped 10 escape sequence(s)" "$T_DIR/out"

finish
