#!/usr/bin/env bash
# The workspace walk skips listing dirs without subdirs (their link count says so): through the real
# blaude, as uid 65534, bwrap 0.8, a `.git` file and a `.git` symlink sitting in such dirs, deep
# in the tree (below the depths whose names and links the walk reports) and among many files,
# still lead the scan to their gitdir: the gitdir (outside the workspace, writable through the
# sandbox's /tmp) keeps its config and hooks read-only, and the pointer file cannot be rewritten.
# Control: --allow-protected-writes, where every write lands. ~2 s.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v git >/dev/null || skip "git is not installed"
H="$T_DIR/home"
mkdir -p "$H/.claude"
chown -R 65534:65534 "$H"

make_ws() {  # make_ws MODE: a workspace and two gitdirs outside it, reached only from leaf dirs
  local w="$T_DIR/ws-$1" g="$T_DIR/gd-$1"
  mkdir -p "$w/node_modules/pkg/dist/esm/one" "$w/node_modules/pkg/dist/esm/two"
  for i in $(seq 1 60); do : >"$w/node_modules/pkg/dist/esm/one/f$i.js"; : >"$w/node_modules/pkg/dist/esm/two/f$i.js"; done
  for d in file link; do
    git init -q "$g/$d" && mkdir -p "$g/$d/.git/hooks"
  done
  echo "gitdir: $g/file/.git" >"$w/node_modules/pkg/dist/esm/one/.git"
  ln -s "$g/link/.git" "$w/node_modules/pkg/dist/esm/two/.git"
  chown -R 65534:65534 "$w" "$g"
  echo "$w"
}

attack() {  # attack MODE: what the agent writes
  local g="$T_DIR/gd-$1"
  echo "echo '[core] fsmonitor = evil' >>$g/file/.git/config; echo evil >$g/file/.git/hooks/pre-commit;
    echo '[core] fsmonitor = evil' >>$g/link/.git/config; echo evil >$g/link/.git/hooks/pre-commit;
    echo 'gitdir: /evil' >node_modules/pkg/dist/esm/one/.git; true"
}

run() {  # run WS [blaude options] -- SCRIPT
  local w=$1
  shift
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  (cd "$w" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard "${opts[@]}" --exec sh -c "$2" </dev/null >>"$T_DIR/out" 2>&1) || echo "(blaude exited $?)" >>"$T_DIR/out"
}

for mode in attack control; do
  W=$(make_ws $mode)
  G="$T_DIR/gd-$mode"
  # The dirs really are leaves (else this test would not reach the skip it is about).
  check "$mode: the .git files sit in dirs without subdirs" test "$(stat -c %h "$W/node_modules/pkg/dist/esm/one")" = 2
  if [ $mode = attack ]; then run "$W" -- "$(attack $mode)"; else run "$W" --allow-protected-writes -- "$(attack $mode)"; fi
  for p in file/.git/config file/.git/hooks/pre-commit link/.git/config link/.git/hooks/pre-commit; do
    if [ $mode = attack ]; then
      check "the gitdir behind a leaf's .git ($p) cannot be written" not grep -qs evil "$G/$p"
    else
      check "control: $p is written without the protection" grep -q evil "$G/$p"
    fi
  done
  if [ $mode = attack ]; then
    check "a leaf's .git file cannot be re-pointed" not grep -q evil "$W/node_modules/pkg/dist/esm/one/.git"
  else
    check "control: the .git file is re-pointed without the protection" grep -q evil "$W/node_modules/pkg/dist/esm/one/.git"
  fi
done
[ "$T_FAILS" = 0 ] || cat "$T_DIR/out"
finish
