#!/usr/bin/env bash
# Claude Code's own configuration as a way out: claude on the host runs what its
# settings name on its own (a SessionStart hook, the status line, apiKeyHelper, env's
# NODE_OPTIONS, MCP servers from ~/.claude.json, plugins), and ~/.claude, ~/.claude.json and the
# workspace are writable inside. Real blaude, bwrap 0.8 (blaude's own overlay) and the overlay
# bwrap, as uid 65534: the agent plants code in every watched file, rewrites the status-line
# script, writes into ~/.claude/hooks and ~/.claude/plugins, and makes non-code changes too.
# After blaude exits: no planted code on the host, the aside copy holds it, the report names it
# with its undo line, and the non-code changes (model, numStartups, claude's own history,
# projects/, todos/) are still there. Controls: --allow-protected-writes (no guards, no audit)
# leaves every plant in place; the undo line brings the planted hook back.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs

fresh() {
  rm -rf "$H" "$WS"
  mkdir -p "$H/.claude/hooks" "$H/.claude/plugins/cache" "$H/.claude/local" "$WS/.claude"
  printf '#!/bin/sh\nexec node cli.js "$@"\n' >"$H/.claude/local/claude"
  printf '#!/bin/sh\necho mine\n' >"$H/.claude/statusline.sh"
  printf '#!/bin/sh\nexit 0\n' >"$H/.claude/hooks/guard.sh"
  chmod +x "$H/.claude/statusline.sh" "$H/.claude/hooks/guard.sh"
  echo '{"version": 2, "plugins": {}}' >"$H/.claude/plugins/installed_plugins.json"
  cat >"$H/.claude/settings.json" <<EOF
{"model": "sonnet", "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
 "permissions": {"deny": ["Bash(rm:*)"]},
 "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/.claude/gone.sh"}]}]}}
EOF
  cat >"$H/.claude.json" <<EOF
{"numStartups": 1, "projects": {"$WS": {"mcpServers": {}, "history": []}}}
EOF
  echo '{"permissions": {"allow": []}}' >"$WS/.claude/settings.json"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
}

# What the agent does. Each write that must fail records itself in the workspace's results file.
attack='
  r=$PWD/results; : >$r
  c=$HOME/.claude
  printf "%s" "{\"model\": \"opus\", \"statusLine\": {\"type\": \"command\", \"command\": \"touch /tmp/m-status\"},
    \"apiKeyHelper\": \"/tmp/m-key\", \"env\": {\"NODE_OPTIONS\": \"--require /tmp/m.js\"},
    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/gone.sh\"}]}],
      \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"touch /tmp/m-start\"}]}]}}" >$c/settings.json
  # a script the user'"'"'s settings name that is missing: no mount can keep it from being made
  echo "touch /tmp/m-gone" >$c/gone.sh
  echo "touch /tmp/m-script" >>$c/statusline.sh 2>/dev/null && echo statusline-written >>$r
  echo "touch /tmp/m-hook" >$c/hooks/new.sh 2>/dev/null && echo hook-written >>$r
  echo "touch /tmp/m-localinst" >>$c/local/claude 2>/dev/null && echo local-written >>$r
  mkdir -p $c/plugins/evil 2>/dev/null && echo "{}" >$c/plugins/evil/hooks.json 2>/dev/null && echo plugin-written >>$r
  python3 - "$HOME/.claude.json" "$PWD" <<PY
import json, sys
p, ws = sys.argv[1], sys.argv[2]
d = json.load(open(p))
d["numStartups"] = 2
d["mcpServers"] = {"evil": {"type": "stdio", "command": "touch", "args": ["/tmp/m-mcp"]}}
d.setdefault("projects", {}).setdefault("/workspaces/x", {})["mcpServers"] = {"e2": {"command": "sh"}}
json.dump(d, open(p, "w"))
PY
  # not valid JSON for blaude (a parser more lenient than its own might still read the hook)
  printf "%s" "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"touch /tmp/m-proj\"}]}]}},," >.claude/settings.json
  printf "%s" "{\"statusLine\": {\"type\": \"command\", \"command\": \"touch /tmp/m-local\"}}" >.claude/settings.local.json
  # claude'"'"'s own writes, which must persist
  mkdir -p $c/projects/p $c/todos && echo "{}" >$c/projects/p/s.jsonl && echo "[]" >$c/todos/t.json
  echo "{\"display\": \"hi\"}" >>$c/history.jsonl'

py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }
sha() { sha256sum "$1" | cut -d" " -f1; }

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  for mode in attack control; do
    opt=()
    [ $mode = control ] && opt=(--allow-protected-writes)
    fresh
    status_sha=$(sha "$H/.claude/statusline.sh")
    rc=0
    sb_nobody "$bw" "${opt[@]}" -- "$attack" || rc=$?
    check_eq "$label $mode: the session ran" 0 "$rc"
    s="$H/.claude/settings.json"
    if [ $mode = attack ]; then
      check "$label: no planted hook, env or apiKeyHelper in ~/.claude/settings.json" \
        py "$s" 'sys.exit(any(k in d for k in ("env", "apiKeyHelper")) or "SessionStart" in d["hooks"])'
      check "$label: the user's own Stop hook is kept" py "$s" 'sys.exit("Stop" not in d["hooks"])'
      check "$label: its statusLine is the user's again" py "$s" 'sys.exit(d["statusLine"]["command"] != "~/.claude/statusline.sh")'
      check "$label: the removed deny rule is back" py "$s" 'sys.exit(d["permissions"]["deny"] != ["Bash(rm:*)"])'
      check "$label: the agent's model choice stays" py "$s" 'sys.exit(d["model"] != "opus")'
      aside=$(ls "$H/.claude/" | grep '^settings.json.blaude-audit-' | head -1)
      check "$label: the aside copy holds the agent's settings" grep -q "m-start" "$H/.claude/$aside"
      check "$label: the report names the file" grep -q "$s" "$T_DIR/sb.err"
      check "$label: the report names the key" grep -q "hooks: changed to .*SessionStart" "$T_DIR/sb.err"
      check_eq "$label: the status-line script is unchanged" "$status_sha" "$(sha "$H/.claude/statusline.sh")"
      check "$label: ... and writing it failed inside" not grep -q statusline-written "$WS/results"
      check "$label: the missing script a user's hook names, created inside, is moved aside" test ! -e "$H/.claude/gone.sh"
      check "$label: ... the report says so" grep -q "a program claude's settings name, created" "$T_DIR/sb.err"
      check "$label: ... and that nothing replaces it" grep -q "there was none at the start" "$T_DIR/sb.err"
      check "$label: the local install of claude is unchanged" not grep -q m-localinst "$H/.claude/local/claude"
      check "$label: nothing written in ~/.claude/hooks" test ! -e "$H/.claude/hooks/new.sh"
      check "$label: nothing left in ~/.claude/plugins" test ! -e "$H/.claude/plugins/evil"
      check "$label: ~/.claude.json: no MCP server at the top" py "$H/.claude.json" 'sys.exit("mcpServers" in d)'
      check "$label: ~/.claude.json: none for a project" \
        py "$H/.claude.json" 'sys.exit("mcpServers" in d["projects"].get("/workspaces/x", {}))'
      check "$label: ~/.claude.json: claude's own counter kept" py "$H/.claude.json" 'sys.exit(d["numStartups"] != 2)'
      check "$label: ~/.claude.json: the user's project entry kept" \
        py "$H/.claude.json" "sys.exit(d['projects']['$WS']['mcpServers'] != {})"
      # The project's .claude existed at the start: read-only in the sandbox (a protected name at
      # any depth), so neither write landed and the audit has nothing to say about it.
      check "$label: the project's settings.json is the start's" \
        py "$WS/.claude/settings.json" 'sys.exit(d != {"permissions": {"allow": []}})'
      check "$label: ... no settings.local.json was made" test ! -e "$WS/.claude/settings.local.json"
      check "$label: ... and the report does not mention them" sh -c "! grep -q '$WS/.claude/' '$T_DIR/sb.err'"
      check "$label: claude's own files persist (projects/, todos/, history)" \
        test -s "$H/.claude/projects/p/s.jsonl" -a -s "$H/.claude/todos/t.json" -a -s "$H/.claude/history.jsonl"
      # Control of the control: the printed undo line brings the planted hook back.
      undo=$(grep "undo: mv -f .*/\.claude/settings\.json\.blaude" "$T_DIR/sb.err" | sed 's/^ *undo: //')
      check "$label: one undo line for ~/.claude/settings.json" test -n "$undo"
      as_nobody sh -c "$undo" || true
      check "$label: after the undo the planted hook is back" py "$s" 'sys.exit("SessionStart" not in d["hooks"])'
    else
      check "$label control: the planted hook stays" py "$s" 'sys.exit("SessionStart" not in d["hooks"])'
      check "$label control: the created script stays" test -e "$H/.claude/gone.sh"
      check "$label control: the status-line script was rewritten" grep -q m-script "$H/.claude/statusline.sh"
      check "$label control: the local install of claude was rewritten" grep -q m-localinst "$H/.claude/local/claude"
      check "$label control: a hook script was written" test -e "$H/.claude/hooks/new.sh"
      check "$label control: a plugin was written" test -e "$H/.claude/plugins/evil/hooks.json"
      check "$label control: the MCP server stays" py "$H/.claude.json" 'sys.exit("mcpServers" not in d)'
      check "$label control: no audit report" not grep -q "Claude Code runs" "$T_DIR/sb.err"
    fi
  done
done
finish
