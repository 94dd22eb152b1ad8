#!/usr/bin/env bash
# The audit's baseline outlives blaude's process (app/journal.hpp): through the real blaude as
# uid 65534. Attacks: (1) the agent plants a hook in ~/.claude/settings.json and blaude is
# SIGKILLed mid-session, so its audit never runs: the next start must audit the dead session's
# files against its start before its own session; (2) two sessions at once: B starts while A's
# agent has planted the hook, A ends first (and sets the file back), B ends last: B must not take
# A's plant as its baseline and put it back; (3) and (4) the same two with a new nested repository
# whose config has core.fsmonitor (the repositories' start is journaled too). Controls: the journal
# under a dir the sandbox can write is refused (logged), and then every attack leaves its plant.
. "$(dirname "$0")/lib.sh"

need_sandbox
sandbox_dirs
BW=/usr/bin
USER_SETTINGS='{"model": "sonnet"}'
PLANT='{"model": "sonnet", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch /tmp/pwned"}]}]}}'

fresh() {
  rm -rf "$H" "$WS"
  mkdir -p "$H/.claude" "$WS"
  printf '%s\n' "$USER_SETTINGS" >"$H/.claude/settings.json"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
}
aside_of() { ls -d "$1".blaude-audit-* 2>/dev/null | head -1; }
# start LOG SCRIPT [XDG_STATE_HOME]: a session in the background; PID is blaude's. EXTRA_ENV:
# more NAME=VALUE words for blaude's environment.
EXTRA_ENV=""
start() {
  (cd "$WS" && exec env -i HOME="$H" PATH="$BW:/usr/bin:/bin" TERM=dumb ${3:+XDG_STATE_HOME="$3"} $EXTRA_ENV \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --exec sh -c "$2" </dev/null >/dev/null 2>"$1") &
  PID=$!
}
wait_for() {  # wait_for FILE: up to 60 s
  local i
  for i in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}
wait_pid() {  # wait_pid PID: up to 60 s; RC its status
  local i
  for i in $(seq 600); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  RC=0
  wait "$1" 2>/dev/null || RC=$?
}
settings_has_hook() { grep -q pwned "$H/.claude/settings.json"; }
# The audit writes the file back as JSON of its own layout: compare what it says, not its text.
settings_are_users() {
  python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != {"model": "sonnet"})' "$H/.claude/settings.json"
}

# The journal's home: blaude shares the host's /tmp with the sandbox (and $H is under it), so
# the default ~/.local/state would be refused; /var/tmp is a tmpfs in the sandbox.
STATE=$(mktemp -d /var/tmp/blaude-journal-test.XXXXXX)
chown $NOBODY:$NOBODY "$STATE"
at_exit_late "rm -rf '$STATE'"
# Where the planted fsmonitor leaves its mark: a dir uid 65534 can write.
MARKS="$T_DIR/marks"
mkdir -p "$MARKS" && chown $NOBODY:$NOBODY "$MARKS"
for mode in attack control; do
  state="$STATE"
  [ $mode = control ] && state="$WS/state"  # the sandbox can write it: refused
  # --- 1. SIGKILL mid-session.
  fresh
  start "$T_DIR/a.err" "printf '%s' '$PLANT' >\$HOME/.claude/settings.json; touch planted; sleep 60" "$state"
  check "$mode kill: the agent planted the hook" wait_for "$WS/planted"
  kill -9 "$PID"
  wait_pid "$PID"
  sleep 1  # the sandbox dies with blaude
  check "$mode kill: the hook is on the host after the kill (no audit ran)" settings_has_hook
  start "$T_DIR/b.err" "true" "$state"
  wait_pid "$PID"
  check_eq "$mode kill: the next session succeeded" 0 "$RC"
  if [ $mode = attack ]; then
    check "kill: the next start set the settings back" settings_are_users
    check "kill: ... the plant is aside" grep -q pwned "$(aside_of "$H/.claude/settings.json")"
    check "kill: ... and said why" grep -q "a session that did not finish" "$T_DIR/b.err"
    check "kill: no journal is left" sh -c "! ls '$STATE/blaude/sessions/' 2>/dev/null | grep -q ."
  else
    check "control kill: the refusal is logged" grep -rq "which the sandbox can write" "$WS/state"
    check "control kill: without a journal the hook stays" settings_has_hook
  fi

  # --- 2. Two sessions at once, the first to start ends first.
  fresh
  start "$T_DIR/a.err" "printf '%s' '$PLANT' >\$HOME/.claude/settings.json; touch planted; while [ ! -e a-go ]; do sleep 0.1; done" "$state"
  A=$PID
  check "$mode two: A planted the hook" wait_for "$WS/planted"
  start "$T_DIR/b.err" "touch b-started; while [ ! -e b-go ]; do sleep 0.1; done" "$state"
  B=$PID
  check "$mode two: B started" wait_for "$WS/b-started"
  touch "$WS/a-go"
  wait_pid "$A"
  check "$mode two: A's audit set the settings back" settings_are_users
  touch "$WS/b-go"
  wait_pid "$B"
  check_eq "$mode two: B succeeded" 0 "$RC"
  if [ $mode = attack ]; then
    check "two: the settings are the user's after B too" settings_are_users
  else
    check "control two: without a journal B put the hook back" settings_has_hook
  fi

  # --- 3. The repositories: a new nested repository with core.fsmonitor, then SIGKILL. The
  # watcher during the session is off (it would rewrite the plant at once): the journal of the
  # repositories' start is what is tested.
  EXTRA_ENV=BLAUDE_LIVE_AUDIT=off
  fresh
  rm -f "$MARKS/ran"
  GPLANT="git init -q sub && git -C sub config core.fsmonitor 'touch $MARKS/ran; false' && touch planted; sleep 60"
  start "$T_DIR/a.err" "$GPLANT" "$state"
  check "$mode git kill: the agent planted the repository" wait_for "$WS/planted"
  sleep 0.5  # the journal of the repositories is written once the child runs
  kill -9 "$PID"
  wait_pid "$PID"
  sleep 1
  start "$T_DIR/b.err" "true" "$state"
  wait_pid "$PID"
  check_eq "$mode git kill: the next session succeeded" 0 "$RC"
  (cd "$WS/sub" && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git status >/dev/null 2>&1) || true
  if [ $mode = attack ]; then
    check "git kill: the next start made the plant inert (git status in it runs nothing)" test ! -e "$MARKS/ran"
    check "git kill: ... and said why" grep -q "core.fsmonitor" "$T_DIR/b.err"
  else
    check "control git kill: without a journal git status in it runs the plant" test -e "$MARKS/ran"
  fi

  # --- 4. Two sessions at once: B starts after A's agent planted the repository; A is killed,
  # B ends: B must judge the plant against A's start, not its own.
  fresh
  rm -f "$MARKS/ran"
  start "$T_DIR/a.err" "$GPLANT" "$state"
  A=$PID
  check "$mode git two: A planted the repository" wait_for "$WS/planted"
  sleep 0.5
  start "$T_DIR/b.err" "touch b-started; while [ ! -e b-go ]; do sleep 0.1; done" "$state"
  B=$PID
  check "$mode git two: B started" wait_for "$WS/b-started"
  kill -9 "$A"
  wait_pid "$A"
  touch "$WS/b-go"
  wait_pid "$B"
  check_eq "$mode git two: B succeeded" 0 "$RC"
  (cd "$WS/sub" && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git status >/dev/null 2>&1) || true
  if [ $mode = attack ]; then
    check "git two: B's audit made A's plant inert" test ! -e "$MARKS/ran"
  else
    check "control git two: without a journal B took the plant for the start" test -e "$MARKS/ran"
  fi
  EXTRA_ENV=""
  # The next test's start must find no orphan of these.
  start "$T_DIR/c.err" "true" "$state"
  wait_pid "$PID"
done
finish
