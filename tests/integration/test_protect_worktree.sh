#!/usr/bin/env bash
# A linked worktree as the workspace, through the real blaude as uid 65534, with bwrap 0.8 and
# the overlay-capable bwrap, the protections made by the protect helper and as bwrap options:
# git works inside (status, add, commit, branch, rebase) and the host's git sees the result; the
# main repository's code-bearing files (hooks, config, config.worktree, the worktree pointers)
# cannot be written from the worktree, or a new one is undone by the exit audit, and nothing of
# the main checkout's tree shows. Each attack runs twice: protected (must not land) and with
# --allow-protected-writes (the control: must land, so a landing would show). A hostile `.git`
# file gets the old behaviour (git fails inside), a warning, and no mount.
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v git >/dev/null || missing "git is not installed"
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
if [ -x "$OVERLAY" ]; then BWRAPS+=("$OVERLAY"); else echo "note: no overlay bwrap at $OVERLAY; bwrap 0.8 only"; fi
[ "${CI:-}" = true ] && [ ! -x "$OVERLAY" ] && { fail "CI: the overlay bwrap is missing ($OVERLAY)"; finish; exit 1; }

# The repositories live under $HOME, which is a tmpfs in the sandbox: only what blaude binds of
# them is there (under /tmp, the sandbox's rw /tmp would show them anyway).
H="$T_DIR/home"
mkdir -p "$H/.claude"
chown -R 65534:65534 "$T_DIR/home"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
g() { git -c init.defaultBranch=main "$@" >/dev/null 2>&1; }
hg() { git -c safe.directory='*' "$@" 2>&1; }

# make_repo DIR: DIR/main (a commit, an untracked file, worktreeConfig with config.worktree in the
# main checkout and in `feature`), its linked worktrees DIR/feature and DIR/other; main one
# commit ahead of feature's base, for the rebase.
make_repo() {
  local d=$1
  rm -rf "$d"
  mkdir -p "$d"
  g init "$d/main"
  echo one >"$d/main/file" && g -C "$d/main" add file && g -C "$d/main" commit -m one
  g -C "$d/main" worktree add -b feature "$d/feature"
  g -C "$d/main" worktree add -b other "$d/other"
  echo two >"$d/main/file2" && g -C "$d/main" add file2 && g -C "$d/main" commit -m two
  echo secret >"$d/main/untracked-secret"
  g -C "$d/main" config extensions.worktreeConfig true
  g -C "$d/main" config --worktree core.fsmonitor false
  g -C "$d/feature" config --worktree core.fsmonitor false
  chown -R 65534:65534 "$d"
  chown 65534:65534 "$H"
}

# run NAME BWRAP WS [blaude options] -- SCRIPT: SCRIPT in the sandbox from WS, as uid 65534;
# stdout in $T_DIR/NAME.out, stderr in $T_DIR/NAME.err. SB_ENV: extra variables.
SB_ENV=()
run() {
  local name=$1 bw=$2 w=$3
  shift 3
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  (cd "$w" && env -i HOME="$H" PATH="$(dirname "$bw"):/usr/bin:/bin" TERM=dumb "${SB_ENV[@]}" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard "${opts[@]}" --exec sh -c "$2" </dev/null >"$T_DIR/$name.out" 2>"$T_DIR/$name.err") ||
    echo "(blaude exited $?)" >>"$T_DIR/$name.err"
}
# The mount points in the sandbox, one a line (what `run` printed from /proc/self/mountinfo).
mounted() { grep -qxF -- "$2" <(sed -n 's/^MNT //p' "$T_DIR/$1.out"); }
list_mounts='awk "{print \"MNT \" \$5}" /proc/self/mountinfo'

for bw in "${BWRAPS[@]}"; do
  v=$("$bw" --version | awk '{print $2}')
  forms=(helper)
  [ "$bw" = /usr/bin/bwrap ] && forms+=(bwrap-options)
  for form in "${forms[@]}"; do
    SB_ENV=()
    [ "$form" = bwrap-options ] && SB_ENV=(BLAUDE_PROTECT_MOUNTS=bwrap-options)
    tag="$v-$form"

    # --- The positive path: git works in the worktree, and the host's git sees it.
    D="$H/src-ok-$tag"
    make_repo "$D"
    M="$D/main"
    # Old enough for gc's own `worktree prune` (gc.worktreePruneExpire: 3 months).
    touch -d 2020-01-01 "$M"/.git/worktrees/*/gitdir
    run "ok-$tag" "$bw" "$D/feature" -- "set -e
      git status --porcelain >/dev/null && echo status-ok
      test \"\$(git config --worktree core.fsmonitor)\" = false && echo config.worktree-read
      echo x >f && git add f && git -c user.name=t -c user.email=t@example.invalid commit -qm inside && echo commit-ok
      git branch topic && echo branch-ok
      git -c user.name=t -c user.email=t@example.invalid rebase -q main && echo rebase-ok
      git log --format=%s >log.txt; cat log.txt; rm log.txt
      git worktree prune 2>/dev/null || true; git gc -q --prune=now 2>/dev/null || true; echo pruned
      test ! -e $M/file && test ! -e $M/untracked-secret && echo tree-hidden
      $list_mounts"
    for step in status-ok config.worktree-read commit-ok branch-ok rebase-ok pruned tree-hidden; do
      check "bwrap $tag: in the worktree: $step" grep -qx "$step" "$T_DIR/ok-$tag.out"
    done
    check "bwrap $tag: the repository is mounted at its host path inside" mounted "ok-$tag" "$M/.git"
    check "bwrap $tag: the main checkout itself is not mounted" not mounted "ok-$tag" "$M"
    check_eq "bwrap $tag: host git: the commit made inside, rebased onto main" "inside two one" \
      "$(hg -C "$D/feature" log --format=%s | tr '\n' ' ' | sed 's/ $//')"
    check_eq "bwrap $tag: host git: the branch made inside" "topic" "$(hg -C "$M" branch --list topic | tr -d ' *')"
    check_eq "bwrap $tag: host git: the worktree is clean" "" "$(hg -C "$D/feature" status --porcelain)"
    check_eq "bwrap $tag: host git: the main checkout is as it was" "?? untracked-secret" "$(hg -C "$M" status --porcelain)"
    check_eq "bwrap $tag: host git: worktree list, nothing prunable" "3 0" \
      "$(hg -C "$M" worktree list --porcelain | grep -c '^worktree ') $(hg -C "$M" worktree list --porcelain | grep -c prunable || true)"
    check_eq "bwrap $tag: host git: the other worktree survived the prune" "" "$(hg -C "$D/other" status --porcelain)"
    # Its control: without the protections the same prune deletes the other worktree's git dir.
    D2="$H/src-prune-$tag"
    make_repo "$D2"
    run "prune-$tag" "$bw" "$D2/feature" --allow-protected-writes -- "git worktree prune 2>/dev/null || true"
    check "bwrap $tag, control: unprotected, a prune inside deletes the other worktree's git dir" \
      not test -e "$D2/main/.git/worktrees/other/HEAD"
    check "bwrap $tag: the exit audit left the session's commit alone" not grep -q 'the session left' "$T_DIR/ok-$tag.err"
    check_eq "bwrap $tag: nothing moved aside in the repository" "" "$(find "$M/.git" -name '*blaude-audit*')"

    # --- The attacks, each with its control.
    attack="
      echo '[core] fsmonitor = evil' >>$M/.git/config
      echo evil >$M/.git/hooks/pre-commit
      echo '[core] fsmonitor = evil' >>$M/.git/config.worktree
      echo '[core] fsmonitor = evil' >>$M/.git/worktrees/feature/config.worktree
      echo '[core] fsmonitor = evil' >$M/.git/worktrees/other/config.worktree
      echo evil >>$M/.git/worktrees/feature/commondir
      echo evil >>$M/.git/worktrees/other/commondir
      echo evil >>$M/.git/worktrees/other/gitdir
      echo evil >$M/.git/worktrees/other/HEAD
      mkdir -p $M/.git/worktrees/other/rebase-merge && echo 'exec evil' >$M/.git/worktrees/other/rebase-merge/git-rebase-todo
      mkdir -p $M/.git/rebase-merge && echo 'exec evil' >$M/.git/rebase-merge/git-rebase-todo
      echo evil >>$M/file
      cat $M/untracked-secret && echo read-secret
      true"
    landed=(
      "the main repository's config|.git/config"
      "its hooks|.git/hooks/pre-commit"
      "the main checkout's config.worktree|.git/config.worktree"
      "this worktree's config.worktree|.git/worktrees/feature/config.worktree"
      "another worktree's new config.worktree (the exit audit's)|.git/worktrees/other/config.worktree"
      "this worktree's commondir|.git/worktrees/feature/commondir"
      "another worktree's commondir|.git/worktrees/other/commondir"
      "another worktree's gitdir|.git/worktrees/other/gitdir"
      "another worktree's HEAD|.git/worktrees/other/HEAD"
      "a rebase's todo planted for another worktree (the exit audit's)|.git/worktrees/other/rebase-merge/git-rebase-todo"
      "a rebase's todo planted for the main checkout (the exit audit's)|.git/rebase-merge/git-rebase-todo"
    )
    for mode in attack control; do
      D="$H/src-$mode-$tag"
      make_repo "$D"
      M="$D/main"
      a=$(sed "s|$H/src-ok-$tag/main|$M|g" <<<"$attack")
      if [ $mode = attack ]; then run "$mode-$tag" "$bw" "$D/feature" -- "$a"; else run "$mode-$tag" "$bw" "$D/feature" --allow-protected-writes -- "$a"; fi
      for l in "${landed[@]}"; do
        IFS='|' read -r what path <<<"$l"
        if [ $mode = attack ]; then
          check "bwrap $tag: from the worktree, $what is not written (or undone)" not grep -q evil "$M/$path"
        else
          check "bwrap $tag, control: $what is written without protection" grep -q evil "$M/$path"
        fi
      done
      # The main checkout's tree is not in the sandbox at all, protections or not: its content
      # is checked, and the host user could write and read it (so the sandbox is what stops it).
      check "bwrap $tag ($mode): the main checkout's files are not written" not grep -q evil "$M/file"
      check "bwrap $tag ($mode): nor read" not grep -q read-secret "$T_DIR/$mode-$tag.out"
      [ $mode = attack ] && check "bwrap $tag: the audit says what it undid" grep -q 'worktrees/other/config.worktree' "$T_DIR/$mode-$tag.err"
    done
    check "control: the host user can write the main checkout's file" as_nobody test -w "$M/file"
    check "control: and read its untracked file" as_nobody grep -q secret "$M/untracked-secret"

    # --- Hostile `.git` files: the old behaviour (git fails inside), a warning, no mount.
    D="$H/src-hostile-$tag"
    make_repo "$D"
    M="$D/main"
    mkdir -p "$H/.ssh/worktrees/x/" "$H/.ssh/objects" "$H/.ssh/refs" && echo 'ref: refs/heads/x' >"$H/.ssh/HEAD"
    cp "$H/.ssh/HEAD" "$H/.ssh/worktrees/x/HEAD" && echo ../.. >"$H/.ssh/worktrees/x/commondir"
    ln -sfn "$M" "$D/link"
    hostile=(
      "gitdir: \$HOME|$H|gitdir: $H"
      "gitdir: /|/|gitdir: /"
      "a fake repository in ~/.ssh with git's shape and back-pointer|$H/.ssh|gitdir: $H/.ssh/worktrees/x"
      "another worktree's pointer (its back-pointer names that one)|$M/.git|gitdir: $M/.git/worktrees/feature"
      "a gitdir reached through a symlink|$D/link/.git|gitdir: $D/link/.git/worktrees/other"
    )
    # The baseline: a `.git` file naming nothing there; every hostile one must mount the same.
    mkdir -p "$D/ws0" && echo "gitdir: $D/nothing/.git/worktrees/x" >"$D/ws0/.git" && chown -R 65534:65534 "$D/ws0"
    run "hostile0-$tag" "$bw" "$D/ws0" -- "git status >/dev/null 2>&1 && echo git-ok; $list_mounts"
    mounts_of() { sed -n 's/^MNT //p' "$T_DIR/$1.out" | sed "s|^$D/ws[0-9]*|/W|" | sort; }
    check "bwrap $tag: the baseline lists its mounts" grep -q "^MNT $D/ws0\$" "$T_DIR/hostile0-$tag.out"
    i=0
    for h in "${hostile[@]}"; do
      IFS='|' read -r what where line <<<"$h"
      i=$((i+1))
      W="$D/ws$i"
      mkdir -p "$W" && echo "$line" >"$W/.git"
      echo "$W/.git" >"$H/.ssh/worktrees/x/gitdir"
      [ $i = 5 ] && { echo "$W/.git" >"$M/.git/worktrees/other/gitdir"; }
      chown -R 65534:65534 "$W" "$H/.ssh" "$M/.git/worktrees/other"
      run "hostile$i-$tag" "$bw" "$W" -- "git status >/dev/null 2>&1 && echo git-ok; $list_mounts"
      check "bwrap $tag: $what: refused with a warning" grep -q 'is not followed' "$T_DIR/hostile$i-$tag.err"
      check "bwrap $tag: $what: git fails inside, as before" not grep -qx git-ok "$T_DIR/hostile$i-$tag.out"
      check_eq "bwrap $tag: $what: no mount beyond a plain workspace's" "$(mounts_of "hostile0-$tag")" "$(mounts_of "hostile$i-$tag")"
      [ "$where" = / ] || [ "$where" = "$H" ] || check "bwrap $tag: $what: nothing mounted at $where" not mounted "hostile$i-$tag" "$where"
      check "bwrap $tag: $what: nor the repository" not mounted "hostile$i-$tag" "$M/.git"
    done
    # The control of the last one: the same worktree, its pointer through the real path, works.
    echo "gitdir: $M/.git/worktrees/other" >"$D/ws5/.git"
    run "hostile-ctl-$tag" "$bw" "$D/ws5" -- "git status >/dev/null 2>&1 && echo git-ok; $list_mounts"
    check "bwrap $tag, control: the same worktree by its real path works" grep -qx git-ok "$T_DIR/hostile-ctl-$tag.out"
    check "bwrap $tag, control: and its repository is mounted" mounted "hostile-ctl-$tag" "$M/.git"
    rm -rf "$H/.ssh"
  done
done
[ "$T_FAILS" -eq 0 ] || for f in "$T_DIR"/*.err; do echo "--- $f:"; tail -n 20 "$f"; done
finish
