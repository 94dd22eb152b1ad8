#!/usr/bin/env bash
# The reply fence through the real blaude: what the terminal answers to the child's queries after
# the child is gone (late: held back under synchronized output as kitty does, or on a slow link)
# is never read by the user's shell, at the end of a session and while blaude is stopped by
# Ctrl-Z. The terminal and the shell are fenceterm.py; every case has a control (the child alone,
# or blaude with BLAUDE_TERM_GUARD=off) in which the shell does read the answers, so a fence that
# does nothing would be noticed. Then: a terminal that never answers costs the fence's bound and
# no more; and in tmux (a terminal that answers at once) the shell reads nothing either, and the
# user's title is back after blaude and while it is stopped (the child's again after fg).
. "$(dirname "$0")/lib.sh"
FT="$BLAUDE_SRC/tests/integration/fenceterm.py"
export XDG_STATE_HOME="$T_DIR/state"
unset DISPLAY WAYLAND_DISPLAY
B="$BLAUDE --no-sandbox --exec"
# field FILE KEY: one field of fenceterm.py's report
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }
CPR='\x1b\x5b\x37\x3b\x31\x33\x52'  # the cursor report the terminal answers, in fenceterm's hex

# The child's last words: a cursor position query and a DECRQSS with a vi command as its name
# (kitty types the name back), under synchronized output (kitty answers once it ends).
HELD='printf "\033[?2026h\033[6n\033P\$q:!touch pwned\r\033\\\\"'
PLAIN='printf "\033[6n\033P\$q:!touch pwned\r\033\\\\"'

# 1. Answers held until synchronized output ends (at most 0.4 s here).
python3 "$FT" --hold 0.4 "$T_DIR/c1" -- sh -c "$HELD"
check "control (the child alone): the shell reads the held answers" \
  grep -qF -- "$CPR" <(field "$T_DIR/c1" got)
BLAUDE_TERM_GUARD=off python3 "$FT" --hold 0.4 "$T_DIR/g1" -- $B sh -c "$HELD"
check "control (blaude, BLAUDE_TERM_GUARD=off): the shell reads them" \
  grep -qF -- "$CPR" <(field "$T_DIR/g1" got)
python3 "$FT" --hold 0.4 "$T_DIR/b1" -- $B sh -c "$HELD"
check_eq "blaude: the undo releases them, the fence takes them: the shell reads nothing" "" "$(field "$T_DIR/b1" got)"
check_eq "... and the child's exit code is blaude's" "0" "$(field "$T_DIR/b1" code)"

# 2. A slow link: every answer comes 0.25 s after its query.
python3 "$FT" --delay 0.25 "$T_DIR/c2" -- sh -c "$PLAIN"
check "control (the child alone, slow link): the shell reads the late answers" \
  grep -qF -- "$CPR" <(field "$T_DIR/c2" got)
python3 "$FT" --delay 0.25 "$T_DIR/b2" -- $B sh -c "$PLAIN"
check_eq "blaude on a slow link: the shell reads nothing" "" "$(field "$T_DIR/b2" got)"

# 3. The command stops (SIGSTOP: a session leader's SIGTSTP would be discarded) right after its
#    queries, under synchronized output; the shell reads the terminal while blaude is stopped.
STOP="$HELD"'; kill -STOP $$; printf "\033[?2026l"; echo back'
python3 "$FT" --job --hold 0.4 "$T_DIR/c3" -- sh -c "$STOP"
check_eq "control (the child alone): it stopped" "True" "$(field "$T_DIR/c3" stopped)"
check "control (the child alone): the shell reads the answers while it is stopped" \
  grep -qF -- "$CPR" <(field "$T_DIR/c3" got_stopped)
python3 "$FT" --job --hold 0.4 "$T_DIR/b3" -- $B sh -c "$STOP"
check_eq "blaude stopped with the command" "True" "$(field "$T_DIR/b3" stopped)"
check_eq "blaude stopped: the shell reads nothing" "" "$(field "$T_DIR/b3" got_stopped)"
check_eq "fg: the command ran to its end" "0" "$(field "$T_DIR/b3" code)"
check_eq "... and after it the shell reads nothing" "" "$(field "$T_DIR/b3" got)"

# 4. A terminal that never answers the fence: blaude waits out the bound (500 ms) and no more.
python3 "$FT" --mute-fence "$T_DIR/b4" -- $B true
check_eq "mute terminal: blaude still exits 0" "0" "$(field "$T_DIR/b4" code)"
waited=$(sed -n 's/.*no answer to the reply fence within \([0-9]*\) ms.*/\1/p' "$XDG_STATE_HOME/blaude/blaude.log" | tail -n1)
check "mute terminal: the fence waited its bound, 500 to 1000 ms (got ${waited:-none})" \
  test "${waited:-0}" -ge 500 -a "${waited:-99999}" -lt 1000
check "mute terminal: blaude took at least the bound" \
  python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 0.5 else 1)' "$(field "$T_DIR/b4" secs)"
# (From the log, not from the run's time: a sanitizer build's start-up varies by more.)
BLAUDE_LOG=debug XDG_STATE_HOME="$T_DIR/state5" python3 "$FT" "$T_DIR/b5" -- $B true
took=$(sed -n 's/.*reply fence answered after \([0-9]*\) ms.*/\1/p' "$T_DIR/state5/blaude/blaude.log" | tail -n1)
check "answering terminal: the fence ends once answered, well before the bound (got ${took:-none} ms)" \
  test "${took:-99999}" -lt 400

# 5. tmux as the terminal: it answers at once, itself. The pane's shell reads what arrives within
#    1 s of the command's end; the user's title is back after blaude (the child alone leaves its
#    own).
cat >"$T_DIR/after.sh" <<'SH'
#!/bin/bash
"$@"
IFS= read -rs -t 1 -n 40 x
printf 'GOT[%s]\n' "$(printf %s "$x" | od -An -tx1 | tr -d ' \n')"
SH
cat >"$T_DIR/child.sh" <<'SH'
#!/bin/sh
printf '\033]2;CHILDTITLE\033\\\033[6n'
SH
chmod +x "$T_DIR/after.sh" "$T_DIR/child.sh"
tm_start 100 30
tm_wait '^\$ $'
title() { tm display-message -p -t t '#{pane_title}'; }
tm_run "printf '\\033]2;USERTITLE\\033\\\\'; clear"
wait_until test "$(title)" = USERTITLE || true
check_eq "tmux: the user's title is set" "USERTITLE" "$(title)"
tm_run "$T_DIR/after.sh $T_DIR/child.sh; echo END-c"
tm_wait '^END-c$' 10 >/dev/null || fail "tmux control: did not end"
check "control (the child alone in tmux): the shell reads the cursor report" \
  grep -q 'GOT\[1b5b[0-9a-f]*52\]' <(tm_screen)
check_eq "control: the child's title stays" "CHILDTITLE" "$(title)"
tm_run "printf '\\033]2;USERTITLE\\033\\\\'; clear"
wait_until test "$(title)" = USERTITLE || true
tm_run "$T_DIR/after.sh $B $T_DIR/child.sh; echo END-b"
tm_wait '^END-b$' 10 >/dev/null || fail "tmux blaude: did not end"
# (Not anchored: an answer that came while blaude still ran went to the child's pty, which echoes
# it in cooked mode as a terminal would, on the line before GOT.)
check_eq "blaude in tmux: the shell reads nothing" "GOT[]" "$(tm_screen | grep -o 'GOT\[[0-9a-f]*\]' | tail -n1)"
check_eq "blaude in tmux: the user's title is back" "USERTITLE" "$(title)"

# 6. The title around a stop: the user's while blaude is stopped, the child's again after fg.
cat >"$T_DIR/stopper.sh" <<'SH'
#!/bin/sh
printf '\033]2;CHILDTITLE\033\\'
echo CHILD-RUNNING
kill -STOP $$
echo CHILD-BACK
sleep 2
SH
chmod +x "$T_DIR/stopper.sh"
tm_run "printf '\\033]2;USERTITLE\\033\\\\'; clear"
wait_until test "$(title)" = USERTITLE || true
tm_run "$T_DIR/stopper.sh; echo END-zc"
tm_wait 'Stopped' 10 >/dev/null || fail "control: the child did not stop"
check_eq "control (the child alone, stopped): its title stays" "CHILDTITLE" "$(title)"
tm_run "kill -9 %1; wait %1; echo GONE-zc"
tm_wait '^GONE-zc' 10 >/dev/null || fail "control: the stopped child did not go"
tm_run "printf '\\033]2;USERTITLE\\033\\\\'; clear"
wait_until test "$(title)" = USERTITLE || true
# (The shell goes on with its command line when blaude stops: END-z comes at the stop.)
tm_run "$B $T_DIR/stopper.sh; echo END-z"
tm_wait '^END-z$' 10 >/dev/null || fail "blaude did not stop with the child"
check_eq "blaude stopped: the user's title is back" "USERTITLE" "$(title)"
tm_run "fg; echo END-fg"
tm_wait '^CHILD-BACK' 10 >/dev/null || fail "fg: the child did not go on"
check_eq "fg: the child's title again" "CHILDTITLE" "$(title)"
tm_wait '^END-fg$' 10 >/dev/null || fail "fg: blaude did not end"
check_eq "after blaude: the user's title" "USERTITLE" "$(title)"

finish
