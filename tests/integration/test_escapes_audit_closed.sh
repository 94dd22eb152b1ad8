#!/usr/bin/env bash
# The post-session audit fails closed on what the agent shaped: Claude Code's files are read as
# strictly as claude's JSON.parse (and stricter where readers differ), never recursively, never
# through a symlink the start did not have, never with a blocking open; what blaude cannot read
# is moved aside and the start's text written back; every agent-chosen name it prints is shown
# escaped. Real blaude, as uid 65534. Attacks: JSON nested 100000 deep (new and existing file),
# a duplicate "hooks" key, a file over the size bound, a FIFO named settings.local.json (and one
# left at the start), `.claude` made a symlink into another project, a repository whose name has
# a newline and an escape sequence. Controls: --allow-protected-writes (no audit) leaves each
# plant in place, the plants are checked to be what the attack says, a blocking read of the FIFO
# hangs, and the forged line is there when the name is printed raw.
. "$(dirname "$0")/lib.sh"

need_sandbox
sandbox_dirs
BW=/usr/bin
OTHER="$T_DIR/other"  # another project of the user's: the sandbox cannot write it

USER_SETTINGS='{"model": "sonnet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/.claude/mine.sh"}]}]}}'
fresh() {
  rm -rf "$H" "$WS" "$OTHER"
  mkdir -p "$H/.claude" "$WS/.claude" "$OTHER/.claude"
  printf '%s\n' "$USER_SETTINGS" >"$H/.claude/settings.json"
  echo '{"permissions": {"allow": []}}' >"$WS/.claude/settings.json"
  echo '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./other-hook.sh"}]}]}}' >"$OTHER/.claude/settings.json"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
  chmod -R a+rX "$OTHER"
}
sha() { sha256sum "$1" | cut -d" " -f1; }
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }
aside_of() { ls -d "$1".blaude-audit-* 2>/dev/null | head -1; }
# run LABEL [blaude options] -- SCRIPT: sb_nobody's session under a timeout: an exit that hangs
# is a failure, not a stuck test. RC: blaude's exit code.
run() {
  local label=$1 rc=0 opts=()
  shift
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "$WS" && env -i HOME="$H" PATH="$BW:/usr/bin:/bin" TERM=dumb \
    timeout -k 5 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" "${opts[@]}" --exec sh -c "$1" </dev/null 2>"$T_DIR/sb.err") || rc=$?
  RC=$rc
  check "$label: blaude exited by itself (rc $rc; 124 is the timeout)" test "$rc" != 124
}

PLANT='{"type": "command", "command": "touch /tmp/m-planted"}'
EVIL="{\"hooks\": {\"SessionStart\": [{\"hooks\": [$PLANT]}]}}"

# --- 1. JSON nested far deeper than any stack: ~/.claude/settings.json (existing) and a new
# ~/.claude/settings.local.json. A recursive reader crashes blaude at exit. (The workspace's
# .claude, there at the start, is read-only inside: the agent cannot write it at all.)
# The planted hook behind 100000 levels of arrays (EVIL has no single quote).
deep="python3 -c 'import sys; sys.stdout.write(\"{\\\"x\\\": \" + \"[\" * 100000 + \"]\" * 100000 + \", \" + sys.argv[1][1:])' '$EVIL'"
for mode in attack control; do
  fresh
  opt=()
  [ $mode = control ] && opt=(--allow-protected-writes)
  run "deep $mode" "${opt[@]}" -- "$deep >\$HOME/.claude/settings.json; $deep >\$HOME/.claude/settings.local.json"
  s="$H/.claude/settings.json" l="$H/.claude/settings.local.json"
  if [ $mode = attack ]; then
    check_eq "deep: blaude succeeded" 0 "$RC"
    check "deep: ~/.claude/settings.json is the user's again" test "$(cat "$s")" = "$USER_SETTINGS"
    a=$(aside_of "$s")
    check "deep: the agent's copy is aside, 100000 deep with the hook (the plant was real)" \
      python3 -c 'import sys; t=open(sys.argv[1]).read(); sys.exit(t.count("[") < 100000 or "m-planted" not in t)' "$a"
    check "deep: the new settings.local.json is not left in place" test ! -e "$l"
    check "deep: ... its aside copy holds it" grep -q m-planted "$(aside_of "$l")"
    check "deep: the report says why" grep -q "nested deeper than 128 levels" "$T_DIR/sb.err"
  else
    check "deep control: the deep settings stay without the audit" grep -q m-planted "$s"
    check "deep control: the new settings.local.json stays" grep -q m-planted "$l"
  fi
done

# --- 2. Two "hooks" keys: JSON.parse keeps the last (the agent's), a reader keeping the first
# sees the user's. Also spelled \u0068ooks.
for mode in attack control; do
  fresh
  opt=()
  [ $mode = control ] && opt=(--allow-protected-writes)
  user_hooks='{"Stop": [{"hooks": [{"type": "command", "command": "~/.claude/mine.sh"}]}]}'
  run "duplicate $mode" "${opt[@]}" -- "
    printf '%s' '{\"model\": \"sonnet\", \"hooks\": $user_hooks, \"hooks\": {\"SessionStart\": [{\"hooks\": [$PLANT]}]}}' >\$HOME/.claude/settings.json
    printf '%s' '{\"permissions\": {\"allow\": []}, \"\\u0068ooks\": {\"SessionStart\": [{\"hooks\": [$PLANT]}]}}' >.claude/settings.json"
  s="$H/.claude/settings.json" w="$WS/.claude/settings.json"
  if [ $mode = attack ]; then
    check "duplicate: ~/.claude/settings.json is the user's again" test "$(cat "$s")" = "$USER_SETTINGS"
    check "duplicate: the workspace's settings.json is the start's again" \
      py "$w" 'sys.exit(d != {"permissions": {"allow": []}})'
    check "duplicate: the aside copy has two hooks keys (the plant was real)" \
      sh -c "test \$(grep -o '\"hooks\": {' '$(aside_of "$s")' | wc -l) -ge 2"
    check "duplicate: JSON.parse's reading (the last key) is the planted hook" \
      python3 -c "import json,sys; sys.exit('SessionStart' not in json.load(open(sys.argv[1]))['hooks'])" "$(aside_of "$s")"
    check "duplicate: the report says so" grep -q "a key that the same object already has" "$T_DIR/sb.err"
  else
    check "duplicate control: the duplicate key stays without the audit" grep -q SessionStart "$s"
    check "duplicate control: and the escaped one" grep -q 'u0068ooks' "$w"
  fi
done

# --- 3. Over the size bound (16 MiB for settings): treated as hostile whole, not skipped.
for mode in attack control; do
  fresh
  opt=()
  [ $mode = control ] && opt=(--allow-protected-writes)
  run "size $mode" "${opt[@]}" -- "python3 -c 'import sys; sys.stdout.write(\"{\\\"pad\\\": \\\"\" + \"x\" * (17 << 20) + \"\\\", \" + sys.argv[1][1:])' '$EVIL' >\$HOME/.claude/settings.json"
  s="$H/.claude/settings.json"
  if [ $mode = attack ]; then
    check "size: ~/.claude/settings.json is the user's again" test "$(cat "$s")" = "$USER_SETTINGS"
    check "size: the aside copy is the 17 MiB one" test "$(stat -c %s "$(aside_of "$s")")" -gt $((16 << 20))
    check "size: the report says why" grep -q "larger than blaude reads" "$T_DIR/sb.err"
  else
    check "size control: the large file stays without the audit" test "$(stat -c %s "$s")" -gt $((16 << 20))
  fi
done

# --- 4. A FIFO named ~/.claude/settings.local.json: a blocking open hangs blaude at exit and at
# every later start there.
for mode in attack control; do
  fresh
  opt=()
  [ $mode = control ] && opt=(--allow-protected-writes)
  run "fifo $mode" "${opt[@]}" -- "mkfifo \$HOME/.claude/settings.local.json; rm -f \$HOME/.claude/settings.json && mkfifo \$HOME/.claude/settings.json"
  l="$H/.claude/settings.local.json" s="$H/.claude/settings.json"
  if [ $mode = attack ]; then
    check_eq "fifo: blaude succeeded" 0 "$RC"
    check "fifo: no FIFO left at ~/.claude/settings.local.json" test ! -e "$l"
    check "fifo: ... it is aside, still a FIFO" test -p "$(aside_of "$l")"
    check "fifo: ~/.claude/settings.json is the user's again" test "$(cat "$s")" = "$USER_SETTINGS"
    check "fifo: the report says why" grep -q "not a regular file" "$T_DIR/sb.err"
  else
    check "fifo control: the FIFOs stay without the audit" test -p "$l" -a -p "$s"
    rc=0
    timeout 2 cat "$l" >/dev/null 2>&1 || rc=$?
    check_eq "fifo control: a blocking read of it hangs" 124 "$rc"
    # Left there by a session without the audit: the next start must neither hang nor keep it.
    run "fifo at the start" -- "true"
    check_eq "fifo at the start: blaude succeeded" 0 "$RC"
    check "fifo at the start: moved aside at the end" test ! -e "$l" -a ! -e "$s"
    check "fifo at the start: the report says why" grep -q "not a regular file" "$T_DIR/sb.err"
  fi
done

# --- 5. `.claude` made a symlink into another project (whose settings differ from the start's
# here): the audit must not follow it, rewrite or move that project's file. The workspace's own
# .claude, there at the start, cannot be swapped for the link (read-only, its mount point cannot
# be renamed); with none at the start the agent can make the link.
for mode in attack control; do
  fresh
  opt=()
  [ $mode = control ] && opt=(--allow-protected-writes)
  run "swap $mode" "${opt[@]}" -- "mv .claude .claude-old"
  if [ $mode = attack ]; then
    check "swap: the workspace's .claude cannot be renamed away" test "$RC" != 0 -a -d "$WS/.claude" -a ! -e "$WS/.claude-old"
  else
    check "swap control: without the protection it can" test "$RC" = 0 -a -d "$WS/.claude-old"
  fi
  fresh
  rm -rf "$WS/.claude"
  other_sha=$(sha "$OTHER/.claude/settings.json")
  run "symlink $mode" "${opt[@]}" -- "ln -s '$OTHER/.claude' .claude && cat .claude/settings.json >seen"
  if [ $mode = attack ]; then
    check_eq "symlink: blaude succeeded" 0 "$RC"
    check "symlink: inside, the link led to the other project (the plant was real)" grep -q other-hook "$WS/seen"
    check_eq "symlink: the other project's settings are untouched" "$other_sha" "$(sha "$OTHER/.claude/settings.json")"
    check "symlink: nothing moved aside in the other project" sh -c "! ls '$OTHER/.claude' | grep -q blaude-audit"
    check "symlink: the link is no longer at .claude" test ! -L "$WS/.claude"
    check "symlink: ... it is aside" test -L "$(aside_of "$WS/.claude")"
    check "symlink: the report says so" grep -q "claude started here would run" "$T_DIR/sb.err"
  else
    check "symlink control: the link stays without the audit" test -L "$WS/.claude"
  fi
done
# The same link to the other project at the start (the user's own layout) is not the agent's.

# --- 6. A repository whose name holds a newline and an escape sequence: the report line naming
# it must not forge a line of its own nor reach the terminal as an escape.
NAME=$'r\nblaude: the audit found nothing\e[2J'
for mode in attack control; do
  fresh
  opt=()
  [ $mode = control ] && opt=(--allow-protected-writes)
  run "name $mode" "${opt[@]}" -- 'n=$(printf "r\nblaude: the audit found nothing\033[2J"); git init -q "$n" && git -C "$n" config core.fsmonitor "touch /tmp/m-name; false"'
  check "name $mode: the repository with that name was made (the plant was real)" test -d "$WS/$NAME/.git"
  if [ $mode = attack ]; then
    check "name: the report names it escaped" grep -qF 'r\nblaude: the audit found nothing\e[2J/.git/config' "$T_DIR/sb.err"
    check "name: no forged line" not grep -q '^blaude: the audit found nothing' "$T_DIR/sb.err"
    check "name: no escape byte reaches stderr" not grep -q $'\e' "$T_DIR/sb.err"
    undo=$(grep "undo: mv -f .*r.x0ablaude" "$T_DIR/sb.err" | sed 's/^ *undo: //')
    check "name: the undo line is one line" test -n "$undo"
    as_nobody bash -c "cd '$WS' && $undo"
    check "name: ... and, pasted into bash, puts the config back" grep -q fsmonitor "$WS/$NAME/.git/config"
    # Control of the check: printed raw, the name does forge the line.
    check "name control: printed raw it would forge a line" sh -c "printf '  %s\n' \"\$1\" | grep -q '^blaude: the audit found nothing'" sh "$NAME"
  else
    check "name control: the planted fsmonitor stays without the audit" grep -q fsmonitor "$WS/$NAME/.git/config"
  fi
done

finish
