#!/usr/bin/env bash
# The real Claude Code (scripts/install-test-claude.sh) in proxy mode, through the
# real blaude and bwrap as uid 65534: a scripted conversation against a fake Anthropic API on the
# host's loopback, given to claude as ANTHROPIC_BASE_URL and allowed by proxy mode's defaults
# (the user lists only an unrelated host). claude runs one Bash tool command, which itself shows
# it ran in proxy mode (a direct connection to the host has no route), and ends the turn with
# the tool's output. Controls: the same claude with --no-sandbox completes against the same
# server (the fake API is sound), and in proxy mode without the defaults (no-default-domains)
# claude cannot reach it; with the API on the host's own address (through the proxy rather than
# the loopback relay), the refusal is named in blaude's summary line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
claude_tmp_cleanup_at_exit
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")
net_world
cp "$BLAUDE_SRC/tests/integration/net_probe.py" "$T_DIR/proj/probe.py"
net_start WEB http 0.0.0.0

# The fake API: answers the first turn with a Bash tool call, the second with the tool's output.
TOOL_CMD="echo bash-ran-\$((6*7)) | tee tool-out.txt; python3 probe.py tcp $HOST_IP $WEB_PORT | tee -a tool-out.txt"
"$NET_PY" "$BLAUDE_SRC/tests/integration/fake_anthropic.py" "$T_DIR/api.port" "$T_DIR/api.log" "$TOOL_CMD" \
  >"$T_DIR/api.out" 2>&1 &
at_exit "kill $!"
wait_until test -s "$T_DIR/api.port"
API="http://127.0.0.1:$(cat "$T_DIR/api.port")"
log "fake API at $API, claude $(as_nobody env HOME="$T_DIR" "$CLAUDE_BIN" --version 2>/dev/null)"

# claude as the user would start it: an API key and a base URL in the environment. A run that
# must fail sets RETRIES=0: Claude Code retries an unreachable API about ten times with backoff
# (a minute or more each), and CLAUDE_CODE_MAX_RETRIES (passed into the sandbox) turns that off.
claude_run() {  # [RETRIES=N] claude_run OUTFILE BLAUDE-ARGS...
  local out=$1; shift
  (cd "$T_DIR/proj" && as_nobody env -i HOME="$T_DIR/home" PATH="$CLAUDE_DIR:/usr/bin:/bin" LANG=C.UTF-8 \
    ${RETRIES:+CLAUDE_CODE_MAX_RETRIES=$RETRIES} \
    TERM=xterm-256color ANTHROPIC_BASE_URL="$API" ANTHROPIC_API_KEY=sk-ant-fake-0000 \
    timeout 240 "$BLAUDE" "$@" -p "Run the scripted command." </dev/null >"$out" 2>"$out.err")
}

# --- proxy mode: the defaults let claude reach its API ------------------------------------------
set +e
claude_run "$T_DIR/proxy.out" --allow-domain registry.npmjs.org
rc=$?
set -e
log "claude in proxy mode: rc=$rc: $(cat "$T_DIR/proxy.out") / stderr: $(tail -n 3 "$T_DIR/proxy.out.err")"
check_eq "claude in proxy mode completes the conversation with the tool's output" "FAKE-API-DONE: bash-ran-42" \
  "$(cat "$T_DIR/proxy.out")"
check_eq "... and exits 0" 0 "$rc"
check_eq "the Bash tool ran inside proxy mode's namespace (no route to the host)" "bash-ran-42
ENETUNREACH" "$(cat "$T_DIR/proj/tool-out.txt" 2>/dev/null)"
check "the API saw the tool result come back" grep -q '"tool_results": \["bash-ran-42' "$T_DIR/api.log"
check "the proxy allowed the API by its default rule" \
  grep -Eq "net: allowed CONNECT 127.0.0.1:[0-9]+ .*rule 127.0.0.1:[0-9]+ from ANTHROPIC_BASE_URL" <(net_log)
refused=$(grep '^blaude: refused' "$T_DIR/proxy.out.err" || true)
log "what claude tried that was refused: ${refused:-nothing}"
check "... and refused nothing of the API" not grep -q "127.0.0.1:$(cat "$T_DIR/api.port")" <<<"$refused"
rm -f "$T_DIR/proj/tool-out.txt"
: >"$T_DIR/api.log"

# --- control: the same claude without the sandbox -----------------------------------------------
set +e
claude_run "$T_DIR/host.out" --no-sandbox
h_rc=$?
set -e
check_eq "control: claude on the host completes against the same fake API" "FAKE-API-DONE: bash-ran-42" \
  "$(cat "$T_DIR/host.out")"
check_eq "control: ... exit 0" 0 "$h_rc"
check_eq "control: ... and its Bash tool reaches the host directly" "bash-ran-42
connected" "$(cat "$T_DIR/proj/tool-out.txt" 2>/dev/null)"
rm -f "$T_DIR/proj/tool-out.txt"

# --- control: proxy mode without the defaults cannot reach the API --------------------------------
mkdir -p "$T_DIR/home/.config/blaude"
printf 'no-default-domains\n' >"$T_DIR/home/.config/blaude/policy"
chown -R 65534:65534 "$T_DIR/home/.config"
set +e
RETRIES=0 claude_run "$T_DIR/nodef.out" --allow-domain registry.npmjs.org
n_rc=$?
set -e
check "control: without the defaults claude fails" test "$n_rc" -ne 0
check "control: ... and no tool ran" not test -e "$T_DIR/proj/tool-out.txt"
rm -f "$T_DIR/home/.config/blaude/policy"

# --- an API on the host's own address goes through the proxy; its refusal is named ----------------
"$NET_PY" "$BLAUDE_SRC/tests/integration/fake_anthropic.py" "$T_DIR/api2.port" "$T_DIR/api2.log" "$TOOL_CMD" 0.0.0.0 \
  >"$T_DIR/api2.out" 2>&1 &
at_exit "kill $!"
wait_until test -s "$T_DIR/api2.port"
API="http://$HOST_IP:$(cat "$T_DIR/api2.port")"
set +e
claude_run "$T_DIR/hostip.out" --allow-domain registry.npmjs.org
ip_rc=$?
set -e
check_eq "API at the host's address: claude completes through the proxy" "FAKE-API-DONE: bash-ran-42 0" \
  "$(cat "$T_DIR/hostip.out") $ip_rc"
check "... the proxy allowed it by the default rule" \
  grep -Eq "net: allowed [A-Z]+ $HOST_IP:$(cat "$T_DIR/api2.port") .*from ANTHROPIC_BASE_URL" <(net_log)
rm -f "$T_DIR/proj/tool-out.txt"
printf 'no-default-domains\n' >"$T_DIR/home/.config/blaude/policy"
set +e
RETRIES=0 claude_run "$T_DIR/hostip-nodef.out" --allow-domain registry.npmjs.org
hn_rc=$?
set -e
check "control: without the defaults it fails" test "$hn_rc" -ne 0
check "control: ... and blaude's last line names the refused API and the flag" \
  grep -q "^blaude: refused [0-9]* connections*: .*$HOST_IP:$(cat "$T_DIR/api2.port").*; allow with --allow-domain$" \
  <(tail -n 1 "$T_DIR/hostip-nodef.out.err")
finish
