#!/usr/bin/env bash
# The trust gate end to end through a real pty (tmux as the user's terminal): new, unchanged,
# shared by a worktree, changed + refused, stdin cannot answer, no terminal, --trust-policy,
# and an invalid policy naming file:line. Driven by the test-only tests/policy_gate_tool.
. "$(dirname "$0")/lib.sh"

TOOL="$BLAUDE_BUILD/tests/policy_gate_tool"
[ -x "$TOOL" ] || { echo "FAIL: $TOOL not built"; exit 1; }
command -v git >/dev/null || skip "git is not installed"

H="$T_DIR/home"
P="$H/proj"
mkdir -p "$H" "$P"
LEDGER="$H/.config/blaude/trusted"
git -C "$P" init -q
printf 'tool gh\nallow-read ~/.config/special\nallow-write ~/.cache/proj-build\nallow-write ./.git\n' >"$P/.blaude"
git -C "$P" add .blaude
git -C "$P" -c user.name=t -c user.email=t@t commit -qm init

tm_start 150 50
tm_run "export HOME='$H'; unset XDG_CONFIG_HOME; cd '$P'"
fresh() { tm_run clear; sleep 0.3; tm clear-history -t t; }
run_gate() { tm_run "$* ; echo RC=\$?"; }

# 1. New policy: asked on the terminal, grants by risk, "y" records trust in a 0600 ledger.
fresh
run_gate "'$TOOL' gate"
check "new policy asks" tm_wait 'apply this policy\? \[y/N\]' 30
screen=$(tm_screen)
check "prompt says new" grep -q "new project policy: $P/.blaude" <<<"$screen"
check "prompt lists the write grant" grep -Eq "write +$H/.cache/proj-build" <<<"$screen"
check "prompt notes the ignored in-project grant" grep -q "$P/.blaude:4: ./.git is inside the project" <<<"$screen"
check "prompt lists the toolchain read" grep -Eq "read +$H/.config/gh +\(tool gh" <<<"$screen"
check "write listed before reads (by risk)" \
  bash -c "grep -n 'write ' <<<\"\$1\" | head -1 | cut -d: -f1 | { read w; r=\$(grep -n 'read  ' <<<\"\$1\" | head -1 | cut -d: -f1); [ \$w -lt \$r ]; }" _ "$screen"
check "nothing ran before the answer" bash -c "! grep -q 'GATE-PROCEED' <<<\"\$1\"" _ "$screen"
tm_run y
check "yes proceeds" tm_wait 'GATE-PROCEED' 30
check "exit 0 after yes" tm_wait 'RC=0' 10
check "ledger exists" test -f "$LEDGER"
check_eq "ledger mode" 600 "$(stat -c %a "$LEDGER")"
check "ledger keyed by git common dir" grep -q "\"repo:$P/.git\"" "$LEDGER"

# 2. Unchanged: no question.
fresh
run_gate "'$TOOL' gate"
check "unchanged proceeds" tm_wait 'RC=0' 30
check "unchanged does not ask" bash -c "! grep -q 'apply this policy' <<<\"\$(tmux -L '$T_SOCK' capture-pane -t t -p -J -S -200)\""

# 3. A linked worktree of the same repository shares the trust.
git -C "$P" worktree add -q "$H/wt" 2>/dev/null
check "worktree created (a .git file, not a dir)" test -f "$H/wt/.git"
fresh
tm_run "cd '$H/wt'"
run_gate "'$TOOL' gate"
check "worktree proceeds" tm_wait 'RC=0' 30
check "worktree does not ask" bash -c "! grep -q 'apply this policy' <<<\"\$(tmux -L '$T_SOCK' capture-pane -t t -p -J -S -200)\""
tm_run "cd '$P'"

# 4. Changed: asked again with a diff; "n" refuses, exit 1, ledger untouched.
printf 'allow-exec ~/tools/mybin\n' >>"$P/.blaude"
before=$(sha256sum "$LEDGER")
fresh
run_gate "'$TOOL' gate"
check "changed policy asks" tm_wait 'apply this policy\? \[y/N\]' 30
screen=$(tm_screen)
check "prompt says changed" grep -q "project policy changed" <<<"$screen"
check "diff shows the added exec" grep -Eq "\+ exec +$H/tools/mybin" <<<"$screen"
check "diff shows nothing removed" bash -c "! grep -Eq '^ +- ' <<<\"\$1\"" _ "$screen"
tm_run n
check "no refuses" tm_wait 'GATE-DECLINED' 30
check "exit 1 after no" tm_wait 'RC=1' 10
check_eq "ledger unchanged after no" "$before" "$(sha256sum "$LEDGER")"

# 5. stdin cannot answer: a pipe full of "y" is ignored, the question waits for the terminal.
fresh
run_gate "yes | '$TOOL' gate"
check "piped stdin: still asks" tm_wait 'apply this policy\? \[y/N\]' 30
sleep 1
check "piped stdin did not answer" bash -c "! grep -q 'GATE-' <<<\"\$(tmux -L '$T_SOCK' capture-pane -t t -p -J -S -200)\""
tm_run n
check "terminal answer counts" tm_wait 'GATE-DECLINED' 30
# Control: the same pipe does answer a reader of stdin, so the check above can fail.
check "control: a stdin reader takes the piped y" bash -c "yes | head -1 | grep -qx y"

# 6. No controlling terminal: refuse with a hint; --trust-policy applies for this run only.
out=$(cd "$P" && HOME="$H" setsid -w "$TOOL" gate </dev/null 2>&1) && rc=0 || rc=$?
check_eq "no tty: exit 1" 1 "$rc"
check "no tty: says why" grep -q "no terminal to ask on" <<<"$out"
check "no tty: hints --trust-policy" grep -q -- "--trust-policy" <<<"$out"
out=$(cd "$P" && HOME="$H" setsid -w "$TOOL" gate --trust-policy </dev/null 2>&1) && rc=0 || rc=$?
check_eq "--trust-policy: exit 0" 0 "$rc"
check "--trust-policy: says this run only" grep -q "for this run only" <<<"$out"
check_eq "--trust-policy does not record trust" "$before" "$(sha256sum "$LEDGER")"
out=$(cd "$P" && HOME="$H" "$TOOL" print 2>&1)
check "print: not trusted yet" grep -q "(not trusted yet)" <<<"$out"
check "print: lists the exec grant" grep -Eq "exec +$H/tools/mybin" <<<"$out"

# 7. Invalid policy: file:line: why, nothing asked, exit 1.
printf 'allow-write /\n' >>"$P/.blaude"
out=$(cd "$P" && HOME="$H" "$TOOL" gate --trust-policy 2>&1) && rc=0 || rc=$?
check_eq "invalid: exit 1" 1 "$rc"
check "invalid: names file:line" grep -q "$P/.blaude:6: / would grant the whole file system" <<<"$out"

finish
