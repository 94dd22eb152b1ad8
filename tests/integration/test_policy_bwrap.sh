#!/usr/bin/env bash
# The policy on Linux with the real bwrap as an unprivileged user (uid 65534).
# Part A, the real path main will take: trust gate (--trust-policy) → policy grants → the bwrap
# planner (sandbox::run_sandboxed) → bwrap: allow-read readable (not writable), allow-write
# writable, allow-exec runnable (not writable), the rest of $HOME invisible, protected files
# still protected although the policy tries `allow-write ./.git`.
# Part B, the ordering convention itself (hand-built bwrap): protected rules after the grants
# hold; a control with them first shows the attack succeeding.
# Part C: a committed symlink cannot widen a grant.
. "$(dirname "$0")/lib.sh"

TOOL="$BLAUDE_BUILD/tests/policy_gate_tool"
[ -x "$TOOL" ] || { echo "FAIL: $TOOL not built"; exit 1; }
command -v bwrap >/dev/null || skip "bwrap is not installed"
as_nobody bwrap --unshare-all --ro-bind / / true 2>/dev/null ||
  skip "bwrap cannot create a user namespace as an unprivileged user here"

H="$T_DIR/home"
P="$H/proj"
mkdir -p "$H/.ssh" "$H/notes" "$H/.config/special" "$H/data/out" "$H/tools/bin" \
  "$P/.git/hooks" "$P/src"
echo "ssh-secret" >"$H/.ssh/id_rsa"
echo "private-notes" >"$H/notes/secret.txt"
echo "special-config" >"$H/.config/special/cfg"
printf '#!/bin/sh\necho mytool-ran\n' >"$H/tools/bin/mytool"
chmod 755 "$H/tools/bin/mytool"
echo '#!/bin/sh' >"$P/.git/hooks/pre-commit"
echo '[core]' >"$P/.git/config"
echo 'TOKEN=x' >"$P/.env"
echo 'ref: refs/heads/main' >"$P/.git/HEAD"
cat >"$P/.blaude" <<'POLICY'
# what a hostile commit might try: re-open .git through a wider grant
allow-write ./.git
allow-read ~/.config/special
allow-write ~/data/out
allow-exec ~/tools/bin
tool huggingface
POLICY
chown -R 65534:65534 "$H"

# --- Part A: the real planner ---------------------------------------------------------------
# run SCRIPT: the gate + planner + bwrap as uid 65534, from the project, with a scrubbed env.
run() {
  (cd "$P" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$TOOL" run --trust-policy -- sh -c "$1" </dev/null 2>>"$T_DIR/run.err")
}
fails_in() { ! run "$1"; }
check_eq "A: allow-read readable" "special-config" "$(run "cat '$H/.config/special/cfg'")"
check "A: allow-read not writable" fails_in "echo x > '$H/.config/special/cfg'"
check "A: allow-write writable" run "echo planner > '$H/data/out/g'"
check_eq "A: allow-write reaches the host" "planner" "$(cat "$H/data/out/g" 2>/dev/null)"
check_eq "A: allow-exec runs" "mytool-ran" "$(run "'$H/tools/bin/mytool'")"
check "A: allow-exec not writable" fails_in "echo x > '$H/tools/bin/evil'"
check "A: rest of HOME invisible (notes)" run "! test -e '$H/notes/secret.txt'"
check "A: rest of HOME invisible (.ssh)" run "! test -e '$H/.ssh/id_rsa'"
check "A: the project is writable" run "echo y > src/main.c"
for target in .git/hooks/pre-commit .git/hooks/post-checkout .git/config; do
  check "A: protected despite allow-write ./.git: $target" fails_in "echo evil >> '$target'"
  check "A: not via the host path either: $target" fails_in "echo evil >> '$P/$target'"
done
check_eq "A: hooks unchanged on the host" '#!/bin/sh' "$(cat "$P/.git/hooks/pre-commit")"
check "A: no new hook on the host" test ! -e "$P/.git/hooks/post-checkout"
check "A: the gate said the ./.git line is ignored" \
  grep -q "$P/.blaude:2: ./.git is inside the project" <(cd "$P" && HOME="$H" "$TOOL" print)

# --- Part B: the convention, hand-built -----------------------------------------------------
mapfile -t POLICY_ARGS < <(cd "$P" && HOME="$H" "$TOOL" bwrap-args)
check "policy yields bwrap args" test "${#POLICY_ARGS[@]}" -gt 0
check "write grant is a bind" grep -qx -- "--bind-try" < <(printf '%s\n' "${POLICY_ARGS[@]}")
check "read grant is a ro-bind" grep -qx -- "--ro-bind-try" < <(printf '%s\n' "${POLICY_ARGS[@]}")

# The parser ignores `allow-write ./.git`; add that mount by hand (as a buggy planner or parser
# might) to show that the protected rules, emitted last, still hold.
check "parser emitted no mount for ./.git" bash -c "! grep -qx -- '$P/.git' <(printf '%s\\n' \"\$@\")" _ "${POLICY_ARGS[@]}"
POLICY_ARGS+=(--bind "$P/.git" "$P/.git")
BASE=(--unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc --tmpfs "$H"
  --bind "$P" "$P")
PROTECT=()
for f in .git/hooks .git/config .env .blaude; do PROTECT+=(--ro-bind "$P/$f" "$P/$f"); done

sb() { as_nobody bwrap "${BASE[@]}" "${POLICY_ARGS[@]}" "${PROTECT[@]}" -- "$@" 2>/dev/null; }
fails() { ! "$@"; }
sb_wrong_order() { as_nobody bwrap "${BASE[@]}" "${PROTECT[@]}" "${POLICY_ARGS[@]}" -- "$@" 2>/dev/null; }

# Controls on the host: the unprivileged user can read and write all of it outside the sandbox.
check "control: nobody reads notes outside" as_nobody cat "$H/notes/secret.txt"
check "control: nobody writes hooks outside" as_nobody sh -c "echo >>'$P/.git/hooks/pre-commit'"
git_hook_before=$(cat "$P/.git/hooks/pre-commit")

check_eq "allow-read: readable" "special-config" "$(sb cat "$H/.config/special/cfg")"
check "allow-read: not writable" fails sb sh -c "echo x > '$H/.config/special/new'"
check "allow-write: writable" sb sh -c "echo written > '$H/data/out/f'"
check_eq "allow-write: reaches the host" "written" "$(cat "$H/data/out/f" 2>/dev/null)"
check_eq "allow-exec: runs" "mytool-ran" "$(sb "$H/tools/bin/mytool")"
check "allow-exec: not writable" fails sb sh -c "echo x > '$H/tools/bin/evil'"
check "rest of HOME: notes invisible" sb sh -c "! test -e '$H/notes/secret.txt'"
check "rest of HOME: .ssh invisible" sb sh -c "! test -e '$H/.ssh/id_rsa'"
check "a .git grant (hand-added): ordinary git files writable" sb sh -c "echo x > '$P/.git/description'"
check "project writable" sb sh -c "echo y > '$P/src/main.c'"

for target in .git/hooks/pre-commit .git/hooks/post-checkout .git/config .env .blaude; do
  check "protected despite allow-write ./.git: $target" \
    sb sh -c "! (echo evil >> '$P/$target') 2>/dev/null"
done
check "protected: hooks cannot be renamed away" sb sh -c "! mv '$P/.git/hooks' '$P/.git/h2' 2>/dev/null"
check_eq "hooks unchanged on the host" "$git_hook_before" "$(cat "$P/.git/hooks/pre-commit")"
check "no new hook on the host" test ! -e "$P/.git/hooks/post-checkout"

# Control: protected rules emitted BEFORE the policy's mounts (the xclaude ordering bug) let
# `allow-write ./.git` re-open the hooks; the checks above would notice that order.
check "control: wrong order re-opens hooks" \
  sb_wrong_order sh -c "echo evil >> '$P/.git/hooks/pre-commit'"
check "control: the write landed" grep -q evil "$P/.git/hooks/pre-commit"

# --- Part C ---------------------------------------------------------------------------------
# Attack: a symlink planted where an earlier session could write (~/data was granted) makes an
# innocent-looking grant point at $HOME. bwrap would follow it and bind all of $HOME writable;
# blaude refuses to start instead, naming the line. (Inside the project, grants are ignored.)
H2="$T_DIR/home2"
P2="$H2/proj"
mkdir -p "$P2" "$H2/data"
ln -s "$H2" "$H2/data/link"
printf 'allow-write ~/data/link\n' >"$P2/.blaude"
out=$(cd "$P2" && HOME="$H2" "$TOOL" bwrap-args 2>&1) && rc=0 || rc=$?
check_eq "symlink to HOME: refused" 1 "$rc"
check "symlink to HOME: names the line and the target" \
  grep -q "$P2/.blaude:1: $H2/data/link resolves to $H2" <<<"$out"
check "symlink to HOME: no mount args printed" bash -c "! grep -q -- '--bind' <<<\"\$1\"" _ "$out"
rm "$H2/data/link" && mkdir "$H2/data/link"
out=$(cd "$P2" && HOME="$H2" "$TOOL" bwrap-args 2>&1) && rc=0 || rc=$?
check_eq "control: a real directory there is accepted" 0 "$rc"

finish
