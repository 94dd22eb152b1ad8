#!/usr/bin/env bash
# The audit's table of Claude Code's keys (src/common/claude_key_table.cpp) classifies every key
# the installed Claude Code carries: its settings schema's top-level keys, the defaults it writes
# in ~/.claude.json (at the top and per project) and the global keys `claude config` accepts. A
# newer claude with a key the table does not know fails here, before its changes are silently
# undone as code (or kept). Controls: the extractor finds the keys it must (apiKeyHelper, hooks,
# model, hasTrustDialogAccepted), and a key the table does not know makes the check fail.
. "$(dirname "$0")/lib.sh"

CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
REAL=$(readlink -f "$CLAUDE_BIN")
log "claude $(as_nobody env HOME="$T_DIR" "$CLAUDE_BIN" --version 2>/dev/null) at $REAL"
UNIT="$BLAUDE_BUILD/tests/unit_tests"
[ -x "$UNIT" ] || { fail "unit_tests built at $UNIT"; finish; }

KEYS="$T_DIR/keys"
rc=0
python3 "$BLAUDE_SRC/tests/integration/tools/claude_keys.py" "$REAL" >"$KEYS" 2>"$T_DIR/extract.err" || rc=$?
check_eq "the keys are read from the installed claude ($(cat "$T_DIR/extract.err"))" 0 "$rc"
for want in "settings apiKeyHelper" "settings hooks" "settings model" "settings env" "state numStartups" \
  "project hasTrustDialogAccepted"; do
  check "extracted: $want" grep -qx "$want" "$KEYS"
done
check "the schema has its ~200 keys, not a fragment" test "$(grep -c '^settings ' "$KEYS")" -ge 150
log "$(awk '{print $1}' "$KEYS" | sort | uniq -c | tr '\n' ' ')"

check "every key of this claude is classified" \
  env BLAUDE_CLAUDE_KEYS="$KEYS" "$UNIT" "[.claude_installed]"
# Control: a key the table does not know fails the same check.
cp "$KEYS" "$T_DIR/keys.control"
echo "settings zzNotAClaudeKey" >>"$T_DIR/keys.control"
check "control: an unknown key fails the check" \
  sh -c '! env BLAUDE_CLAUDE_KEYS="$1" "$2" "[.claude_installed]" >/dev/null 2>&1' _ "$T_DIR/keys.control" "$UNIT"
finish
