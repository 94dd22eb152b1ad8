#!/usr/bin/env bash
# Repositories that did not exist when the session started. Inside the real
# blaude (bwrap 0.8 and the overlay bwrap, as uid 65534) the agent makes a new repository with
# core.fsmonitor, commits in it and adds it to the workspace's repo as a gitlink; in a second
# workspace, one that is a subdirectory of a larger repo, it makes the workspace itself a repo.
# After blaude exits, the host's `git status` must run nothing. Controls: the same session with
# --allow-protected-writes (no audit) lets the host's git run the planted command; and each undo
# line of the report puts the planted file back, after which the host's git runs it again.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
NOBODY=65534
H="$T_DIR/home"
mkdir -p "$H/.claude" "$H/marks"
chown -R $NOBODY:$NOBODY "$H"

# The host's git, as the user: no system config, the test's HOME.
hostgit() { (cd "$1" && shift && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git "$@"); }
# sb DIR BWRAP_DIR [blaude options] -- SCRIPT: the real blaude runs SCRIPT in DIR's sandbox.
sb() {
  local dir=$1 bw=$2 opts=()
  shift 2
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "$dir" && env -i HOME="$H" PATH="$bw:/usr/bin:/bin" TERM=dumb \
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
    "$BLAUDE" "${opts[@]}" --exec sh -c "$1" </dev/null 2>"$T_DIR/sb.err" >"$T_DIR/sb.out")
}
# The marker is under $H: on the host a real dir, inside the sandbox $HOME is a tmpfs, so only
# the host's git can create it.
ran() { [ -e "$H/marks/$1" ]; }

# A new repo `sub` with fsmonitor, committed, then a gitlink to it in the workspace's index
# (the index stays writable so that agents can commit). fsmonitor comes last: git inside must
# not run it.
plant_sub='
  git init -q sub &&
  git -C sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m x &&
  git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub &&
  printf "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n" >.gitmodules &&
  git init -q node_modules/a/b/c/d/e/f/g/h/deep &&
  git -C node_modules/a/b/c/d/e/f/g/h/deep config core.fsmonitor "touch $HOME/marks/deep; false" &&
  git init -q nul &&
  printf "[core \"fsmonitor\\000\"]\n\tx = touch $HOME/marks/nul; false\n" >>nul/.git/config &&
  git -C sub config core.fsmonitor "touch $HOME/marks/sub; false"'
plant_root='
  git init -q . && git config core.fsmonitor "touch $HOME/marks/root; false"'

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  for mode in attack control; do
    opt=()
    [ $mode = control ] && opt=(--allow-protected-writes)
    rm -rf "$H/marks"/* "$T_DIR/ws" "$T_DIR/outer"
    # Case 1: the workspace is a repo; the agent adds a new one inside it.
    WS="$T_DIR/ws"
    mkdir -p "$WS" && chown $NOBODY:$NOBODY "$WS"
    hostgit "$WS" init -q . && hostgit "$WS" -c user.name=u -c user.email=u@h commit -q --allow-empty -m init
    rc=0
    sb "$WS" "$bw" "${opt[@]}" -- "$plant_sub" || rc=$?
    check_eq "$label $mode: the session ran" 0 "$rc"
    hostgit "$WS" status >/dev/null 2>&1 || true
    hostgit "$WS/sub" status >/dev/null 2>&1 || true
    hostgit "$WS/node_modules/a/b/c/d/e/f/g/h/deep" status >/dev/null 2>&1 || true
    hostgit "$WS/nul" status >/dev/null 2>&1 || true
    if [ $mode = attack ]; then
      check "$label: the host's git status runs nothing from the new repo" not ran sub
      check "$label: nor from a new repo 9 levels down in node_modules" not ran deep
      # git reads a key's name as a C string: [core "fsmonitor<NUL>"] x = CMD is core.fsmonitor.
      check "$label: nor from a key hidden behind a NUL in a subsection" not ran nul
      check "$label: the report names what it made inert" grep -q "sub/.git/config" "$T_DIR/sb.err"
      check "$label: the report says how to undo it" grep -q "undo: mv -f" "$T_DIR/sb.err"
      # Control of the control: the printed undo line brings the fsmonitor back.
      undo=$(grep "undo: mv -f .*sub/.git/config" "$T_DIR/sb.err" | sed 's/^ *undo: //')
      check "$label: one undo line for sub/.git/config" test -n "$undo"
      as_nobody sh -c "$undo" || true
      hostgit "$WS/sub" status >/dev/null 2>&1 || true
      check "$label: after the undo, the host's git runs the planted fsmonitor again" ran sub
    else
      check "$label control: without the audit the host's git runs the new repo's fsmonitor" ran sub
      check "$label control: and the deep one's" ran deep
      check "$label control: and the NUL-subsection one's (git reads it as core.fsmonitor)" ran nul
    fi
    # Case 2: the workspace is a subdirectory of a larger repo and becomes a repo itself.
    OUTER="$T_DIR/outer"
    mkdir -p "$OUTER/pkg" && chown -R $NOBODY:$NOBODY "$OUTER"
    hostgit "$OUTER" init -q .
    sb "$OUTER/pkg" "$bw" "${opt[@]}" -- "$plant_root" || true
    hostgit "$OUTER/pkg" status >/dev/null 2>&1 || true
    if [ $mode = attack ]; then
      check "$label: a workspace inside a larger repo made a repo: git status there runs nothing" not ran root
    else
      check "$label control: without the audit, git status there runs the fsmonitor" ran root
    fi
  done
done

# The audit says nothing when nothing changed.
rm -rf "$T_DIR/ws" && mkdir -p "$T_DIR/ws" && chown $NOBODY:$NOBODY "$T_DIR/ws"
hostgit "$T_DIR/ws" init -q .
sb "$T_DIR/ws" /usr/bin -- 'git status >/dev/null; echo ok'
check "a session that plants nothing gets no audit report" not grep -q "git repositories" "$T_DIR/sb.err"
finish
