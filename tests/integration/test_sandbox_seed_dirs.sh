#!/usr/bin/env bash
# With the real blaude and bwrap as uid 65534: the dirs the seed creates on the host
# (~/.notebooklm-mcp and ~/.notebooklm-mcp-cli on every launch, ~/.claude-mem when the claude-mem
# plugin is installed), made by the prepare step only (never by --dry-run or a failed launch),
# so what the session writes there survives it; and the environment is exactly the seed's
# allowlist (WARP_* and the bash script's other extras stay out).
. "$(dirname "$0")/lib.sh"

need_sandbox
NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H/.claude" "$WS"
chown -R $NOBODY:$NOBODY "$H" "$WS"
nob() { (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin "${SB_ENV[@]}" \
  setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$BLAUDE" --clear-tmp "$@" </dev/null); }
SB_ENV=()

# --- ~/.notebooklm-mcp(-cli): created on first use, 0700, and what is written there persists --
nob --dry-run --exec true >"$T_DIR/dry.out" 2>&1
check "--dry-run lists the dir it would create" grep -q "mkdir -p -m 700 $H/.notebooklm-mcp " "$T_DIR/dry.out"
check "--dry-run creates nothing" test ! -e "$H/.notebooklm-mcp"
nob -m /nonexistent-blaude-test --exec true >/dev/null 2>&1 || true
check "a launch refused (bad -m) creates nothing" test ! -e "$H/.notebooklm-mcp"
nob --exec sh -c "echo '{\"cookies\":1}' >'$H/.notebooklm-mcp/auth.json' && echo ok >'$H/.notebooklm-mcp-cli/x' &&
  mkdir -p '$H/.elsewhere' && echo lost >'$H/.elsewhere/f'" 2>"$T_DIR/run.err"
check_eq "notebooklm login written inside persists on the host" '{"cookies":1}' "$(cat "$H/.notebooklm-mcp/auth.json" 2>/dev/null)"
check_eq "... and in ~/.notebooklm-mcp-cli" ok "$(cat "$H/.notebooklm-mcp-cli/x" 2>/dev/null)"
check_eq "~/.notebooklm-mcp is created private (0700)" 700 "$(stat -c %a "$H/.notebooklm-mcp")"
check_eq "... owned by the user" $NOBODY "$(stat -c %u "$H/.notebooklm-mcp")"
check "control: another dir under the tmpfs \$HOME does not persist" test ! -e "$H/.elsewhere"
# A planted link at the name is never followed to create or bind anything.
rm -rf "$H/.notebooklm-mcp-cli"
ln -s "$T_DIR/victim" "$H/.notebooklm-mcp-cli"
nob --exec true 2>/dev/null
check "a dangling link at the name: nothing created through it" test ! -e "$T_DIR/victim"

# --- ~/.claude-mem: only with the plugin installed ---------------------------------------------
nob --exec true 2>/dev/null
check "no claude-mem plugin: ~/.claude-mem not created" test ! -e "$H/.claude-mem"
mkdir -p "$H/.claude/plugins"
echo '{"version":2,"plugins":{"claude-mem@thedotmack":[{"scope":"user"}]}}' >"$H/.claude/plugins/installed_plugins.json"
chown -R $NOBODY:$NOBODY "$H/.claude"
nob --dry-run --exec true >/dev/null 2>&1
check "plugin installed, --dry-run: still nothing created" test ! -e "$H/.claude-mem"
nob --exec sh -c "echo memory >'$H/.claude-mem/db'" 2>/dev/null
check_eq "plugin installed: ~/.claude-mem created, its data persists" memory "$(cat "$H/.claude-mem/db" 2>/dev/null)"
check_eq "... 0700" 700 "$(stat -c %a "$H/.claude-mem")"

# --- the environment: exactly the seed's allowlist ----------------------------------------------
SB_ENV=(WARP_API_KEY=warp-secret WARP_IS_LOCAL_SHELL_SESSION=1 TERM_PROGRAM=WarpTerminal
        http_proxy=http://p:1 MCP_PROTOCOL_NEGOTIATION=1 ANTHROPIC_MODEL=opus HTTP_PROXY=http://p:2)
nob --exec env >"$T_DIR/env.out" 2>/dev/null
for k in WARP_API_KEY WARP_IS_LOCAL_SHELL_SESSION TERM_PROGRAM http_proxy MCP_PROTOCOL_NEGOTIATION; do
  check "$k does not reach the sandbox (not in the seed's list)" not grep -q "^$k=" "$T_DIR/env.out"
done
check "control: a seed prefix (ANTHROPIC_*) passes" grep -q '^ANTHROPIC_MODEL=opus$' "$T_DIR/env.out"
check "control: a seed name (HTTP_PROXY) passes" grep -q '^HTTP_PROXY=http://p:2$' "$T_DIR/env.out"
nob --keep-env --exec env >"$T_DIR/keep.out" 2>/dev/null
check "control: --keep-env passes WARP_API_KEY (the test sees a leak)" grep -q '^WARP_API_KEY=warp-secret$' "$T_DIR/keep.out"
nob --env WARP_API_KEY=mine --exec env >"$T_DIR/mine.out" 2>/dev/null
check "--env still passes one on purpose" grep -q '^WARP_API_KEY=mine$' "$T_DIR/mine.out"

finish
