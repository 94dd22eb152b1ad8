#!/usr/bin/env bash
# The window during the session (app/live_audit.hpp). test_escapes_audit shows that after the
# session the host's `git status` runs nothing the agent planted in a new repository. This one is
# about the time BEFORE the audit at exit: while the agent still works, it makes a new repository
# `sub` with core.fsmonitor in its config and adds it to the workspace's index as a gitlink (the
# index stays writable: agents commit). The user types `git status` in the workspace in another
# terminal on the host: git enters the gitlink's repository and would run its fsmonitor command
# on the host, outside every sandbox. The watcher makes the config inert as it appears.
#
# Through the real blaude, as uid 65534, with both bwraps:
#   - the attack in both orders (the config planted before the gitlink, and after it), through an
#     include file, through a `.git` file naming a gitdir in the host's /tmp (shared with the
#     sandbox, not audited), and through an index whose gitlink names a repository in /tmp by
#     its absolute path (git never writes one, but enters it): the agent's own view shows when
#     the key (or the pointer, or the index) was gone: the window, in ms; after it, the host's git
#     status, run as often as a prompt would, runs nothing while the session still runs;
#   - a new repository no index names (the user would have to be in it): made inert within the
#     period of the walk that runs without an event;
#   - control: BLAUDE_LIVE_AUDIT=off, the same attack: the host's git status runs it mid-session;
#   - an agent that keeps putting the key back: the session is ended, and says why.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs
mkdir -p "$H/marks" && chown $NOBODY:$NOBODY "$H/marks"
OUT_GITDIR=/tmp/blaude-fsm-$$
at_exit "rm -rf $OUT_GITDIR"

hostgit() { (cd "$WS" && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git "$@"); }

# Inside: make the repository, plant as $2 says, write the time of the plant and of the moment
# the agent's own view no longer has the key (both in ms), then wait for the host.
#   $1: the marks dir; $2: before | after | include | loose | outside | index; $3 (outside, index):
#   a repository in the host's /tmp, which the sandbox shares and the audit does not walk
plant='
  set -e
  ms() { echo $(($(date +%s%N) / 1000000)); }
  S=${4:-sub}
  mkdir -p "$(dirname "$S")"
  cfg=$S/.git/config
  link() { git update-index --add --cacheinfo 160000,$(git -C $S rev-parse HEAD),$S; }
  bad="date +%s%N >$1/marks/ran; false"
  if [ "$2" != outside ]; then
    git init -q $S
    git -C $S -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
  fi
  case $2 in
    before)  git -C $S config core.fsmonitor "$bad"; t=$(ms); link ;;
    after)   link; sleep 0.3; git -C $S config core.fsmonitor "$bad"; t=$(ms) ;;
    include) link; sleep 0.3; printf "[core]\n\tfsmonitor = %s\n" "$bad" >inc.cfg
             git -C $S config include.path ../../inc.cfg; t=$(ms); cfg=inc.cfg ;;
    loose)   git -C $S config core.fsmonitor "$bad"; t=$(ms) ;;
    index)   rm -rf "$3"; git init -q "$3"
             git -C "$3" -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
             git -C "$3" config core.fsmonitor "$bad"
             python3 .mkindex.py .git/index "$3"; t=$(ms); cfg=.git/index ;;
    outside) rm -rf "$3"; git init -q "$3"
             git -C "$3" -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
             git -C "$3" config core.fsmonitor "$bad"; mkdir sub
             echo "gitdir: $3/.git" >sub/.git; t=$(ms); link; cfg=sub/.git ;;
  esac
  echo $t >.planted
  present() {
    case $2 in
      outside) test -e $cfg ;;
      index) grep -q "$3" $cfg 2>/dev/null ;;
      *) grep -q fsmonitor $cfg 2>/dev/null ;;
    esac
  }
  i=0; while present "$@" && [ $i -lt 3000 ]; do i=$((i+1)); done
  ms >.gone
  i=0; while [ ! -e .done ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
  rm -f .done .planted .gone'

# An index whose one entry is a gitlink at an absolute path (git never writes one, but reads and
# enters it): python3 .mkindex.py OUT PATH (copied into the workspace for the agent).
cat >"$H/mkindex.py" <<'EOF'
import struct, sys
p = sys.argv[2].encode()
e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o160000, 0, 0, 0) + bytes(20) + struct.pack(">H", len(p)) + p
e += bytes(8 - len(e) % 8)
open(sys.argv[1], "wb").write(b"DIRC" + struct.pack(">II", 2, 1) + e + bytes(20))
EOF

# attack LABEL BWRAP_DIR MODE: one session. Sets WINDOW (ms from the plant to the agent seeing
# it gone, "" if it never did), RAN (yes/no: the host's git status, run after that while the
# session runs, ran the planted command), RUNNING (yes/no: the session still ran after the host's
# last git status) and RC (blaude's exit code).
attack() {
  local label=$1 bw=$2 mode=$3 n=0 bpid
  rm -rf "$WS" "$H/marks"/*
  mkdir -p "$WS" && cp "$H/mkindex.py" "$WS/.mkindex.py" && chown -R $NOBODY:$NOBODY "$WS"
  hostgit init -q . && hostgit -c user.name=u -c user.email=u@h commit -q --allow-empty -m init
  sb_nobody "$bw" -- "$plant" "$H" "$mode" "$OUT_GITDIR" "${SUB:-sub}" >"$T_DIR/sb.out" &
  bpid=$!
  wait_until test -s "$WS/.planted" || wait_until test -s "$WS/.planted" || wait_until test -s "$WS/.planted" ||
    fail "$label: the agent's plant did not finish: $(cat "$T_DIR/sb.err")"
  # The agent's own view: when the plant is gone (the window), or up to 10 s (the control).
  wait_until test -s "$WS/.gone" || true
  WINDOW=""
  [ -s "$WS/.gone" ] && WINDOW=$(($(cat "$WS/.gone") - $(cat "$WS/.planted")))
  # Then the user's `git status` in another terminal, as often as a prompt that shows git state
  # would run it, for 0.5 s, while the session still runs. (Not from the plant on: a host git
  # status that lands inside the window may run it, which is the window the log line measures,
  # and a test that raced it would pass or fail by the machine's load.) In the loose mode the
  # workspace's index does not name sub: the user is in it.
  while [ ! -e "$H/marks/ran" ] && [ $n -lt 10 ]; do
    if [ "$mode" = loose ]; then
      (cd "$WS/sub" && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git status --porcelain >/dev/null 2>&1) || true
    else
      hostgit status --porcelain >/dev/null 2>&1 || true
    fi
    n=$((n+1))
    sleep 0.05
  done
  RUNNING=$(kill -0 $bpid 2>/dev/null && echo yes || echo no)
  RAN=$(test -e "$H/marks/ran" && echo yes || echo no)
  touch "$WS/.done"
  RC=0
  wait $bpid || RC=$?
  [ "$RC" = 0 ] || log "$label: blaude exited $RC: $(head -c 600 "$T_DIR/sb.err")"
}

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  for mode in before after include outside index; do
    attack "$label, $mode" "$bw" $mode
    check "$label, $mode: once made inert, the host's git status ran nothing while the session ran" test "$RAN$RUNNING" = noyes
    check "$label, $mode: the agent saw it gone (window ${WINDOW:-?} ms)" test -n "$WINDOW"
    check "$label, $mode: blaude exited 0" test "$RC" = 0
    check "$label, $mode: the report says it was made inert during the session" grep -q "during the session" "$T_DIR/sb.err"
    [ -n "$WINDOW" ] && log "$label, $mode: the plant was gone ${WINDOW} ms after the agent's write"
  done
done

# A repository no index names: the walk without an event finds it within its period, 0.5 s (what
# remains: docs/policy.md); the bound below leaves room for a loaded machine.
attack "loose" /usr/bin loose
check "loose: made inert within the walk's period (${WINDOW:-?} ms, under 3 s)" test -n "$WINDOW" -a "${WINDOW:-9999}" -lt 3000
check "loose: after that, git status in it ran nothing while the session ran" test "$RAN$RUNNING" = noyes
[ -n "$WINDOW" ] && log "loose repository: the plant was gone ${WINDOW} ms after the agent's write"

# A walk that stops at its limit (made to stop 2 levels down here; an agent can make a tree too
# big for it): the gitlink 5 levels down is walked on its own, so the attack is closed as fast.
SB_ENV=(BLAUDE_TEST_LIVE_WALK_DEPTH=2)
SUB=d1/d2/d3/d4/sub attack "deep" /usr/bin before
check "deep: once made inert, the host's git status ran nothing while the session ran" test "$RAN$RUNNING" = noyes
check "deep: the agent saw it gone (window ${WINDOW:-?} ms)" test -n "$WINDOW"
[ -n "$WINDOW" ] && log "deep, past the walk's limit: the plant was gone ${WINDOW} ms after the agent's write"
SB_ENV=()

# Control: without the watcher the same attack runs on the host mid-session.
SB_ENV=(BLAUDE_LIVE_AUDIT=off)
attack "control" /usr/bin before
check "control (BLAUDE_LIVE_AUDIT=off): the host's git status ran the planted fsmonitor mid-session" test "$RAN$RUNNING" = yesyes
check "control: the exit audit still closes it" grep -q "fsmonitor" "$T_DIR/sb.err"
SB_ENV=()
rm -f "$H/marks/ran"
hostgit status --porcelain >/dev/null 2>&1 || true
check "after every session the host's git status runs nothing" test ! -e "$H/marks/ran"

# After the session: an index naming a repository in /tmp by its absolute path, left by a
# session without the watcher. The exit audit moves the index aside; control: with
# --allow-protected-writes (no audit) the host's git status runs the planted command.
quick='
  git init -q "$2" && git -C "$2" -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
  git -C "$2" config core.fsmonitor "date +%s%N >$1/marks/ran; false"
  python3 .mkindex.py .git/index "$2"'
for opt in "" --allow-protected-writes; do
  rm -rf "$WS" "$H/marks"/* "$OUT_GITDIR"
  mkdir -p "$WS" && cp "$H/mkindex.py" "$WS/.mkindex.py" && chown -R $NOBODY:$NOBODY "$WS"
  hostgit init -q . && hostgit -c user.name=u -c user.email=u@h commit -q --allow-empty -m init
  SB_ENV=(BLAUDE_LIVE_AUDIT=off)
  sb_nobody /usr/bin $opt -- "$quick" "$H" "$OUT_GITDIR" >"$T_DIR/sb.out" || true
  SB_ENV=()
  hostgit status --porcelain >/dev/null 2>&1 || true
  if [ -z "$opt" ]; then
    check "index after the session: the host's git status runs nothing" test ! -e "$H/marks/ran"
    check "index after the session: the report names the index" grep -q "names a nested repository outside its work tree" "$T_DIR/sb.err"
  else
    check "index after the session, control ($opt): the host's git status ran it" test -e "$H/marks/ran"
  fi
done

# An agent that keeps putting the key back: each time is a window, so the session is ended.
loop='
  git init -q sub
  git -C sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
  git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub
  i=0; while [ $i -lt 400 ]; do git -C sub config core.fsmonitor "touch $1/marks/loop$i" 2>/dev/null; sleep 0.02; i=$((i+1)); done
  echo survived >.survived'
rm -rf "$WS" "$H/marks"/* && mkdir -p "$WS" && chown $NOBODY:$NOBODY "$WS"
hostgit init -q . && hostgit -c user.name=u -c user.email=u@h commit -q --allow-empty -m init
rc=0
sb_nobody /usr/bin -- "$loop" "$H" >"$T_DIR/sb.out" || rc=$?
check "loop: the session was ended before the agent's loop finished (exit $rc)" test ! -e "$WS/.survived" -a "$rc" != 0
check "loop: and blaude said why" grep -q "the session was ended" "$T_DIR/sb.err"
hostgit status --porcelain >/dev/null 2>&1 || true
check "loop: after it the host's git status runs nothing" test -z "$(ls "$H/marks")"

finish
