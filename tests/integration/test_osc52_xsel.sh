#!/usr/bin/env bash
# The xsel backend: with xclip absent from PATH, blaude copies through the real xsel. Each
# selection is read back with xsel itself and, for CLIPBOARD, with xclip too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/osc52_lib.sh"

start_xvfb
tm_start 100 30
tm set-option -wg remain-on-exit on >/dev/null
E=$'\e'
mkdir -p "$T_DIR/bin"
ln -s "$(command -v xsel)" "$T_DIR/bin/xsel"
# Only xsel on PATH; the child is started by absolute path.
X=(DISPLAY="$X_DISPLAY" PATH="$T_DIR/bin")
run=(--no-sandbox --exec "$(command -v cat)")
xsel_get() { DISPLAY=$X_DISPLAY timeout 5 xsel "$1" --output 2>/dev/null; }
xsel_wait() {
  local i
  for ((i = 0; i < 100; i++)); do
    [ "$(xsel_get "$1")" = "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

printf 'A\e]52;c;%s\aB\nSTEP-DONE\n' "$(b64 'copied by xsel')" >"$T_DIR/c.in"
step c "${X[@]}" -- "${run[@]}" "$T_DIR/c.in"
check_eq "clipboard: exit status" 0 "$STEP_STATUS"
check "clipboard: the log names xsel as the tool" log_has "copies go to $T_DIR/bin/xsel"
check "clipboard: xsel --clipboard reads the text back" xsel_wait --clipboard 'copied by xsel'
check_eq "clipboard: xclip reads the same" 'copied by xsel' "$(clip_get clipboard)"
check "clipboard: the sequence did not reach the terminal" raw_lacks c "$E]52;"
check "clipboard: the text around it did" screen_has c AB

printf '\e]52;p;%s\e\\STEP-DONE\n' "$(b64 'primary by xsel')" >"$T_DIR/p.in"
step p "${X[@]}" -- "${run[@]}" "$T_DIR/p.in"
check "primary: xsel --primary reads the text back" xsel_wait --primary 'primary by xsel'
check_eq "primary: CLIPBOARD unchanged" 'copied by xsel' "$(xsel_get --clipboard)"

printf '\e]52;q;%s\aSTEP-DONE\n' "$(b64 'secondary by xsel')" >"$T_DIR/q.in"
step q "${X[@]}" -- "${run[@]}" "$T_DIR/q.in"
check "secondary: xsel --secondary reads the text back" xsel_wait --secondary 'secondary by xsel'

# A read request leaves every selection as it was and reaches nobody.
printf '\e]52;cp;?\aSTEP-DONE\n' >"$T_DIR/query.in"
step query "${X[@]}" -- "${run[@]}" "$T_DIR/query.in"
check "query: the request did not reach the terminal" raw_lacks query "$E]52;"
check_eq "query: CLIPBOARD unchanged" 'copied by xsel' "$(xsel_get --clipboard)"
check_eq "query: PRIMARY unchanged" 'primary by xsel' "$(xsel_get --primary)"

# Several selections in one request, and a burst: the last copy wins.
{
  printf '\e]52;cp;%s\a' "$(b64 'first')"
  printf '\e]52;cp;%s\a' "$(b64 'second')"
  printf '\e]52;cp;%s\aSTEP-DONE\n' "$(b64 'third and last')"
} >"$T_DIR/burst.in"
step burst "${X[@]}" -- "${run[@]}" "$T_DIR/burst.in"
check "burst: CLIPBOARD holds the last copy" xsel_wait --clipboard 'third and last'
check "burst: PRIMARY holds the last copy" xsel_wait --primary 'third and last'

finish
