#!/usr/bin/env bash
# The policy on Linux through the real blaude and the real bwrap as an unprivileged user (uid
# 65534).
# Part A, the product's path: trust gate (--trust-policy) → policy grants → the bwrap planner →
# bwrap: allow-read readable (not writable), allow-write writable, allow-exec runnable (not
# writable), the rest of $HOME invisible, protected files still protected although the policy
# tries `allow-write ./.git`.
# Part B, the ordering convention in what blaude emits (its --dry-run command, run as printed):
# the grants' mounts come before the protected paths, so a grant over a protected path (a .git
# bind added by hand where a buggy parser would put it) leaves them protected; the control, the
# same bind after the protected paths, shows the attack succeeding.
# Part C: a committed symlink cannot widen a grant.
. "$(dirname "$0")/lib.sh"

need_sandbox

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
POLICY_TAIL='allow-read ~/.config/special
allow-write ~/data/out
allow-exec ~/tools/bin
tool huggingface'
cat >"$P/.blaude" <<POLICY
# what a hostile commit might try: re-open .git through a wider grant
allow-write ./.git
$POLICY_TAIL
POLICY
chown -R 65534:65534 "$H"

# blaude_in DIR HOME [blaude options]: the real blaude as uid 65534 from DIR, scrubbed env.
blaude_in() {
  local dir=$1 home=$2; shift 2
  (cd "$dir" && env -i HOME="$home" PATH=/usr/bin:/bin TERM=dumb \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" "$@" </dev/null)
}

# --- Part A: the product ---------------------------------------------------------------------
# run SCRIPT: SCRIPT in sh in blaude's sandbox, from the project, the policy applied.
run() { blaude_in "$P" "$H" --trust-policy --exec sh -c "$1" 2>>"$T_DIR/run.err"; }
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
check "A: ordinary git files are writable (commits land)" run "echo x > .git/description"
for target in .git/hooks/pre-commit .git/hooks/post-checkout .git/config .env .blaude; do
  check "A: protected despite allow-write ./.git: $target" fails_in "echo evil >> '$target'"
  check "A: not via the host path either: $target" fails_in "echo evil >> '$P/$target'"
done
check "A: hooks cannot be renamed away" fails_in "mv .git/hooks .git/h2"
check_eq "A: hooks unchanged on the host" '#!/bin/sh' "$(cat "$P/.git/hooks/pre-commit")"
check "A: no new hook on the host" test ! -e "$P/.git/hooks/post-checkout"
# Controls on the host: the same user reads and writes all of it outside the sandbox.
check "A control: uid 65534 reads notes outside" as_nobody grep -q private-notes "$H/notes/secret.txt"
check "A control: uid 65534 can write hooks outside" as_nobody test -w "$P/.git/hooks/pre-commit"
check "A: --print-policy says the ./.git line is ignored" \
  grep -q "$P/.blaude:2: ./.git is inside the project" <<<"$(blaude_in "$P" "$H" --print-policy)"

# --- Part B: the order of what blaude emits ---------------------------------------------------
# plan SCRIPT: blaude's --dry-run command (one option group per line) for SCRIPT.
plan() { blaude_in "$P" "$H" --trust-policy --dry-run --exec sh -c "$1" 2>/dev/null; }
printed=$(plan true)
check "B: write grant is a bind" grep -qx -- "  --bind $H/data/out $H/data/out \\\\" <<<"$printed"
check "B: read grant is a read-only bind" grep -qx -- "  --ro-bind $H/.config/special $H/.config/special \\\\" <<<"$printed"
check "B: exec grant is a read-only bind" grep -qx -- "  --ro-bind $H/tools/bin $H/tools/bin \\\\" <<<"$printed"
# `allow-write ./.git` is ignored: the command is the same without that line.
cp "$P/.blaude" "$T_DIR/blaude.orig"
printf '%s\n' "$POLICY_TAIL" >"$P/.blaude"
# Tests running beside this one make and remove sockets and socket dirs of uid 65534 in the shared
# /tmp, which the plan shadows (one such dir appeared between the two plans in a CI run): those
# lines, and the count of the helper's mounts they change, are not the grant's and are left out.
without_host_tmp() {
  awk -v t="$T_DIR" '!(/^  --(tmpfs|ro-bind \/dev\/null) \/tmp\// && index($0, t) == 0) && !/^# The last [0-9]+ mounts/'
}
check "B: the comparison below keeps the grants and the protected paths" \
  grep -q -- "--ro-bind $P/.git/hooks" <<<"$(without_host_tmp <<<"$printed")"
check_eq "B: allow-write ./.git adds nothing to the bwrap command" "$(without_host_tmp <<<"$printed")" \
  "$(plan true | without_host_tmp)"
cp "$T_DIR/blaude.orig" "$P/.blaude"
# grant_line / protect_line: the last line mounting a grant, the first pinning a protected path.
grant_line=$(grep -nE -- "^  --(ro-)?bind $H/(data/out|\\.config/special|tools/bin) " <<<"$printed" | tail -1 | cut -d: -f1)
protect_line=$(grep -nE -- "^  --ro-bind $P/(\\.git/hooks|\\.git/config|\\.env|\\.blaude) " <<<"$printed" | head -1 | cut -d: -f1)
check "B: the grants come before the protected paths (lines ${grant_line:-?} < ${protect_line:-?})" \
  test "${grant_line:-0}" -gt 0 -a "${protect_line:-0}" -gt "${grant_line:-0}"

# sb ORDER SCRIPT: blaude's command for SCRIPT with a hand-added `--bind $P/.git $W/.git` (as a
# buggy parser would emit for the ignored grant: the project's .git writable at the workspace),
# placed among the grants ("grants") or after the protected paths, just before the environment
# ("wrong"), run in sh as printed.
W=$P  # the project inside, at its own path
sb() {
  local p at extra="  --bind $P/.git $W/.git \\"
  p=$(plan "$2")
  if [ "$1" = grants ]; then
    at=$(grep -nE -- "^  --(ro-)?bind $H/(data/out|\\.config/special|tools/bin) " <<<"$p" | tail -1 | cut -d: -f1)
  else
    at=$(($(grep -n -- '^  --clearenv' <<<"$p" | cut -d: -f1) - 1))
  fi
  [ "${at:-0}" -gt 0 ] || { echo "sb: no insertion point in the plan" >&2; return 2; }
  p=$(EXTRA=$extra awk -v at="$at" '{ print } NR == at { print ENVIRON["EXTRA"] }' <<<"$p")
  (cd "$P" && env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
    sh -c "$p" </dev/null 2>/dev/null)
}
git_hook_before=$(cat "$P/.git/hooks/pre-commit")
check "B: the hand-added .git grant is in effect (ordinary git files writable)" \
  sb grants "echo x > '$W/.git/description'"
for target in .git/hooks/pre-commit .git/hooks/post-checkout .git/config .env .blaude; do
  check "B: protected despite a .git grant among the grants: $target" \
    sb grants "! (echo evil >> '$W/$target') 2>/dev/null"
done
check "B: hooks cannot be renamed away" sb grants "! mv '$W/.git/hooks' '$W/.git/h2' 2>/dev/null"
check_eq "B: hooks unchanged on the host" "$git_hook_before" "$(cat "$P/.git/hooks/pre-commit")"
check "B: no new hook on the host" test ! -e "$P/.git/hooks/post-checkout"
# Control: the same bind after the protected paths (the xclaude ordering bug) re-opens the hooks.
check "B control: wrong order re-opens hooks" sb wrong "echo evil >> '$W/.git/hooks/pre-commit'"
check "B control: the write landed" grep -q evil "$P/.git/hooks/pre-commit"

# --- Part C ---------------------------------------------------------------------------------
# Attack: a symlink planted where an earlier session could write (~/data was granted) makes an
# innocent-looking grant point at $HOME. bwrap would follow it and bind all of $HOME writable;
# blaude refuses to start instead, naming the line. (Inside the project, grants are ignored.)
H2="$T_DIR/home2"
P2="$H2/proj"
mkdir -p "$P2" "$H2/data"
ln -s "$H2" "$H2/data/link"
printf 'allow-write ~/data/link\n' >"$P2/.blaude"
chown -R -h 65534:65534 "$H2"
out=$(blaude_in "$P2" "$H2" --trust-policy --dry-run --exec true 2>&1) && rc=0 || rc=$?
check_eq "C: symlink to HOME: --dry-run refused" 1 "$rc"
check "C: symlink to HOME: names the line and the target" \
  grep -q "$P2/.blaude:1: $H2/data/link resolves to $H2" <<<"$out"
check "C: symlink to HOME: no bwrap command printed" not grep -q -- '--bind' <<<"$out"
out=$(blaude_in "$P2" "$H2" --trust-policy --exec echo STARTED 2>&1) && rc=0 || rc=$?
check_eq "C: symlink to HOME: a real run is refused" 1 "$rc"
check "C: symlink to HOME: nothing started" not grep -q STARTED <<<"$out"
rm "$H2/data/link" && mkdir "$H2/data/link" && chown 65534:65534 "$H2/data/link"
out=$(blaude_in "$P2" "$H2" --trust-policy --dry-run --exec true 2>/dev/null) && rc=0 || rc=$?
check_eq "C control: a real directory there is accepted" 0 "$rc"
check "C control: ... and bound writable" grep -qx -- "  --bind $H2/data/link $H2/data/link \\\\" <<<"$out"

finish
