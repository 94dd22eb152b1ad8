#!/usr/bin/env bash
# blaude's did-you-mean never catches one of claude's own options: every long option of the real
# Claude Code's --help (and of every subcommand's --help, scripts/claude-options.sh), given to
# the real blaude, reaches claude unchanged, and each is in src/cli/claude_options.cpp (so a new
# claude release that adds one fails here until the list is regenerated). Control: a misspelt
# blaude option is caught by the same run (the check can fail).
. "$(dirname "$0")/lib.sh"

claude_tmp_cleanup_at_exit
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
NOBODY=65534
H="$T_DIR/home"
BIN="$T_DIR/bin"
mkdir -p "$H" "$BIN"
chown $NOBODY:$NOBODY "$H"
# claude's help, as uid 65534 (claude refuses nothing here, but its HOME must be writable).
"$BLAUDE_SRC/scripts/claude-options.sh" "$CLAUDE_BIN" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
  env -i HOME="$H" PATH=/usr/bin:/bin >"$T_DIR/opts" 2>"$T_DIR/opts.err" || true
n=$(wc -l <"$T_DIR/opts")
log "claude $(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups env -i HOME="$H" "$CLAUDE_BIN" --version 2>/dev/null): $n options"
check "claude's help lists options (sanity: at least 60)" test "$n" -ge 60
check "... among them --model and --resume" sh -c "grep -qx -- --model '$T_DIR/opts' && grep -qx -- --resume '$T_DIR/opts'"

# The stub claude blaude starts (--no-sandbox: the supervisor alone; the parse is the same).
cat >"$BIN/claude" <<STUB
#!/bin/sh
printf '%s\n' "\$@" >"$T_DIR/argv"
STUB
chmod 755 "$BIN/claude"
touch "$T_DIR/argv" && chmod 666 "$T_DIR/argv"
caught=() unlisted=()
while read -r o; do
  grep -qF "\"$o\"" "$BLAUDE_SRC/src/cli/claude_options.cpp" || unlisted+=("$o")
  case "$o" in --help|--version|--debug|--dry-run|--env|--remote-control) continue ;; esac  # blaude's own names too
  : >"$T_DIR/argv"
  env -i HOME="$H" PATH="$BIN:/usr/bin:/bin" "$BLAUDE" --no-sandbox "$o" </dev/null >/dev/null 2>"$T_DIR/err" && rc=0 || rc=$?
  grep -qx -- "$o" "$T_DIR/argv" || caught+=("$o(rc=$rc: $(head -1 "$T_DIR/err"))")
done <"$T_DIR/opts"
check_eq "no claude option is caught by blaude (each reaches claude)" "" "${caught[*]}"
check_eq "every claude option is in src/cli/claude_options.cpp" "" "${unlisted[*]}"

# Control: the same run catches a misspelt blaude option.
env -i HOME="$H" PATH="$BIN:/usr/bin:/bin" "$BLAUDE" --no-sandbox --no-netwrok </dev/null >/dev/null 2>"$T_DIR/err" && rc=0 || rc=$?
check_eq "control: --no-netwrok is caught (exit 2)" 2 "$rc"
check "control: ... did you mean --no-network" grep -qF 'did you mean --no-network?' "$T_DIR/err"

finish
