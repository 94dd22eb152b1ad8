#!/usr/bin/env bash
# The drop-in CLI against a stub claude that records its argv: what reaches claude, in which
# order, with which command choice; usage errors; bypass subcommands; host-side checks.
. "$(dirname "$0")/lib.sh"

STUB="$T_DIR/bin"
mkdir -p "$STUB" "$T_DIR/home" "$T_DIR/work"
cat >"$STUB/claude" <<'EOF'
#!/bin/sh
# argv0 first, then one argument per line; the environment beside it.
{ echo "argv0=${0##*/}"; for a in "$@"; do printf '%s\n' "$a"; done; } >"$STUB_LOG"
env >"$STUB_LOG.env"
exit "${STUB_RC:-0}"
EOF
cp "$STUB/claude" "$STUB/claudechic"
chmod +x "$STUB/claude" "$STUB/claudechic"
export STUB_LOG="$T_DIR/argv" HOME="$T_DIR/home" PATH="$STUB:$PATH"
cd "$T_DIR/work"

# b ARGS...: blaude with piped stdin; stdout+stderr in $T_DIR/out, exit code in $rc.
b() { rm -f "$STUB_LOG" "$STUB_LOG.env"; set +e; "$BLAUDE" "$@" </dev/null >"$T_DIR/out" 2>&1; rc=$?; set -e; }
# bpath NEWPATH ARGS...: the same with another PATH for blaude only.
bpath() { local p=$1; shift; rm -f "$STUB_LOG" "$STUB_LOG.env"; set +e; PATH="$p" "$BLAUDE" "$@" </dev/null >"$T_DIR/out" 2>&1; rc=$?; set -e; }
argv() { cat "$STUB_LOG" 2>/dev/null | paste -sd'|'; }
SKIP=--dangerously-skip-permissions

b --no-sandbox -p hello
check_eq "-p reaches claude" "argv0=claude|$SKIP|-p|hello" "$(argv)"
b --no-sandbox -c
check_eq "-c reaches claude" "argv0=claude|$SKIP|-c" "$(argv)"
b --no-sandbox --resume
check_eq "--resume reaches claude" "argv0=claude|$SKIP|--resume" "$(argv)"
b --no-sandbox mcp list
check_eq "mcp list reaches claude" "argv0=claude|$SKIP|mcp|list" "$(argv)"
b --no-sandbox -c --git --ssh --model 'opus 4' 'a  b'
A=$(argv)
b --git --ssh --no-sandbox -c --model 'opus 4' 'a  b'
check_eq "blaude flags mix freely, claude's keep their order" "argv0=claude|$SKIP|-c|--model|opus 4|a  b" "$A"
check_eq "... in any position" "$A" "$(argv)"
b --no-sandbox -p -- --debug --git
# The rest goes to claude without the `--` (claude would read what follows one as its
# prompt: `blaude -- --debug` is `claude --debug`).
check_eq "-- ends blaude's options; the words after it reach claude, the -- itself does not" "argv0=claude|$SKIP|-p|--debug|--git" "$(argv)"
check "... and blaude's debug output did not switch on" bash -c "! grep -q 'claude $SKIP' '$T_DIR/out'"
b --no-sandbox -p --debug
check_eq "without --, --debug is blaude's (as in the seed)" "argv0=claude|$SKIP|-p" "$(argv)"
b --no-sandbox mcp --help
check_eq "--help after a claude argument is claude's" "argv0=claude|$SKIP|mcp|--help" "$(argv)"

# No arguments: piped stdin adds -p; a terminal does not.
b --no-sandbox
check_eq "no args, piped stdin: claude -p" "argv0=claude|$SKIP|-p" "$(argv)"
tm_start 80 24
tm_run "cd '$T_DIR/work' && STUB_LOG='$STUB_LOG' PATH='$PATH' HOME='$HOME' '$BLAUDE' --no-sandbox; echo RC=\$?"
tm_wait 'RC=0' 30 || true
check_eq "no args, tty stdin: interactive claude" "argv0=claude|$SKIP" "$(argv)"

# --exec: the rest verbatim, nothing added.
b --no-sandbox --env X=1 --exec printf '%s\n' --git '-p' 'two words' -- --env
check_eq "--exec takes the rest verbatim" $'--git\n-p\ntwo words\n--\n--env' "$(grep -v '^blaude: --no-sandbox' "$T_DIR/out")"
b --no-sandbox --exec sh -c 'exit 7'
check_eq "exit code is the command's" 7 "$rc"
STUB_RC=3 b --no-sandbox -p x
check_eq "exit code is claude's" 3 "$rc"
b --no-sandbox --env 'GREETING=a b=c' --exec sh -c 'printf "%s" "$GREETING"'
check_eq "--env reaches the command as argv, no shell" "a b=c" "$(grep -v '^blaude: ' "$T_DIR/out")"

# Usage errors: exit 2, "blaude: ..." plus one hint line, claude never started.
usage() { # usage DESC ARGS...
  local d=$1; shift
  b "$@"
  check_eq "$d: exit 2" 2 "$rc"
  check_eq "$d: two lines" 2 "$(wc -l <"$T_DIR/out")"
  check "$d: blaude: prefix and hint" grep -q "^blaude: .*" "$T_DIR/out"
  check "$d: claude not started" test ! -e "$STUB_LOG"
}
usage "--exec without a command" --no-sandbox --exec
usage "--env without =" --no-sandbox --env FOO
usage "--env with a bad name" --no-sandbox --env 1X=2
usage "--env without a value" --no-sandbox -c --env
usage "-m without a value" --no-sandbox -m
usage "claude args before --exec" --no-sandbox -c --exec bash
usage "doctor with arguments" doctor now

# Bypass subcommands: claude on the host, host environment, no skip flag, even without
# --no-sandbox; never for --exec or --chic.
for sub in update install install-github-app; do
  GH_TOKEN=tok b --git "$sub" --force
  check_eq "$sub runs claude on the host" "argv0=claude|$sub|--force" "$(argv)"
  check "$sub keeps the host environment" grep -q '^GH_TOKEN=tok$' "$STUB_LOG.env"
done
b --exec update
check "--exec update is not a host bypass" test ! -e "$STUB_LOG"
b --chic install
check "--chic install is not a host bypass" bash -c "! grep -qx 'argv0=claude' '$STUB_LOG' 2>/dev/null"
b --no-sandbox --chic install
check_eq "--chic runs claudechic" "argv0=claudechic|$SKIP|install" "$(argv)"

# Remote Control: the subcommand without the skip flag; the flag consumed; env changes.
b --no-sandbox remote-control --name x
check_eq "remote-control subcommand: no skip flag" "argv0=claude|remote-control|--name|x" "$(argv)"
ANTHROPIC_API_KEY=sk DO_NOT_TRACK=1 b --no-sandbox --remote-control -c
check_eq "--remote-control is consumed" "argv0=claude|$SKIP|-c" "$(argv)"
check "RC drops ANTHROPIC_API_KEY" bash -c "! grep -q '^ANTHROPIC_API_KEY=' '$STUB_LOG.env'"
check "RC drops DO_NOT_TRACK" bash -c "! grep -q '^DO_NOT_TRACK=' '$STUB_LOG.env'"
check "RC says it drops the key" grep -q 'ANTHROPIC_API_KEY' "$T_DIR/out"
ANTHROPIC_API_KEY=sk CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=0 b --no-sandbox -c
check "control: without RC the key stays" grep -q '^ANTHROPIC_API_KEY=sk$' "$STUB_LOG.env"
check "forced DO_NOT_TRACK=1" grep -q '^DO_NOT_TRACK=1$' "$STUB_LOG.env"
check "ENV_SCRUB never reaches claude" bash -c "! grep -q '^CLAUDE_CODE_SUBPROCESS_ENV_SCRUB' '$STUB_LOG.env'"

# Warnings before launch.
CLAUDE_CODE_RESTRICTED=1 b --no-sandbox -c
check "CLAUDE_CODE_RESTRICTED warning" grep -q 'CLAUDE_CODE_RESTRICTED=1 is set' "$T_DIR/out"
mkdir -p .claude
printf '{"permissions": {"disableBypassPermissionsMode": "disable"}}' >.claude/settings.json
b --no-sandbox -c
check "bypass-blocking workspace settings: warned" grep -q "$T_DIR/work/.claude/settings.json sets permissions.disableBypassPermissionsMode" "$T_DIR/out"
check "... as a repo setting, not enterprise" grep -q 'Remove the key' "$T_DIR/out"
b --no-sandbox --tmp -c
check "--tmp skips the workspace settings" bash -c "! grep -q disableBypass '$T_DIR/out'"
rm -rf .claude

# Onboarding flags: set on a real run, not on a dry run, never through a symlink.
rm -f "$HOME/.claude.json"
b --no-sandbox --dry-run -c
check_eq "--dry-run: exit 0" 0 "$rc"
check "--dry-run: shows the command" grep -q "claude $SKIP -c" "$T_DIR/out"
check "--dry-run: claude not started" test ! -e "$STUB_LOG"
check "--dry-run: ~/.claude.json untouched" test ! -e "$HOME/.claude.json"
echo '{"userID": "u1"}' >"$HOME/.claude.json"
b --no-sandbox -c
check "onboarding flags set" grep -q '"hasCompletedOnboarding": true' "$HOME/.claude.json"
check "other keys kept" grep -q '"userID": "u1"' "$HOME/.claude.json"
check_eq "mode 0600" 600 "$(stat -c %a "$HOME/.claude.json")"
rm "$HOME/.claude.json"
echo '{"userID": "u2"}' >"$HOME/.claude.json"
b --no-sandbox --exec true
check_eq "--exec of another program leaves ~/.claude.json alone" '{"userID": "u2"}' "$(cat "$HOME/.claude.json")"
rm "$HOME/.claude.json"
echo 'echo hi' >"$T_DIR/victim"
ln -s "$T_DIR/victim" "$HOME/.claude.json"
b --no-sandbox -c
check "symlinked ~/.claude.json: refused with a warning" grep -q 'is a symlink' "$T_DIR/out"
check_eq "... and its target unchanged" "echo hi" "$(cat "$T_DIR/victim")"
rm "$HOME/.claude.json"

# Missing prerequisites: the seed's messages, exit 1, nothing changed on the host.
NOCLAUDE="$T_DIR/noclaude"
mkdir -p "$NOCLAUDE"
ln -s "$(command -v bwrap)" "$NOCLAUDE/bwrap"
bpath "$NOCLAUDE" --no-sandbox -c
check_eq "missing claude: exit 1" 1 "$rc"
check "missing claude: message" grep -q 'claude is not installed or not in PATH' "$T_DIR/out"
check "missing claude: install hint" grep -q 'Install from:' "$T_DIR/out"
check "missing claude: ~/.claude.json not created" test ! -e "$HOME/.claude.json"
bpath "$STUB" -c
check_eq "missing bwrap: exit 1" 1 "$rc"
check "missing bwrap: message" grep -q 'bubblewrap (bwrap) is not installed' "$T_DIR/out"
check "missing bwrap: claude not started, nothing written" bash -c "test ! -e '$STUB_LOG' && test ! -e '$HOME/.claude.json'"

# --help / --version.
b --help
check_eq "--help exits 0" 0 "$rc"
check "--help says where the rest goes" grep -q 'Everything else' "$T_DIR/out"
b --version
check "--version is blaude's" grep -qE '^blaude [0-9]+\.[0-9]+' "$T_DIR/out"
b --no-sandbox -v
check_eq "-v is claude's" "argv0=claude|$SKIP|-v" "$(argv)"

finish
