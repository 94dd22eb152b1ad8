#!/usr/bin/env bash
# The policy on Linux with the real bwrap as an unprivileged user (uid 65534): allow-read paths
# readable (not writable), allow-write writable, allow-exec runnable (not writable), the rest of
# $HOME invisible, and the protected files still protected even with `allow-write ./.git`.
#
# The bwrap planner (src/sandbox/plan*) is not on main yet, so this test builds the bwrap
# command itself, following the convention the planner must keep: base mounts, tmpfs $HOME,
# project bind, then policy_bwrap_args() (from the test-only policy_gate_tool), then the
# protected-path rules LAST. A control runs the same with the protected rules first and shows
# the attack succeeding, so the test would notice a planner that gets the order wrong.
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

mapfile -t POLICY_ARGS < <(cd "$P" && HOME="$H" "$TOOL" bwrap-args)
check "policy yields bwrap args" test "${#POLICY_ARGS[@]}" -gt 0
check "write grant is a bind" grep -qx -- "--bind-try" < <(printf '%s\n' "${POLICY_ARGS[@]}")
check "read grant is a ro-bind" grep -qx -- "--ro-bind-try" < <(printf '%s\n' "${POLICY_ARGS[@]}")

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
check "allow-write ./.git: ordinary git files writable" sb sh -c "echo x > '$P/.git/description'"
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

# Attack: a committed symlink makes an innocent-looking grant point at $HOME. bwrap would follow
# it and bind all of $HOME writable; blaude refuses to start instead, naming the line.
P2="$T_DIR/home2/proj"
mkdir -p "$P2"
ln -s "$T_DIR/home2" "$P2/cache"
printf 'allow-write ./cache\n' >"$P2/.blaude"
out=$(cd "$P2" && HOME="$T_DIR/home2" "$TOOL" bwrap-args 2>&1) && rc=0 || rc=$?
check_eq "symlink to HOME: refused" 1 "$rc"
check "symlink to HOME: names the line and the target" \
  grep -q "$P2/.blaude:1: $P2/cache resolves to $T_DIR/home2" <<<"$out"
check "symlink to HOME: no mount args printed" bash -c "! grep -q -- '--bind' <<<\"\$1\"" _ "$out"
rm "$P2/cache" && mkdir "$P2/cache"
out=$(cd "$P2" && HOME="$T_DIR/home2" "$TOOL" bwrap-args 2>&1) && rc=0 || rc=$?
check_eq "control: a real directory there is accepted" 0 "$rc"

finish
