#!/usr/bin/env bash
# The trust gate end to end through the real blaude as uid 65534, with tmux as the user's
# terminal (the question is asked on /dev/tty, the pane's pty): new, unchanged, shared by a
# worktree, changed + refused, stdin cannot answer, no terminal, --trust-policy, --print-policy,
# and an invalid policy naming file:line. What runs after the gate is a real sandbox that reads
# a file only the policy's allow-read grant makes visible (HOME is a tmpfs inside), so "proceeds"
# means "proceeds with the policy applied", and a refusal shows by that file's content not
# appearing.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || missing "git is not installed"
need_sandbox

H="$T_DIR/home"
P="$H/proj"
mkdir -p "$H/.config/special" "$P"
LEDGER="$H/.config/blaude/trusted"
echo "GRANT-READ-OK" >"$H/.config/special/cfg"
git -C "$P" init -q
printf 'tool gh\nallow-read ~/.config/special\nallow-write ~/.cache/proj-build\nallow-write ./.git\n' >"$P/.blaude"
git -C "$P" add .blaude
git -C "$P" -c user.name=t -c user.email=t@t commit -qm init
chown -R 65534:65534 "$H"
# The sandboxed command: prints the granted file (the marker is in no typed command line).
READ="cat $H/.config/special/cfg"

# B, in the user's shell: the real blaude as uid 65534 with a clean environment.
B_DEF="B() { env -i HOME='$H' PATH=/usr/bin:/bin TERM=xterm setpriv --reuid=65534 --regid=65534 --clear-groups '$BLAUDE' \"\$@\"; }"
tm_start 150 50
tm_run "$B_DEF; cd '$P'"
# A clean screen and history before each case: wait until the shell has run `clear` (its marker
# shows) before dropping the history, so no earlier case's output can be scrolled back in later.
FRESH_N=0
fresh() {
  FRESH_N=$((FRESH_N + 1))
  tm_run "clear; echo FRESH-\$((${FRESH_N} * 7))"
  tm_wait "^FRESH-$((FRESH_N * 7))\$" 30 >/dev/null
  tm clear-history -t t
}
run_gate() { tm_run "$* ; echo RC=\$?"; }
ran() { tm_screen | grep -q '^GRANT-READ-OK'; }

# 1. New policy: asked on the terminal, grants by risk, "y" records trust in a 0600 ledger.
fresh
run_gate "B --exec $READ"
check "new policy asks" tm_wait 'apply this policy\? \[y/N\]' 30
screen=$(tm_screen)
check "prompt says new" grep -q "new project policy: $P/.blaude" <<<"$screen"
check "prompt shows the file's own text" grep -q '^  | allow-write ./.git$' <<<"$screen"
check "prompt lists the write grant" grep -Eq "write +$H/.cache/proj-build" <<<"$screen"
check "prompt notes the ignored in-project grant" grep -q "$P/.blaude:4: ./.git is inside the project" <<<"$screen"
check "prompt lists the toolchain read" grep -Eq "read +$H/.config/gh +\(tool gh" <<<"$screen"
check "write listed before reads (by risk)" \
  bash -c "grep -n 'write ' <<<\"\$1\" | head -1 | cut -d: -f1 | { read w; r=\$(grep -n 'read  ' <<<\"\$1\" | head -1 | cut -d: -f1); [ \$w -lt \$r ]; }" _ "$screen"
check "nothing ran before the answer" not ran
tm_run y
check "yes proceeds: the sandbox reads the granted file" tm_wait '^GRANT-READ-OK' 30
check "exit 0 after yes" tm_wait 'RC=0' 10
check "ledger exists" test -f "$LEDGER"
check_eq "ledger mode" 600 "$(stat -c %a "$LEDGER")"
check "ledger keyed by git common dir" grep -q "\"repo:$P/.git\"" "$LEDGER"

# 2. Unchanged: no question.
fresh
run_gate "B --exec $READ"
check "unchanged proceeds" tm_wait 'RC=0' 30
check "unchanged: the grant applies" ran
check "unchanged does not ask" not grep -q 'apply this policy' <<<"$(tm_screen)"

# 3. A linked worktree of the same repository shares the trust.
as_nobody env HOME="$H" git -C "$P" worktree add -q "$H/wt" 2>/dev/null
check "worktree created (a .git file, not a dir)" test -f "$H/wt/.git"
fresh
tm_run "cd '$H/wt'"
run_gate "B --exec $READ"
check "worktree proceeds" tm_wait 'RC=0' 30
check "worktree: the grant applies" ran
check "worktree does not ask" not grep -q 'apply this policy' <<<"$(tm_screen)"
tm_run "cd '$P'"

# 4. Changed: asked again with a diff; "n" refuses, exit 1, nothing runs, ledger untouched.
printf 'allow-exec ~/tools/mybin\n' >>"$P/.blaude"
before=$(sha256sum "$LEDGER")
fresh
run_gate "B --exec $READ"
check "changed policy asks" tm_wait 'apply this policy\? \[y/N\]' 30
screen=$(tm_screen)
check "prompt says changed" grep -q "project policy changed" <<<"$screen"
check "diff shows the added exec" grep -Eq "\+ exec +$H/tools/mybin" <<<"$screen"
check "diff shows nothing removed" bash -c "! grep -Eq '^ +- ' <<<\"\$1\"" _ "$screen"
tm_run n
check "no refuses" tm_wait 'not trusted; nothing was started' 30
check "exit 1 after no" tm_wait 'RC=1' 10
check "no: nothing ran" not ran
check_eq "ledger unchanged after no" "$before" "$(sha256sum "$LEDGER")"

# 5. stdin cannot answer: a pipe full of "y" is there before the question; the answer typed on
# the terminal afterwards ("n") decides. Had the pipe answered, the sandbox would have run.
fresh
run_gate "yes | B --exec $READ"
check "piped stdin: still asks" tm_wait 'apply this policy\? \[y/N\]' 30
tm_run n
check "terminal answer counts" tm_wait 'not trusted; nothing was started' 30
check "piped stdin: exit 1" tm_wait 'RC=1' 10
check "piped stdin did not answer (nothing ran)" not ran
# Control: the same pipe does answer a reader of stdin, so the check above can fail.
check "control: a stdin reader takes the piped y" bash -c "yes | head -1 | grep -qx y"

# 6. No controlling terminal: refuse with a hint; --trust-policy applies for this run only.
# nt ARGS: blaude without a terminal (setsid: no controlling tty; stdin /dev/null).
nt() { (cd "$P" && setsid -w env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 \
  --clear-groups "$BLAUDE" "$@" </dev/null 2>&1); }
out=$(nt --exec $READ) && rc=0 || rc=$?
check_eq "no tty: exit 1" 1 "$rc"
check "no tty: says why" grep -q "no terminal to ask on" <<<"$out"
check "no tty: hints --trust-policy" grep -q -- "--trust-policy" <<<"$out"
check "no tty: nothing ran" not grep -q GRANT-READ-OK <<<"$out"
out=$(nt --trust-policy --exec $READ) && rc=0 || rc=$?
check_eq "--trust-policy: exit 0" 0 "$rc"
check "--trust-policy: the grant applies" grep -q '^GRANT-READ-OK' <<<"$out"
check "--trust-policy: says this run only" grep -q "for this run only" <<<"$out"
check_eq "--trust-policy does not record trust" "$before" "$(sha256sum "$LEDGER")"
out=$(nt --print-policy) && rc=0 || rc=$?
check_eq "--print-policy: exit 0" 0 "$rc"
check "--print-policy: not trusted yet" grep -q "(not trusted yet)" <<<"$out"
check "--print-policy: lists the exec grant" grep -Eq "exec +$H/tools/mybin" <<<"$out"
check "--print-policy: starts nothing" not grep -q GRANT-READ-OK <<<"$out"

# 7. Invalid policy: file:line: why, nothing asked or run, exit 1.
printf 'allow-write /\n' >>"$P/.blaude"
out=$(nt --trust-policy --exec $READ) && rc=0 || rc=$?
check_eq "invalid: exit 1" 1 "$rc"
check "invalid: names file:line" grep -q "$P/.blaude:6: / would grant the whole file system" <<<"$out"
check "invalid: nothing ran" not grep -q GRANT-READ-OK <<<"$out"

finish
