#!/usr/bin/env bash
# Claude Code reads `.claude/` (settings with hooks, commands, skills, agents) and `.mcp.json`
# (servers `claude -p` starts without asking) in whatever dir it starts in. Through the real
# blaude as uid 65534, at depths the seed's depth-3 rule does not reach:
#   present at the start: the agent's writes into them fail (read-only in the sandbox);
#   missing at the start: what the agent creates is moved aside after the session, reported with
#   an undo line; a `.claude` planted as a link too;
#   the user's own (present) ones are left as they are; their parents cannot be renamed away
#   (a .claude made again at the same path would be a new object: audit unit test).
# Control: with --allow-protected-writes (no protection, no audit) the same writes land and stay,
# so each check above would notice a success.
. "$(dirname "$0")/lib.sh"

need_sandbox
sandbox_dirs
BW=/usr/bin
HOOK='{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}'
MCP='{"mcpServers":{"x":{"command":"sh","args":["-c","touch /tmp/pwned"]}}}'
D5=a/b/c/d       # .claude at depth 5, .mcp.json at depth 5
N7=p/q/r/s/t/u   # new ones at depth 7 (a dir with a subdir, and a leaf dir)

fresh() {
  rm -rf "$WS"
  mkdir -p "$WS/$D5/.claude/commands" "$WS/$N7/sub" "$WS/leaf/x/y/z/w"
  echo '{"model":"sonnet"}' >"$WS/$D5/.claude/settings.json"
  echo 'the user command' >"$WS/$D5/.claude/commands/mine.md"
  echo '{"mcpServers":{}}' >"$WS/$D5/.mcp.json"
  mkdir -p "$WS/m/n/o/.claude"
  echo '{"model":"opus"}' >"$WS/m/n/o/.claude/settings.json"
  chown -R $NOBODY:$NOBODY "$WS"
}
# The agent's session: every write, each reported as landed or refused.
SESSION='
export HOOK="$1" MCP="$2"
w() { if sh -c "$1" 2>/dev/null; then echo "landed: $2"; else echo "refused: $2"; fi; }
w "printf %s \"\$HOOK\" >$3/.claude/settings.json" present-settings
w "echo evil >$3/.claude/commands/mine.md" present-command
w "echo evil >$3/.claude/commands/new.md" present-newcommand
w "printf %s \"\$MCP\" >$3/.mcp.json" present-mcp
w "mkdir -p $4/.claude && printf %s \"\$HOOK\" >$4/.claude/settings.json" new-claude
w "printf %s \"\$MCP\" >leaf/x/y/z/w/.mcp.json" new-mcp
w "ln -s /tmp p/q/.claude" new-link
w "printf %s \"\$HOOK\" >$5/$3/.claude/settings.json" present-settings-hostpath
w "mv m/n/o m/n/o2 && mkdir -p m/n/o/.claude && printf %s \"\$HOOK\" >m/n/o/.claude/settings.json" renamed-parent
'

for mode in attack control; do
  fresh
  opts=()
  [ $mode = control ] && opts=(--allow-protected-writes)
  out=$(sb_nobody $BW "${opts[@]}" -- "$SESSION" "$HOOK" "$MCP" "$D5" "$N7" "$WS")
  rc=$?
  check_eq "$mode: the session ran" 0 "$rc"
  landed() { grep -qx "landed: $1" <<<"$out"; }
  if [ $mode = attack ]; then
    # Renaming the parent away fails too: the protected path's ancestors are pinned (EBUSY).
    for w in present-settings present-command present-newcommand present-mcp present-settings-hostpath renamed-parent; do
      check "a write into a present one is refused ($w)" grep -qx "refused: $w" <<<"$out"
    done
    check "the user's settings are as they were" grep -qx '{"model":"sonnet"}' "$WS/$D5/.claude/settings.json"
    check "the user's command is as it was" grep -qx 'the user command' "$WS/$D5/.claude/commands/mine.md"
    check "the user's .mcp.json is as it was" grep -qx '{"mcpServers":{}}' "$WS/$D5/.mcp.json"
    for w in new-claude new-mcp new-link; do check "the agent could create it ($w)" landed $w; done
    check "a new .claude at depth 7 is gone" test ! -e "$WS/$N7/.claude"
    check "... moved aside whole" grep -q pwned "$(ls -d "$WS/$N7"/.claude.blaude-audit-*)/settings.json"
    check "a new .mcp.json in a leaf dir at depth 6 is gone" test ! -e "$WS/leaf/x/y/z/w/.mcp.json"
    check "a new .claude link is gone" test ! -L "$WS/p/q/.claude"
    check "the user's .claude whose parent the agent tried to rename is as it was" \
      grep -qx '{"model":"opus"}' "$WS/m/n/o/.claude/settings.json"
    check "the report names each" sh -c "grep -c 'claude started here would' '$T_DIR/sb.err' | grep -qx 3"
    check "the report gives the undo" grep -q "undo: mv -f '$WS/$N7/.claude.blaude-audit-" "$T_DIR/sb.err"
    check "the user's present ones are not reported" sh -c "! grep -q '$D5/.claude\$\|$D5/.mcp.json\$' '$T_DIR/sb.err'"
  else
    for w in present-settings present-command present-newcommand present-mcp new-claude new-mcp new-link present-settings-hostpath renamed-parent; do
      check "control: the write lands without protection ($w)" landed $w
    done
    check "control: the hook stays in the present settings" grep -q pwned "$WS/$D5/.claude/settings.json"
    check "control: the new .claude stays" grep -q pwned "$WS/$N7/.claude/settings.json"
    check "control: the new .mcp.json stays" grep -q pwned "$WS/leaf/x/y/z/w/.mcp.json"
    check "control: the .claude made again stays" grep -q pwned "$WS/m/n/o/.claude/settings.json"
  fi
done
finish
