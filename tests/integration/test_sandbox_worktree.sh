#!/usr/bin/env bash
# Git worktrees and submodules both ways, through the real blaude as uid 65534, each result
# checked afterwards with the host's git: a linked worktree as the workspace (status, commit,
# `git worktree add`/`remove` inside, a signed commit with --git --ssh-agent); a submodule whose
# git dir is in the superproject; a workspace holding worktrees of a repository elsewhere; from
# a worktree, the main repository's hooks, config, commondir and another worktree's gitdir, and
# a new worktree's pointer out of the repository, refused or undone (each with an
# --allow-protected-writes control); and no mount point left in the tree or `.git` afterwards.
# test_protect_worktree covers the attacks in depth (both bwraps, both protection forms).
. "$(dirname "$0")/lib.sh"

need_sandbox
for t in git ssh-agent ssh-keygen ssh-add; do command -v $t >/dev/null || missing "$t"; done

# The repositories live under $HOME, a tmpfs in the sandbox: only what blaude binds is there.
H="$T_DIR/home"
mkdir -p "$H/.claude"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
g() { git -c init.defaultBranch=main -c protocol.file.allow=always "$@" >/dev/null 2>&1; }
hg() { git -c safe.directory='*' "$@" 2>&1; }
D="$H/src"
M="$D/main"
g init "$M"
echo one >"$M/file" && g -C "$M" add file && g -C "$M" commit -m one
echo secret >"$M/untracked-secret"
g -C "$M" worktree add -b feature "$D/feature"
g -C "$M" worktree add -b other "$D/other"
# A superproject with a submodule (its git dir in super/.git/modules/sub).
g init "$D/subsrc" && echo s >"$D/subsrc/s" && g -C "$D/subsrc" add s && g -C "$D/subsrc" commit -m s
g init "$D/super" && echo x >"$D/super/x" && g -C "$D/super" add x && g -C "$D/super" commit -m x
g -C "$D/super" submodule add "$D/subsrc" sub && g -C "$D/super" commit -m sub
# A dir holding a worktree of main (its git dir outside the dir).
mkdir -p "$D/holder" && g -C "$M" worktree add -b held "$D/holder/wt"
# A repository and a worktree of another one without a hooks dir: blaude mounts an empty one.
g init "$D/nohooks" && rm -rf "$D/nohooks/.git/hooks"
g init "$D/nh-main" && echo n >"$D/nh-main/n" && g -C "$D/nh-main" add n && g -C "$D/nh-main" commit -m n
g -C "$D/nh-main" worktree add -b nh "$D/nh-wt" && rm -rf "$D/nh-main/.git/hooks"
chown -R 65534:65534 "$H"
[ "$(hg -C "$D/super/sub" rev-parse --git-dir)" = "$D/super/.git/modules/sub" ] || missing "git's submodule layout"

# The ssh-agent for the signed commit (as in test_ssh_agent): key a, named by the global
# user.signingkey as a key file (its public half alone is bound).
# The agent's socket dir lives in the runtime dir, which must be under /run (no sandbox sees it).
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown 65534:65534 "$RT" && chmod 700 "$RT"
AG=$(mktemp -d /tmp/ssh-XXXXXXXXXX)
at_exit_late "rm -rf '$AG'"
chown 65534:65534 "$AG" && chmod 700 "$AG"
u() { (cd / && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin SSH_AUTH_SOCK="$AG/s" "$@"); }
mkdir -p "$H/.ssh" && chown 65534:65534 "$H/.ssh" && chmod 700 "$H/.ssh"
AGENT_PID=$(u ssh-agent -s -a "$AG/s" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
at_exit "kill $AGENT_PID 2>/dev/null"
wait_until test -S "$AG/s" || fail "the test's ssh-agent did not start"
u ssh-keygen -q -t ed25519 -N '' -C key-a -f "$H/.ssh/a"
u ssh-add -q "$H/.ssh/a" 2>/dev/null
u git config --global user.signingkey "$H/.ssh/a"
u git config --global gpg.format ssh
u git config --global user.name t
u git config --global user.email t@example.invalid
echo "t@example.invalid $(cat "$H/.ssh/a.pub")" >"$T_DIR/allowed"

# Empty files and dirs under $D (what a mount point leaves) before any session; git's own empty
# dirs in objects/ and refs/ are not blaude's.
listing() { (cd "$D" && find . -empty -printf '%y %p\n' | grep -v -e '/objects/' -e '/refs/' | sort); }
listing >"$T_DIR/before.txt"

# run NAME WS [blaude options] -- SCRIPT: as uid 65534 from WS; $T_DIR/NAME.{out,err}.
run() {
  local name=$1 w=$2
  shift 2
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  (cd "$w" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb SSH_AUTH_SOCK="$AG/s" XDG_RUNTIME_DIR="$RT" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard "${opts[@]}" --exec sh -c "$2" </dev/null >"$T_DIR/$name.out" 2>"$T_DIR/$name.err") ||
    echo "(blaude exited $?)" >>"$T_DIR/$name.err"
}
said() { grep -qx "$2" "$T_DIR/$1.out"; }

# --- A linked worktree as the workspace.
run wt "$D/feature" --git --ssh-agent -- "
  git status --porcelain >/dev/null && echo status-ok
  echo f >f && git add f && git commit -qm inside && echo commit-ok
  git commit -q --allow-empty -S -m signed && echo signed-ok
  git worktree add -q ./inner -b inner && echo y >inner/y && git -C inner add y && git -C inner commit -qm in-inner && echo add-ok
  git worktree add -q ./gone -b gone && git worktree remove gone && echo remove-ok
  test -d $M/.git/hooks && echo hooks-seen
  test ! -e $M/file && test ! -e $M/untracked-secret && echo tree-hidden"
for s in status-ok commit-ok signed-ok add-ok remove-ok tree-hidden; do
  check "worktree: $s inside" said wt $s
done
check_eq "worktree: host git: the commits made inside" "signed inside one" \
  "$(hg -C "$D/feature" log --format=%s | tr '\n' ' ' | sed 's/ $//')"
check "worktree: host git: the signature verifies" \
  hg -C "$D/feature" -c gpg.ssh.allowedSignersFile="$T_DIR/allowed" verify-commit HEAD
check_eq "worktree: host git: the worktree is clean (but for the one made in it)" "?? inner/" "$(hg -C "$D/feature" status --porcelain)"
check "worktree: host git: the worktree made inside is listed" grep -qx "worktree $D/feature/inner" <(hg -C "$M" worktree list --porcelain)
check_eq "worktree: its back-pointer is its host path" "$D/feature/inner/.git" "$(cat "$M/.git/worktrees/inner/gitdir")"
check_eq "worktree: host git: the removed one is gone, nothing prunable" 0 \
  "$(hg -C "$M" worktree list --porcelain | grep -c -e "^worktree $D/feature/gone" -e prunable || true)"
check_eq "worktree: host git: the worktree made inside has its commit and is clean" "in-inner|" \
  "$(hg -C "$D/feature/inner" log -1 --format=%s)|$(hg -C "$D/feature/inner" status --porcelain)"
check "worktree: the exit audit left the new worktree intact" not grep -q 'blaude-audit' <(find "$D" -name '*blaude-audit*')
check "worktree: hooks of the main repository are reachable (read-only) inside" said wt hooks-seen

# --- From the worktree: the attacks, then the same with --allow-protected-writes (the control).
attack="
  git worktree add -q ./esc -b esc && echo /tmp >$M/.git/worktrees/esc/commondir
  git init -q newrepo && git -C newrepo config core.fsmonitor evil
  echo evil >$M/.git/hooks/pre-commit
  echo '[core] fsmonitor = evil' >>$M/.git/config
  echo evil >>$M/.git/worktrees/feature/commondir
  echo evil >>$M/.git/worktrees/other/gitdir
  true"
landed=(
  "the main repository's hook|.git/hooks/pre-commit"
  "its config|.git/config"
  "this worktree's commondir|.git/worktrees/feature/commondir"
  "another worktree's gitdir|.git/worktrees/other/gitdir"
)
run attack "$D/feature" -- "$attack"
for l in "${landed[@]}"; do
  IFS='|' read -r what path <<<"$l"
  check "from the worktree, $what is not written" not grep -qs evil "$M/$path"
done
check "a new worktree's commondir out of the repository is undone by the exit audit" \
  not grep -qxs /tmp "$M/.git/worktrees/esc/commondir"
check_eq "a new repository's code-bearing config is neutralised" "" \
  "$(hg -C "$D/feature/newrepo" config core.fsmonitor || true)"
check "the audit says what it undid" grep -q 'worktrees/esc/commondir' "$T_DIR/attack.err"
check_eq "host git: worktree list still right after the attacks" "feature other" \
  "$(hg -C "$M" worktree list --porcelain | sed -n 's|^worktree '"$D"'/||p' | grep -x -e feature -e other | tr '\n' ' ' | sed 's/ $//')"
rm -rf "$D/feature/esc" "$M/.git/worktrees/esc"* "$D/feature/newrepo"
as_nobody git -c safe.directory="*" -C "$M" branch -q -D esc >/dev/null 2>&1 || true
# The control: the same with the protections off lands (on a copy of the repository's files).
cp -a "$M/.git/hooks" "$M/.git/config" "$M/.git/worktrees/feature/commondir" "$M/.git/worktrees/other/gitdir" "$T_DIR/" 2>/dev/null
run control "$D/feature" --allow-protected-writes -- "$attack"
for l in "${landed[@]}"; do
  IFS='|' read -r what path <<<"$l"
  check "control: $what is written without the protections" grep -q evil "$M/$path"
done
check "control: the new worktree's commondir stays without the audit" grep -qx /tmp "$M/.git/worktrees/esc/commondir"
check_eq "control: and the new repository's config" evil "$(hg -C "$D/feature/newrepo" config core.fsmonitor)"
# Put the repository back for what follows.
rm -rf "$M/.git/hooks" "$M/.git/worktrees/esc" "$D/feature/esc" "$D/feature/newrepo"
cp -a "$T_DIR/hooks" "$M/.git/hooks"; cp "$T_DIR/config" "$M/.git/config"
cp "$T_DIR/commondir" "$M/.git/worktrees/feature/commondir"; cp "$T_DIR/gitdir" "$M/.git/worktrees/other/gitdir"
as_nobody git -c safe.directory="*" -C "$M" branch -q -D esc >/dev/null 2>&1 || true

# --- A submodule as the workspace: its git dir is in the superproject's .git/modules.
run sub "$D/super/sub" -- "
  git status --porcelain >/dev/null && echo status-ok
  echo y >y && git add y && git -c user.name=t -c user.email=t@example.invalid commit -qm in-sub && echo commit-ok
  echo evil >$D/super/.git/modules/sub/hooks/pre-commit
  echo '[core] fsmonitor = evil' >>$D/super/.git/modules/sub/config
  echo evil >>$D/super/.git/config
  test ! -e $D/super/x && echo tree-hidden"
for s in status-ok commit-ok tree-hidden; do check "submodule: $s inside" said sub $s; done
check_eq "submodule: host git: the commit made inside" "in-sub" "$(hg -C "$D/super/sub" log -1 --format=%s)"
check "submodule: its hooks are not written" not test -e "$D/super/.git/modules/sub/hooks/pre-commit"
check "submodule: nor its config" not grep -q evil "$D/super/.git/modules/sub/config"
check "submodule: nor the superproject's config" not grep -q evil "$D/super/.git/config"
run sub-ctl "$D/super/sub" --allow-protected-writes -- "echo evil >$D/super/.git/modules/sub/hooks/pre-commit"
check "submodule, control: its hook is written without the protections" grep -q evil "$D/super/.git/modules/sub/hooks/pre-commit"
rm -f "$D/super/.git/modules/sub/hooks/pre-commit"

# --- A workspace holding a worktree of a repository elsewhere.
run holder "$D/holder" -- "
  git -C wt status --porcelain >/dev/null && echo status-ok
  echo y >wt/y && git -C wt add y && git -C wt -c user.name=t -c user.email=t@example.invalid commit -qm in-holder && echo commit-ok
  echo evil >$M/.git/hooks/pre-commit; echo evil >>$M/.git/worktrees/feature/gitdir; true"
for s in status-ok commit-ok; do check "holder: $s inside" said holder $s; done
check_eq "holder: host git: the commit made inside" "in-holder" "$(hg -C "$D/holder/wt" log -1 --format=%s)"
check "holder: the repository's hook is not written" not test -e "$M/.git/hooks/pre-commit"
check "holder: nor another worktree's gitdir" not grep -qs evil "$M/.git/worktrees/feature/gitdir"

# --- No mount point left: repositories without a hooks dir get an empty one inside.
run nohooks "$D/nohooks" -- "test -d .git/hooks && echo made"
run nh-wt "$D/nh-wt" -- "test -d $D/nh-main/.git/hooks && echo made"
check "control: a mount point for the missing hooks dir exists inside (a repository)" said nohooks made
check "control: and in a worktree's repository" said nh-wt made
listing >"$T_DIR/after.txt"
check_eq "nothing blaude mounted is left in the tree or .git after the sessions" "" \
  "$(diff "$T_DIR/before.txt" "$T_DIR/after.txt" | grep '^[<>]' || true)"

[ "$T_FAILS" -eq 0 ] || for f in "$T_DIR"/*.err; do echo "--- $f:"; tail -n 15 "$f"; done
finish
