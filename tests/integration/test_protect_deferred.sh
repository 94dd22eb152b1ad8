#!/usr/bin/env bash
# The workspace scan runs while bwrap starts (sandbox/bwrap/plan/deferred.hpp): through the real blaude,
# as uid 65534, with BLAUDE_SCAN=defer (the default wherever the protect helper runs, also for a
# small tree whose scan is done before the plan; named here so the test keeps its meaning), the protections the scan finds after bwrap's spawn still hold
# before the command runs: a nested repo's config and hooks at depth 2 and at depth 6 under
# node_modules, the workspace's own hooks, a protected name (.vscode); the scan's warning (a link
# leaving the tree) is printed; and the audit's snapshot, taken from the same late scan, still
# catches a repository the agent creates. Controls: --allow-protected-writes (every write lands),
# and BLAUDE_SCAN=sync gives the same results without the late path (the log says which ran), as
# do the protections as bwrap options. ~4 s.
. "$(dirname "$0")/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v git >/dev/null || skip "git is not installed"
H="$T_DIR/home"
mkdir -p "$H/.claude"
chown -R 65534:65534 "$H"
LOG="$H/.local/state/blaude/blaude.log"

make_ws() {  # make_ws NAME
  local w="$T_DIR/ws-$1"
  mkdir -p "$w/packages/a" "$w/node_modules/x/y/z/w/deep" "$w/.vscode"
  git init -q "$w" && git init -q "$w/packages/a" && git init -q "$w/node_modules/x/y/z/w/deep"
  echo '{}' >"$w/.vscode/tasks.json"
  ln -s "$T_DIR" "$w/tmp-link"
  chown -R 65534:65534 "$w"
  echo "$w"
}

ATTACK='for r in . packages/a node_modules/x/y/z/w/deep; do
  echo "[core] fsmonitor = evil" >>$r/.git/config; echo evil >$r/.git/hooks/pre-commit; done
  echo evil >.vscode/tasks.json
  git init -q newrepo && git -C newrepo config core.fsmonitor "touch /tmp/evil-deferred"; true'

run() {  # run WS OUT [env and blaude options...]
  local w=$1 out=$2
  shift 2
  local envs=() opts=()
  for a in "$@"; do case $a in *=*) envs+=("$a") ;; *) opts+=("$a") ;; esac; done
  rm -f "$LOG"
  (cd "$w" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb BLAUDE_LOG=info "${envs[@]}" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" --no-clipboard "${opts[@]}" --exec sh -c "$ATTACK" </dev/null >"$out" 2>&1) || echo "(blaude exited $?)" >>"$out"
  cp "$LOG" "$out.log" 2>/dev/null || : >"$out.log"
}

protected() {  # protected WS: none of the writes landed
  local w=$1
  for r in . packages/a node_modules/x/y/z/w/deep; do
    grep -qs evil "$w/$r/.git/config" && return 1
    [ -e "$w/$r/.git/hooks/pre-commit" ] && return 1
  done
  grep -q evil "$w/.vscode/tasks.json" && return 1
  return 0
}

ATTACK0=$ATTACK
# options: the protections as bwrap options (no helper): the scan cannot wait, so it is waited
# for before the plan even when asked to defer.
for mode in defer sync options; do
  W=$(make_ws $mode)
  if [ $mode = options ]; then
    run "$W" "$T_DIR/$mode.out" BLAUDE_SCAN=defer BLAUDE_PROTECT_MOUNTS=bwrap-options
  else
    run "$W" "$T_DIR/$mode.out" BLAUDE_SCAN=$mode
  fi
  if [ $mode = defer ]; then
    check "defer: the scan finished after bwrap's spawn" grep -q "scan finished after bwrap's start" "$T_DIR/$mode.out.log"
  else
    check "sync: the scan came before the plan" not grep -q "scan finished after bwrap's start" "$T_DIR/$mode.out.log"
  fi
  check "$mode: nested repos at depth 2 and 6, the workspace's hooks and .vscode stay unwritten" protected "$W"
  check "$mode: the scan's warning about a link leaving the tree is printed" grep -q "tmp-link -> $T_DIR\$" "$T_DIR/$mode.out"
  check "$mode: the audit made the agent's new repo inert" grep -q "newrepo/.git/config" "$T_DIR/$mode.out"
  check "$mode: the audit's snapshot was taken before the session" grep -q "audit: before the session: 3 repos" "$T_DIR/$mode.out.log"
done

# The audit's snapshot from the late scan is taken before the helper's fork: the command starts
# only after it. Made visible by delaying the snapshot 400 ms: the command's first act (its
# clock) must come after the log's "audit: before the session" line (written when the snapshot
# is done). Control, by hand (the snapshot moved after the helper's fork): the command started
# 344 ms before that line.
W=$(make_ws order)
ATTACK='date +%s%3N >start-ms'
run "$W" "$T_DIR/order.out" BLAUDE_SCAN=defer BLAUDE_TEST_AUDIT_DELAY_MS=400
snap_line=$(grep -o '^[0-9T:.-]* [0-9]* info audit: before the session' "$T_DIR/order.out.log" | cut -d' ' -f1)
snap_ms=$( [ -n "$snap_line" ] && date -d "${snap_line/T/ }" +%s%3N)
cmd_ms=$(cat "$W/start-ms" 2>/dev/null)
echo "snapshot done at $snap_ms, command started at $cmd_ms" >>"$T_DIR/order.out"
check "order: the deferred path ran" grep -q "scan finished after bwrap's start" "$T_DIR/order.out.log"
check "order: the command started after the audit's snapshot was done" test "${cmd_ms:-0}" -ge "${snap_ms:-9999999999999}"

W=$(make_ws control)
ATTACK=$ATTACK0
run "$W" "$T_DIR/control.out" BLAUDE_SCAN=defer --allow-protected-writes
check "control: without the protections the writes land" not protected "$W"
check "control: the deep nested repo's hook is written" test -e "$W/node_modules/x/y/z/w/deep/.git/hooks/pre-commit"

[ "$T_FAILS" = 0 ] || { for f in "$T_DIR"/*.out "$T_DIR"/*.out.log; do echo "== $f"; cat "$f"; done; }
finish
