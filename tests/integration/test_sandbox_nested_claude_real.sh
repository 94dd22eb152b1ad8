#!/usr/bin/env bash
# The real Claude Code (scripts/install-test-claude.sh) with its own command sandbox on
# (sandbox.enabled, failIfUnavailable, no unsandboxed fallback), as uid 65534, against the scripted
# fake Anthropic API: one Bash tool call whose output shows where it ran, and the answer
# "FAKE-API-DONE: <first line of the tool result>".
#   - control, on the host without blaude: the tool runs in Claude Code's sandbox (its marker is
#     set, and a write to a world-writable dir outside the project fails), so its sandbox works here;
#   - blaude --nested-sandbox: the same, Claude Code's sandbox inside blaude's (one more seccomp
#     filter stacked than on the host: blaude's);
#   - blaude without it: blaude's filter refuses the user namespace, Claude Code's bwrap says so in
#     the tool result, nothing ran, and blaude's exit line names the refusal and the flag;
#   - control, plain blaude with Claude Code's sandbox off: the normal Bash tool works, and the
#     same write outside the project succeeds (so the refusal above is Claude Code's sandbox).
. "$(dirname "$0")/lib.sh"

need_sandbox
command -v socat >/dev/null || missing "socat is not installed (Claude Code's Linux sandbox relays its network through it)"
claude_tmp_cleanup_at_exit
# Claude Code on the host also makes these two (empty once it is done); removed if this test made them.
for d in /tmp/cc-daemon-65534 /tmp/claude-host-65534; do
  [ -e "$d" ] || at_exit_late "pgrep -u 65534 >/dev/null 2>&1 || rmdir $d 2>/dev/null || true"
done
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")

log "claude $(as_nobody env HOME="$T_DIR" "$CLAUDE_BIN" --version 2>/dev/null)"
SANDBOX_ON='{"sandbox": {"enabled": true, "failIfUnavailable": true, "allowUnsandboxedCommands": false,
  "autoAllowBashIfSandboxed": true}}'
mkdir -p "$T_DIR/outside"
chmod 777 "$T_DIR/outside"

# claude_start NAME SETTINGS [BLAUDE-ARGS...]: starts claude as uid 65534 in the background, with its
# own home (SETTINGS as ~/.claude/settings.json), project $T_DIR/NAME/proj and fake API; through the
# real blaude, or for NAME=direct claude itself (with the --dangerously-skip-permissions blaude
# always passes). The four runs go at once: each mostly waits. No retries: each reaches its API.
# The tool's first line: Claude Code's sandbox marker and whether a write outside the project (to a
# dir uid 65534 may write, which blaude's sandbox shows as the host's /tmp) got through; then the
# number of seccomp filters stacked on the tool's shell.
declare -A PIDS
claude_start() {
  local name=$1 settings=$2 d=$T_DIR/$1 pre cmd
  shift 2
  mkdir -p "$d/home/.claude" "$d/proj"
  printf '%s\n' "$settings" >"$d/home/.claude/settings.json"
  chown -R 65534:65534 "$d"
  cmd="if (echo x >$T_DIR/outside/$name) 2>/dev/null; then w=written; else w=refused; fi; \
echo \"sandbox-env=\${SANDBOX_RUNTIME:-none} outside-write=\$w\" | tee tool-out.txt; \
grep '^Seccomp_filters:' /proc/self/status | tr -d ' \\t' | tee -a tool-out.txt"
  python3 "$BLAUDE_SRC/tests/integration/fake_anthropic.py" "$d/api.port" "$d/api.log" "$cmd" >"$d/api.out" 2>&1 &
  at_exit "kill $!"
  wait_until test -s "$d/api.port"
  if [ "$name" = direct ]; then pre=(claude --dangerously-skip-permissions); else pre=("$BLAUDE" "$@"); fi
  (cd "$d/proj" && exec setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$d/home" \
    PATH="$CLAUDE_DIR:/usr/bin:/bin" LANG=C.UTF-8 CLAUDE_CODE_MAX_RETRIES=0 TERM=xterm-256color \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$d/api.port")" ANTHROPIC_API_KEY=sk-ant-fake-0000 \
    timeout 120 "${pre[@]}" -p "Run the scripted command." </dev/null >"$T_DIR/$name.out" 2>"$T_DIR/$name.err") &
  PIDS[$name]=$!
}
# claude_wait NAME: its exit status in RC, the tool's output in $T_DIR/NAME.tool, the API's log in
# NAME.api; logs what claude printed.
claude_wait() {
  local name=$1 d=$T_DIR/$1
  set +e
  wait "${PIDS[$name]}"
  RC=$?
  set -e
  cp "$d/proj/tool-out.txt" "$T_DIR/$name.tool" 2>/dev/null || : >"$T_DIR/$name.tool"
  cp "$d/api.log" "$T_DIR/$name.api"
  log "$name: rc=$RC; claude printed: $(cat "$T_DIR/$name.out") / stderr: $(tail -n 5 "$T_DIR/$name.err")"
  log "$name: the tool wrote: $(tr '\n' ' ' <"$T_DIR/$name.tool"); the API saw: $(grep -o '"tool_results": \[".*' "$d/api.log" || true)"
}
filters() { sed -n 's/^Seccomp_filters:\([0-9]*\)$/\1/p' "$T_DIR/$1.tool"; }

claude_start direct "$SANDBOX_ON"
claude_start nested "$SANDBOX_ON" --nested-sandbox
claude_start flat "$SANDBOX_ON"
claude_start plain '{}'

# --- control: Claude Code's sandbox works on this host ------------------------------------------
claude_wait direct
check_eq "control: claude on the host completes with its Bash tool sandboxed" \
  "FAKE-API-DONE: sandbox-env=1 outside-write=refused" "$(cat "$T_DIR/direct.out")"
check_eq "control: ... exit 0" 0 "$RC"
check "control: ... the write outside the project did not land" not test -e "$T_DIR/outside/direct"
direct_filters=$(filters direct)
check "control: ... the tool's shell reports its seccomp filters" test -n "$direct_filters"

# --- blaude --nested-sandbox: Claude Code's sandbox inside blaude's --------------------------------
claude_wait nested
check_eq "--nested-sandbox: the conversation completes, the Bash tool sandboxed by Claude Code" \
  "FAKE-API-DONE: sandbox-env=1 outside-write=refused" "$(cat "$T_DIR/nested.out")"
check_eq "--nested-sandbox: ... exit 0" 0 "$RC"
check "--nested-sandbox: ... the write outside the project did not land" not test -e "$T_DIR/outside/nested"
check_eq "--nested-sandbox: ... under blaude's seccomp filter too (one more than on the host)" \
  "$((${direct_filters:-0} + 1))" "$(filters nested)"
check "--nested-sandbox: ... and blaude reports no refused user namespace" \
  not grep -q 'refused .* user namespace' "$T_DIR/nested.err"

# --- blaude without it: Claude Code's sandbox cannot start -----------------------------------------
claude_wait flat
# Claude Code 2.1 finds out at the command: its bwrap's refusal comes back as the tool result. A
# version that checks first (failIfUnavailable) would say so itself: either is the refusal shown.
sandbox_refused() {
  grep -q '"tool_results": \[".*bwrap: No permissions to create new namespace' "$T_DIR/flat.api" ||
    grep -qi 'sandbox.*\(unavailable\|failIfUnavailable\)' "$T_DIR/flat.out" "$T_DIR/flat.err"
}
check "without --nested-sandbox: Claude Code reports that its sandbox cannot start (bwrap refused a namespace)" \
  sandbox_refused
check "without --nested-sandbox: ... the command did not run" not test -s "$T_DIR/flat.tool"
check "without --nested-sandbox: ... nor write outside the project" not test -e "$T_DIR/outside/flat"
# These two checks need blaude's exit line for refused user namespaces (a line of its own on
# stderr: the count, the programs that asked, and the flag that allows it).
check "without --nested-sandbox: blaude's exit line names the refused user namespace and --nested-sandbox" \
  grep -Eq '^blaude: the sandbox refused [0-9]+ request(s|\(s\))? for a user namespace of its own \(from .*\).*--nested-sandbox' \
  "$T_DIR/flat.err"
check "without --nested-sandbox: ... and names bwrap among the programs" \
  grep -Eq '^blaude: the sandbox refused [0-9]+ request(s|\(s\))? for a user namespace of its own \(from [^)]*bwrap' \
  "$T_DIR/flat.err"

# --- control: Claude Code's normal Bash tool under plain blaude ------------------------------------
claude_wait plain
check_eq "control: with Claude Code's sandbox off, plain blaude runs its Bash tool unsandboxed" \
  "FAKE-API-DONE: sandbox-env=none outside-write=written" "$(cat "$T_DIR/plain.out")"
check_eq "control: ... exit 0" 0 "$RC"
check "control: ... the write outside the project landed" test -e "$T_DIR/outside/plain"
check_eq "control: ... under blaude's two seccomp filters alone (bwrap's, and the exec shim's for user namespaces)" 2 "$(filters plain)"
check "control: ... and blaude reports no refused user namespace" \
  not grep -q 'refused .* user namespace' "$T_DIR/plain.err"
finish
