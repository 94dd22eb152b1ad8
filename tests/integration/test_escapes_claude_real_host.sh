#!/usr/bin/env bash
# What the user meets: the real Claude Code started on the host after a session, as uid 65534,
# against a scripted stand-in for the API (fake_anthropic.py; `claude -p` runs one Bash tool call
# and exits). The agent (a shell through the real blaude) plants code Claude Code runs at start:
#   deep: a SessionStart hook in <ws>/a/b/c/d/.claude/settings.json and an MCP server in
#         <ws>/a/b/c/d/.mcp.json; `claude -p` is then started in a/b/c/d;
#   user: a SessionStart hook in ~/.claude/settings.json; `claude -p` in the workspace;
#   kill: the same, and blaude is SIGKILLed mid-session; the next blaude start is a plain one.
# Each hook or server would touch a mark file. Attack: no mark. Control (--allow-protected-writes,
# which turns the protections and the audit off; for kill, a journal dir the sandbox can write,
# which blaude refuses): the mark appears, so the attack's check would see a success.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

need_sandbox
sandbox_dirs
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")
BW=/usr/bin
MARKS="$T_DIR/marks"
STATE=$(mktemp -d /var/tmp/blaude-journal-test.XXXXXX)  # outside the shared /tmp: see below
chown $NOBODY:$NOBODY "$STATE"
at_exit_late "rm -rf '$STATE'"

"$NET_PY" "$BLAUDE_SRC/tests/integration/fake_anthropic.py" "$T_DIR/api.port" "$T_DIR/api.log" "echo hi" &
API_PID=$!
at_exit "kill $API_PID"
for _ in $(seq 100); do [ -s "$T_DIR/api.port" ] && break; sleep 0.1; done
API="http://127.0.0.1:$(cat "$T_DIR/api.port")"

hook() { printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch %s"}]}]}}' "$MARKS/$1"; }
mcp() { printf '{"mcpServers":{"x":{"command":"touch","args":["%s"]}}}' "$MARKS/$1"; }

fresh() {
  rm -rf "$H" "$WS" "$MARKS" "$STATE/blaude"
  mkdir -p "$H/.claude" "$WS/a/b/c/d" "$MARKS"
  echo '{"model":"sonnet"}' >"$H/.claude/settings.json"
  chown -R $NOBODY:$NOBODY "$H" "$WS" "$MARKS"
}
# blaude_run STATE_DIR [blaude options] -- SCRIPT: the agent's session ($T_DIR/sb.err).
blaude_run() {
  local state=$1; shift
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  (cd "$WS" && env -i HOME="$H" PATH="$BW:/usr/bin:/bin" TERM=dumb XDG_STATE_HOME="$state" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" "${opts[@]}" --exec sh -c "$2" \
    </dev/null >/dev/null 2>>"$T_DIR/sb.err")
}
# host_claude DIR: the real claude -p there, on the host, as the user; its output in claude.out.
host_claude() {
  (cd "$1" && env -i HOME="$H" PATH="$CLAUDE_DIR:/usr/bin:/bin" TERM=dumb LANG=C.UTF-8 \
    ANTHROPIC_BASE_URL="$API" ANTHROPIC_API_KEY=sk-ant-fake-0000 \
    setpriv --reuid=65534 --regid=65534 --clear-groups timeout 120 claude -p "Run the scripted command." \
    </dev/null >"$T_DIR/claude.out" 2>&1)
}
no_mark() { [ ! -e "$MARKS/$1" ]; }
has_mark() { [ -e "$MARKS/$1" ]; }

for mode in attack control; do
  opts=()
  [ $mode = control ] && opts=(--allow-protected-writes)
  # --- deep: Claude Code's project files below the workspace's root.
  fresh
  blaude_run "$STATE" "${opts[@]}" -- "mkdir -p a/b/c/d/.claude &&
    printf '%s' '$(hook deep-hook)' >a/b/c/d/.claude/settings.json && printf '%s' '$(mcp deep-mcp)' >a/b/c/d/.mcp.json"
  if [ $mode = attack ]; then
    check "deep: the audit reported both" sh -c "grep -c 'claude started here would' '$T_DIR/sb.err' | grep -qx 2"
  else
    check "control deep: both are there after the session" test -s "$WS/a/b/c/d/.mcp.json" -a -s "$WS/a/b/c/d/.claude/settings.json"
  fi
  host_claude "$WS/a/b/c/d"
  check "$mode deep: claude -p on the host answered" grep -q "FAKE-API-DONE" "$T_DIR/claude.out"
  if [ $mode = attack ]; then
    check "deep: claude on the host ran no hook of the agent's" no_mark deep-hook
    check "deep: ... and started no MCP server of the agent's" no_mark deep-mcp
  else
    check "control deep: without the protection claude ran the agent's hook" has_mark deep-hook
    check "control deep: ... and its MCP server" has_mark deep-mcp
  fi

  # --- user: the user's own settings.
  fresh
  blaude_run "$STATE" "${opts[@]}" -- "printf '%s' '$(hook user-hook)' >\$HOME/.claude/settings.json"
  if [ $mode = attack ]; then
    check "user: the audit reported the hook" grep -q 'hooks: added' "$T_DIR/sb.err"
  else
    check "control user: the hook is there after the session" grep -q user-hook "$H/.claude/settings.json"
  fi
  host_claude "$WS"
  check "$mode user: claude -p on the host answered" grep -q "FAKE-API-DONE" "$T_DIR/claude.out"
  if [ $mode = attack ]; then
    check "user: claude on the host ran no hook of the agent's" no_mark user-hook
  else
    check "control user: without the audit claude ran the agent's hook" has_mark user-hook
  fi

  # --- kill: blaude SIGKILLed mid-session; the next start is plain (no option).
  fresh
  state="$STATE"
  [ $mode = control ] && state="$WS/state"  # inside the workspace: refused, no journal
  (cd "$WS" && exec env -i HOME="$H" PATH="$BW:/usr/bin:/bin" TERM=dumb XDG_STATE_HOME="$state" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --exec sh -c \
    "printf '%s' '$(hook kill-hook)' >\$HOME/.claude/settings.json; touch planted; sleep 60" \
    </dev/null >/dev/null 2>>"$T_DIR/sb.err") &
  pid=$!
  for _ in $(seq 600); do [ -e "$WS/planted" ] && break; sleep 0.1; done
  kill -9 $pid
  wait $pid 2>/dev/null || true
  sleep 1  # the sandbox dies with blaude (--die-with-parent)
  check "$mode kill: the hook was on the host after the kill" grep -q kill-hook "$H/.claude/settings.json"
  blaude_run "$state" -- "true"
  host_claude "$WS"
  check "$mode kill: claude -p on the host answered" grep -q "FAKE-API-DONE" "$T_DIR/claude.out"
  if [ $mode = attack ]; then
    check "kill: after the next start, claude on the host ran no hook of the agent's" no_mark kill-hook
  else
    check "control kill: without a journal claude ran the agent's hook" has_mark kill-hook
  fi
done
finish
