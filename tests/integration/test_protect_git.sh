#!/usr/bin/env bash
# Git hooks, config and aliases, through the real blaude, as uid 65534, with the real
# bwrap 0.8 and the overlay-capable bwrap: every place git reads code-bearing configuration from
# is read-only in the sandbox, at any depth, at every path through which the workspace is
# writable, while commits still land. Every attack runs twice: protected (must fail) and with
# --allow-protected-writes (the control: must succeed, so a success would show).
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v git >/dev/null || skip "git is not installed"
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
if [ -x "$OVERLAY" ]; then BWRAPS+=("$OVERLAY"); else echo "note: no overlay bwrap at $OVERLAY; bwrap 0.8 only"; fi
[ "${CI:-}" = true ] && [ ! -x "$OVERLAY" ] && { fail "CI: the overlay bwrap is missing ($OVERLAY)"; finish; exit 1; }

H="$T_DIR/home"
mkdir -p "$H/.claude"
chown -R 65534:65534 "$H"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
g() { git -c init.defaultBranch=main -c protocol.file.allow=always "$@" >/dev/null 2>&1; }

# The workspace: a repo with a linked worktree, worktreeConfig, an include, husky v9, a
# submodule, nested repos deep in node_modules and vendor, a .git symlink and a bare repo.
make_ws() {
  local w=$1
  rm -rf "$w"
  mkdir -p "$w"
  g init "$w"
  echo one >"$w/file"
  g -C "$w" add file
  g -C "$w" commit -m one
  g -C "$w" config extensions.worktreeConfig true
  g -C "$w" config --worktree core.fsmonitor false
  mkdir -p "$w/conf" && printf '[user]\n\tname = t\n' >"$w/conf/extra.inc"
  g -C "$w" config include.path ../conf/extra.inc
  mkdir -p "$w/.husky/_" && echo 'npm test' >"$w/.husky/pre-commit"
  printf '#!/bin/sh\n. "$(dirname "$0")/h"\n' >"$w/.husky/_/pre-commit"
  g -C "$w" config core.hooksPath .husky/_
  g -C "$w" worktree add -b side "$w/wt"
  g init "$T_DIR/libsrc-$2" && echo l >"$T_DIR/libsrc-$2/l" && g -C "$T_DIR/libsrc-$2" add l && g -C "$T_DIR/libsrc-$2" commit -m l
  g -C "$w" submodule add "$T_DIR/libsrc-$2" lib
  mkdir -p "$w/node_modules/a/node_modules/b/lib/x" "$w/vendor/dep"
  g init "$w/node_modules/a/node_modules/b/lib/x"  # a repo at depth 7, under two node_modules
  g init "$w/vendor/dep"
  g init --bare "$w/remote.git"
  g init "$w/real-app" && mkdir -p "$w/app" && mv "$w/real-app/.git" "$w/app-gitdir" && ln -s ../app-gitdir "$w/app/.git"
  rm -rf "$w/real-app"
  chown -R 65534:65534 "$w" "$T_DIR/libsrc-$2"
}

# run BWRAP WS [blaude options] -- SCRIPT: SCRIPT in the sandbox, from the workspace, as uid 65534
run() {
  local bw=$1 w=$2
  shift 2
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  (cd "$w" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard "${opts[@]}" --exec sh -c "$2" </dev/null >>"$T_DIR/out" 2>&1) || echo "(blaude exited $?)" >>"$T_DIR/out"
}

attack='
  echo "[core] fsmonitor = evil" >>.git/config
  echo "[core] fsmonitor = evil" >>.git/config.worktree
  echo evil >>.git/worktrees/wt/commondir
  echo evil >>.git/worktrees/wt/gitdir
  echo "[core] fsmonitor = evil" >>conf/extra.inc
  echo evil >>.husky/pre-commit
  echo evil >>.husky/_/pre-commit
  echo "gitdir: /evil" >lib/.git
  echo evil >.git/modules/lib/hooks/post-checkout
  echo evil >node_modules/a/node_modules/b/lib/x/.git/hooks/pre-commit
  echo "[core] fsmonitor = evil" >>vendor/dep/.git/config
  echo evil >remote.git/hooks/post-receive
  echo "[core] fsmonitor = evil" >>app/.git/config
  mkdir -p wt/.husky; echo evil >wt/.husky/pre-commit
  true'
# name|host path|pattern meaning "the attack landed"
landed=(
  ".git/config|.git/config|evil"
  "config.worktree (extensions.worktreeConfig)|.git/config.worktree|evil"
  "worktrees/*/commondir|.git/worktrees/wt/commondir|evil"
  "worktrees/*/gitdir|.git/worktrees/wt/gitdir|evil"
  "an include.path target|conf/extra.inc|evil"
  "husky v9: .husky/<hook>, run by the .husky/_ stubs|.husky/pre-commit|evil"
  "husky v9: the core.hooksPath dir .husky/_|.husky/_/pre-commit|evil"
  "a submodule checkout's .git file|lib/.git|/evil"
  "a submodule gitdir's hooks (modules/)|.git/modules/lib/hooks/post-checkout|evil"
  "a repo at depth 7 under node_modules|node_modules/a/node_modules/b/lib/x/.git/hooks/pre-commit|evil"
  "a repo under vendor/|vendor/dep/.git/config|evil"
  "a bare repository's hooks|remote.git/hooks/post-receive|evil"
  "the repository behind a .git symlink|app-gitdir/config|evil"
  "a linked worktree's hooks tree|wt/.husky/pre-commit|evil"
)

for bw in "${BWRAPS[@]}"; do
  v=$("$bw" --version | awk '{print $2}')
  for mode in attack control; do
    W="$T_DIR/ws-$mode-$v"
    make_ws "$W" "$mode-$v"
    if [ $mode = attack ]; then run "$bw" "$W" -- "$attack"; else run "$bw" "$W" --allow-protected-writes -- "$attack"; fi
    for l in "${landed[@]}"; do
      IFS='|' read -r what path pat <<<"$l"
      if [ $mode = attack ]; then
        check "bwrap $v: $what cannot be written" not grep -q -- "$pat" "$W/$path"
      else
        check "bwrap $v, control: $what is writable without protection" grep -q -- "$pat" "$W/$path"
      fi
    done
  done

  # Agents can still commit: objects, refs, the index and lock files stay writable.
  W="$T_DIR/ws-commit-$v"
  make_ws "$W" "commit-$v"
  run "$bw" "$W" -- 'c="git -c core.hooksPath=/nonexistent -c user.name=t -c user.email=t@example.invalid"
    echo two >file && $c add file && $c commit -qm two && echo x >wt/f && $c -C wt add f && $c -C wt commit -qm wt'
  check_eq "bwrap $v: a commit made inside lands on the host" two "$(git -c safe.directory='*' -C "$W" show HEAD:file 2>&1)"
  check_eq "bwrap $v: a commit in the linked worktree lands too" x "$(git -c safe.directory='*' -C "$W/wt" show HEAD:f 2>&1)"

  # Class 4: the workspace under /tmp is also writable through /tmp itself. Through that alias it
  # can be neither renamed and replaced, nor its protected files written. At its host path the
  # workspace is a mount point (it cannot be renamed at all): the dir above it is the target then.
  for mode in attack control; do
    W="$T_DIR/alias-$mode-$v/sub/proj"
    mkdir -p "$(dirname "$W")" && make_ws "$W" "alias-$mode-$v" && chown 65534:65534 "$T_DIR/alias-$mode-$v" "$(dirname "$W")"
    D=$(dirname "$W")
    a="echo evil >>$W/.git/config; { mv $W $W.orig || mv $D $D.orig; } && mkdir -p $W/.git/hooks && echo evil >$W/.git/hooks/pre-commit; true"
    if [ $mode = attack ]; then run "$bw" "$W" -- "$a"; else run "$bw" "$W" --allow-protected-writes -- "$a"; fi
    if [ $mode = attack ]; then
      check "bwrap $v: .git/config cannot be written through the /tmp alias" not grep -q evil "$W/.git/config"
      check "bwrap $v: the workspace cannot be renamed through the /tmp alias" not test -e "$W.orig"
      check "bwrap $v: nor the dir above it" not test -e "$D.orig"
      check "bwrap $v: no planted hook in the workspace's place" not test -e "$W/.git/hooks/pre-commit"
    else
      check "bwrap $v, control: the workspace can be renamed and replaced through /tmp" test -e "$W/.git/hooks/pre-commit"
    fi
  done
  # ... and through a -m PARENT:rw mount.
  for mode in attack control; do
    P="$T_DIR/parent-$mode-$v"
    W="$P/sub/proj"
    mkdir -p "$P/sub" && make_ws "$W" "parent-$mode-$v" && chown 65534:65534 "$P" "$P/sub"
    a="{ mv $W $W.orig || mv $P/sub $P/sub.orig; } && mkdir -p $W/.git/hooks && echo evil >$W/.git/hooks/pre-commit; true"
    if [ $mode = attack ]; then run "$bw" "$W" --clear-tmp -m "$P:rw" -- "$a"; else run "$bw" "$W" --clear-tmp -m "$P:rw" --allow-protected-writes -- "$a"; fi
    if [ $mode = attack ]; then
      check "bwrap $v: the workspace cannot be renamed through a -m PARENT:rw mount" not test -e "$W.orig"
      check "bwrap $v: nor the dir above it" not test -e "$P/sub.orig"
    else
      check "bwrap $v, control: it can be without protection" test -e "$W/.git/hooks/pre-commit"
    fi
  done
done
[ "$T_FAILS" -eq 0 ] || { echo "--- blaude output:"; tail -n 60 "$T_DIR/out"; }
finish
