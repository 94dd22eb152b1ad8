#!/usr/bin/env bash
# The exact bytes blaude writes to the terminal after the child's last byte, recorded by a pty
# harness that plays the terminal (ptyterm.py, raw: nothing is altered on the way): the undo of
# the kitty keyboard protocol, bracketed paste, pushed titles and set colours, then blaude's own
# close (the user's title popped, the reply fence's query), and nothing else; only the close when
# the child changed nothing; the user's title pushed before the child's first byte; the
# watchdog's fixed safe reset when blaude is SIGKILLed; and the OSC 52 read requests that never
# reach a terminal, with no clipboard tool on the host.
. "$(dirname "$0")/lib.sh"
PT="$BLAUDE_SRC/tests/integration/ptyterm.py"
export XDG_STATE_HOME="$T_DIR/state"
# No display: no clipboard tool can be used, so OSC 52 runs in pass-writes mode.
unset DISPLAY WAYLAND_DISPLAY

# after FILE MARKER: the bytes after the last MARKER in FILE, as \xNN escapes
after() { python3 - "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
m = sys.argv[2].encode()
i = data.rfind(m)
print("MISSING" if i < 0 else "".join("\\x%02x" % b for b in data[i + len(m):]))
PY
}
hex() { printf '%s' "$1" | python3 -c 'import sys; print("".join("\\x%02x" % b for b in sys.stdin.buffer.read()))'; }
run() { python3 "$PT" capture "$T_DIR/out" -- $BLAUDE --no-sandbox --exec sh -c "$1" >"$T_DIR/rc"; }
# What blaude writes after the undo on a terminal: the user's title back, the fence's query.
CLOSE=$'\e[23;0t\e[5n\e[c'

# 1. Keyboard protocol, bracketed paste, titles; the child exits normally.
KEYS='printf "\033[>1u\033[?2004h\033[22;0tLAST"'
run "$KEYS; exit 0"
check_eq "normal exit: exactly the undo after the child's last byte" \
  "$(hex $'\e[<1u\e[?2004l\e[23;0t'"$CLOSE")" "$(after "$T_DIR/out" LAST)"
check_eq "the user's title is pushed before the child's first byte" \
  "$(hex $'\e[22;0t\e[>1u')" "$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.find(b"\x1b[>1u"); print("".join("\\x%02x" % b for b in d[max(0,i-7):i+5]))' "$T_DIR/out")"
# Control: the same child alone on the harness's pty leaves it at that.
python3 "$PT" capture "$T_DIR/direct" -- sh -c "$KEYS; exit 0" >/dev/null
check_eq "control: the child alone writes nothing after its last byte" "" "$(after "$T_DIR/direct" LAST)"

# 2. The same child, SIGKILLed.
run "$KEYS; kill -9 \$\$"
check_eq "child SIGKILLed: the same undo" \
  "$(hex $'\e[<1u\e[?2004l\e[23;0t'"$CLOSE")" "$(after "$T_DIR/out" LAST)"
check_eq "... and blaude's status is 137" "137" "$(cat "$T_DIR/rc")"

# 3. Two pushes, one pop, on the alternate screen too; titles 1 and 2.
run 'printf "\033[>1u\033[?1049h\033[>5u\033[>7u\033[<u\033[22;1t\033[22;2t\033[23tLAST"'
check_eq "kitty stacks of both screens, titles popped in reverse" \
  "$(hex $'\e[<1u\e[?1049l\e[<1u\e[23;1t'"$CLOSE")" "$(after "$T_DIR/out" LAST)"

# 4. Nothing changed, or changed and set back: nothing after the child's last byte.
run 'printf "\033[>1u\033[?2004h\033[<u\033[?2004l\033[1mbold\033[mLAST"'
check_eq "nothing left changed: blaude's close alone" "$(hex "$CLOSE")" "$(after "$T_DIR/out" LAST)"

# 4b. Colours: the palette entry and the background the child set are reset, its queries not.
run 'printf "\033]4;1;#ff0000\007\033]11;?\007\033]11;rgb:0/0/0\033\\\\\033]10;?\007LAST"'
check_eq "the colours the child set, and only those, are reset" \
  "$(hex $'\e]104;1\e\\\e]111\e\\'"$CLOSE")" "$(after "$T_DIR/out" LAST)"

# 5. The child stops in the middle of a sequence: the firewall holds a sequence until it is
# whole, so the unfinished one never reaches the terminal; then the undo.
run 'printf "\033[?2004hLAST\033[?10"'
check_eq "stopped mid-sequence: the open sequence is dropped, then the undo" "$(hex $'\e[?2004l'"$CLOSE")" "$(after "$T_DIR/out" LAST)"

# 6. SIGKILL of blaude itself: the watchdog writes the fixed safe reset.
python3 "$PT" capture-kill "$T_DIR/out" LAST KILL -- $BLAUDE --no-sandbox --exec sh -c \
  'printf "\033[>1u\033[?2004hLAST"; exec sleep 30' >"$T_DIR/rc"
SAFE=$'\x18\e\\\e[?2026l\e[<64u\e[?1049l\e[<64u\e[=0;1u\e[>4;0m\e[?1000l\e[?1002l\e[?1003l\e[?9l\e[?1005l\e[?1006l\e[?1015l\e[?1016l\e[?1004l\e[?2004l\e[?1l\e>\e[?25h\e[0m\e[23;0t'
check_eq "SIGKILL of blaude: the watchdog's safe reset, and only it" "$(hex "$SAFE")" "$(after "$T_DIR/out" LAST)"
check_eq "... blaude died of SIGKILL" "137" "$(cat "$T_DIR/rc")"

# 7. OSC 52 with no clipboard tool: a write reaches the terminal as it came, a read never does.
run 'printf "A\033]52;c;aGk=\007B\033]52;c;?\007C\033]52;p;?\033\\\\DLAST"'
check_eq "no clipboard tool: the write passes byte for byte, both reads are removed" \
  "$(hex $'A\e]52;c;aGk=\aBCD')" "$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.find(b"A\x1b]52"); j=d.rfind(b"LAST"); print("".join("\\x%02x" % b for b in d[i:j]))' "$T_DIR/out")"
python3 "$PT" capture "$T_DIR/direct" -- sh -c 'printf "A\033]52;c;?\007LAST"' >/dev/null
check "control: the child alone does send the read request" grep -qaF $'\e]52;c;?' "$T_DIR/direct"
# A read request completed across a removed one: `ESC ] 5`, a removed read, `2;c;?` BEL. The
# opening, broken by the ESC, is dropped too: what is left is text.
run 'printf "A\033]5\033]52;c;?\0072;c;?\007BLAST"'
check_eq "a removed read does not join an opening to a read: the opening is dropped too" \
  "$(hex $'A2;c;?\aB')" "$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.find(b"A2;c;"); j=d.rfind(b"LAST"); print("".join("\\x%02x" % b for b in d[i:j]))' "$T_DIR/out")"

finish
