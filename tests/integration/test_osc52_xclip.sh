#!/usr/bin/env bash
# OSC 52 interception end to end: a child under blaude prints OSC 52, the real xclip sets the
# selection of a real Xvfb, and what reaches the terminal (tmux) is checked byte for byte.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/osc52_lib.sh"

start_xvfb
tm_start 100 30
tm set-option -wg remain-on-exit on >/dev/null
E=$'\e'
X=(DISPLAY="$X_DISPLAY")
run=(--no-sandbox --exec cat)

# 1. BEL-terminated, Pc c: copied, removed from the output, the text around it intact.
printf 'A\e]52;c;%s\aB\nSTEP-DONE\n' "$(b64 'hello world')" >"$T_DIR/basic.in"
step basic "${X[@]}" -- "${run[@]}" "$T_DIR/basic.in"
check_eq "basic: exit status" 0 "$STEP_STATUS"
check "basic: CLIPBOARD holds the text (xclip -o)" clip_wait clipboard 'hello world'
check "basic: the sequence did not reach the terminal" raw_lacks basic "$E]52;"
check "basic: the text around it did, joined" screen_has basic AB

# 2. ST-terminated, Pc p: PRIMARY only.
printf '\e]52;p;%s\e\\STEP-DONE\n' "$(b64 'to primary')" >"$T_DIR/primary.in"
step primary "${X[@]}" -- "${run[@]}" "$T_DIR/primary.in"
check "primary: PRIMARY holds the text" clip_wait primary 'to primary'
check_eq "primary: CLIPBOARD unchanged" 'hello world' "$(clip_get clipboard)"
check "primary: nothing reached the terminal" raw_lacks primary "$E]52;"

# 3. UTF-8 text survives exactly.
utf='héllo ✓ 日本語 — ok'
printf '\e]52;c;%s\aSTEP-DONE\n' "$(b64 "$utf")" >"$T_DIR/utf8.in"
step utf8 "${X[@]}" -- "${run[@]}" "$T_DIR/utf8.in"
check "utf8: CLIPBOARD holds the UTF-8 text" clip_wait clipboard "$utf"

# 4. One sequence in two writes with a pause between (two reads for blaude).
whole=$(b64 'split across two writes')
cat >"$T_DIR/split.sh" <<SH
printf 'A\033]52;c;%s' '${whole:0:9}'
sleep 0.7
printf '%s\007B\nSTEP-DONE\n' '${whole:9}'
SH
step split "${X[@]}" -- --no-sandbox --exec sh "$T_DIR/split.sh"
check "split: CLIPBOARD holds the whole text" clip_wait clipboard 'split across two writes'
check "split: no part of the sequence reached the terminal" raw_lacks split "$E]52;"
check "split: the text around it did" screen_has split AB

# 4b. Only the opening `ESC ] 5` in the first write, the rest 200 ms later: the
# prefix is held until the next byte, however long that takes, so the sequence is still copied.
cat >"$T_DIR/late.sh" <<SH
printf 'A\033]5'
sleep 0.2
printf '2;c;%s\007B\nSTEP-DONE\n' '$(b64 'prefix held 200 ms')'
SH
step late "${X[@]}" -- --no-sandbox --exec sh "$T_DIR/late.sh"
check "late: CLIPBOARD holds the text" clip_wait clipboard 'prefix held 200 ms'
check "late: no part of the sequence reached the terminal" raw_lacks late "$E]5"
check "late: the text around it did" screen_has late AB

# 5. Tmux passthrough wrapping (what Claude Code prints when TMUX is set).
printf '\ePtmux;\e\e]52;c;%s\a\e\\STEP-DONE\n' "$(b64 'via tmux wrap')" >"$T_DIR/wrap.in"
step wrap "${X[@]}" -- "${run[@]}" "$T_DIR/wrap.in"
check "wrap: CLIPBOARD holds the unwrapped text" clip_wait clipboard 'via tmux wrap'
check "wrap: the DCS did not reach the terminal" raw_lacks wrap "tmux;"

# 6. Other escapes pass through byte for byte.
others=$'\e]0;my title\a\e]8;;http://x/\e\\link\e]8;;\e\\\e[1;31mred\e[0m\ePq#0\e\\'
printf '%s\nSTEP-DONE\n' "$others" >"$T_DIR/others.in"
step others "${X[@]}" -- "${run[@]}" "$T_DIR/others.in"
check "others: title, OSC 8, CSI and DCS reach the terminal unchanged" raw_has others "$others"

# 7. Read request: never answered, never reaches the terminal, clipboard untouched. (The
# reader uses timeout --foreground: a background process group would be stopped by SIGTTIN.)
clip_set clipboard sentinel-query
cat >"$T_DIR/query.sh" <<'SH'
stty raw -echo
printf '\033]52;c;?\007waiting\r\n'
r=$(timeout --foreground 3 dd bs=1 count=64 2>/dev/null | od -An -tx1 | tr -d ' \n')
printf 'reply[%s]\r\nSTEP-DONE\r\n' "$r"
SH
step query "${X[@]}" -- --no-sandbox --exec sh "$T_DIR/query.sh"
check "query: no reply reached the child" screen_has query 'reply[]'
check "query: the request did not reach the terminal" raw_lacks query "$E]52;"
check_eq "query: CLIPBOARD unchanged" sentinel-query "$(clip_get clipboard)"
check "query: the log says it was refused" log_has "read request refused"
# Control: a reply, had there been one, would have been seen by the child.
step_start query_ctl "${X[@]}" -- --no-sandbox --exec sh "$T_DIR/query.sh"
wait_secs 20 screen_has query_ctl waiting || true
tm send-keys -t t:query_ctl -l XY
step_end query_ctl
check "query control: bytes typed during the wait are seen (reply[5859])" screen_has query_ctl 'reply[5859]'

# 8. Paste-jacking: an ESC in the copied text would end bracketed paste in a shell.
clip_set clipboard sentinel-pj
printf '\e]52;c;%s\aSTEP-DONE\n' "$(b64 $'echo safe\e[201~\necho PWNED\n')" >"$T_DIR/pj.in"
step pj "${X[@]}" -- "${run[@]}" "$T_DIR/pj.in"
check "pastejack: the text was copied without its ESC" clip_wait clipboard $'echo safe[201~\necho PWNED'
check "pastejack: no ESC in the clipboard" eval '! has_esc "$(clip_get clipboard)"'
check "pastejack: the log says control characters were removed" log_has "control character"
# Control: the ESC check does notice an ESC when the clipboard holds one.
clip_set clipboard $'echo safe\e[201~'
check "pastejack control: an ESC in the clipboard is detected" has_esc "$(clip_get clipboard)"

# 9. Invalid base64: nothing copied, nothing shown, logged.
clip_set clipboard sentinel-b64
printf 'C\e]52;c;@@not*base64@@\aD\nSTEP-DONE\n' >"$T_DIR/bad.in"
step bad "${X[@]}" -- "${run[@]}" "$T_DIR/bad.in"
check_eq "bad base64: CLIPBOARD unchanged" sentinel-b64 "$(clip_get clipboard)"
check "bad base64: the sequence did not reach the terminal" raw_lacks bad "$E]52;"
check "bad base64: the text around it did" screen_has bad CD
check "bad base64: logged" log_has "invalid base64"

# 10. A 2 MiB payload: not copied and not dumped on screen.
{
  printf 'H\e]52;c;'
  head -c 1572864 /dev/zero | tr '\0' x | base64 -w0
  printf '\aI\nSTEP-DONE\n'
} >"$T_DIR/huge.in"
step huge "${X[@]}" -- "${run[@]}" "$T_DIR/huge.in"
raw_size=$(stat -c %s "$T_DIR/huge.raw")
check "huge: CLIPBOARD unchanged" test "$(clip_get clipboard)" = sentinel-b64
check "huge: under 64 KiB reached the terminal (got $raw_size bytes)" test "$raw_size" -lt 65536
check "huge: the text around it did" screen_has huge HI
check "huge: logged as over the cap" log_has "over the size cap"
# With interception off too: the terminal firewall bounds every sequence (1 MiB), so the same
# input is dropped there as well, not passed to the terminal.
step huge_off "${X[@]}" -- --no-clipboard "${run[@]}" "$T_DIR/huge.in"
raw_size=$(stat -c %s "$T_DIR/huge_off.raw")
check "huge, --no-clipboard: under 64 KiB reached the terminal (got $raw_size bytes)" test "$raw_size" -lt 65536
# Control: the same 2 MiB as text (its ESC taken out) does reach the terminal: what kept the
# sequence's bytes out was the sequence, not their size.
tr -d '\033' <"$T_DIR/huge.in" >"$T_DIR/huge_text.in"
step huge_ctl "${X[@]}" -- --no-clipboard "${run[@]}" "$T_DIR/huge_text.in"
raw_size=$(stat -c %s "$T_DIR/huge_ctl.raw")
check "huge control: the same bytes as text reach the terminal ($raw_size bytes)" \
  test "$raw_size" -gt 2000000

# 11. Interception off: --no-clipboard, OSC52_NO_CLIPBOARD=1, no DISPLAY. The sequence reaches
# the terminal unchanged (for the user's own terminal to act on), the clipboard is untouched.
seq=$'\e]52;c;'"$(b64 'must not be copied')"$'\a'
printf 'A%sB\nSTEP-DONE\n' "$seq" >"$T_DIR/off.in"
step flag_off "${X[@]}" -- --no-clipboard "${run[@]}" "$T_DIR/off.in"
check "--no-clipboard: the sequence passes unchanged" raw_has flag_off "A${seq}B"
step env_off "${X[@]}" OSC52_NO_CLIPBOARD=1 -- "${run[@]}" "$T_DIR/off.in"
check "OSC52_NO_CLIPBOARD=1: the sequence passes unchanged" raw_has env_off "A${seq}B"
step no_display -u DISPLAY -- "${run[@]}" "$T_DIR/off.in"
check "no DISPLAY: the sequence passes unchanged" raw_has no_display "A${seq}B"
check "no DISPLAY: no message on the terminal about a missing tool" \
  eval '! screen_of no_display | grep -qi clipboard'
check_eq "interception off: CLIPBOARD unchanged" sentinel-b64 "$(clip_get clipboard)"

# 12. Interception off, read requests: they never reach the terminal, whatever the backend
# (tmux with set-clipboard on answers them with its paste buffer, the user's copies).
tm set-option -g set-clipboard on
tm set-buffer "paste-buffer-secret"
step q_nodisplay -u DISPLAY -- --no-sandbox --exec sh "$T_DIR/query.sh"
check "no DISPLAY: no reply reached the child" screen_has q_nodisplay 'reply[]'
check "no DISPLAY: the read request did not reach the terminal" raw_lacks q_nodisplay "$E]52;"
step q_flag "${X[@]}" -- --no-clipboard --no-sandbox --exec sh "$T_DIR/query.sh"
check "--no-clipboard: no reply reached the child" screen_has q_flag 'reply[]'
check "--no-clipboard: the read request did not reach the terminal" raw_lacks q_flag "$E]52;"
# Control: the same child run directly: tmux answers ("ESC ] 52 ;" + the buffer in base64).
: >"$T_DIR/q_direct.raw"
# (it starts on Enter, once the pane's output goes to the file, as step_start does)
tm new-window -d -n q_direct "read -r go; sh $T_DIR/query.sh; sleep 60"
tm pipe-pane -t t:q_direct -o "cat >> $T_DIR/q_direct.raw"
tm send-keys -t t:q_direct Enter
wait_secs 20 screen_has q_direct 'STEP-DONE' || true
check "control: run directly, the request reaches tmux" raw_has q_direct "$E]52;c;?"
check "control: ... and tmux's answer reaches the child" screen_has q_direct 'reply[1b5d3532'
tm set-option -g set-clipboard external

finish
