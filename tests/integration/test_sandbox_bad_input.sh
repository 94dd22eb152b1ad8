#!/usr/bin/env bash
# Bad input gets a clear error, exit 1, and changes nothing on the host: no ~/.claude.json,
# ~/.claude, MCP token files or bwrap feature cache ("Writes happen before the last
# decision"). Only blaude's own log of the attempt (~/.local/state/blaude) may appear. The real
# blaude as uid 65534, with claude (a stand-in on PATH) as the command, since that is when blaude
# prepares claude's files, and with --exec.
#
# On main before the app-layer fix this FAILS (the "changes nothing" checks): main
# wrote those files before plan() refused the input.
# Control: a good run from the same state does write them, so the snapshot would see a write.
. "$(dirname "$0")/lib.sh"

need_sandbox

H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$WS/.git/hooks" "$T_DIR/bin"
echo "[core]" >"$WS/.git/config"
printf '#!/bin/sh\necho "fake-claude $*"\n' >"$T_DIR/bin/claude"
chmod 755 "$T_DIR/bin" "$T_DIR/bin/claude"
ln -s "$T_DIR/gone" "$T_DIR/broken"
chown -R 65534:65534 "$WS"
# fresh_home: a HOME blaude has never seen, with an npm-linked MCP package (a real run creates
# its token files) and the parent of blaude's log dir (so the log alone changes nothing else).
NVM_LIB="$H/.nvm/versions/node/v20.0.0/lib/node_modules"
fresh_home() {
  rm -rf "$H"
  mkdir -p "$NVM_LIB" "$H/.nvm/versions/node/v20.0.0/bin" "$H/dev/mcp" "$H/.local/state"
  echo '{}' >"$H/dev/mcp/package.json"
  ln -s "$H/dev/mcp" "$NVM_LIB/mcp"
  chown -R -h 65534:65534 "$H"
}

# b DIR ARGS: the real blaude as uid 65534 from DIR, clean environment, no terminal.
b() {
  local dir=$1; shift
  (cd "$dir" && env -i HOME="$H" PATH="$T_DIR/bin:/usr/bin:/bin" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" "$@" </dev/null 2>&1)
}
snapshot() { find "$H" "$WS" -path "$H/.local/state" -prune -o -printf '%p %s %T@\n' | sort; }
# same_as BEFORE: the host is as in the snapshot BEFORE (else the difference is printed).
same_as() { diff <(printf '%s\n' "$1") <(snapshot) | sed "s|$T_DIR/||" | grep '^[<>]'; [ "${PIPESTATUS[0]}" = 0 ]; }

# refused NAME DIR EXPECTED-MESSAGE ARGS...: exit 1, the message, and no change on the host.
refused() {
  local name=$1 dir=$2 msg=$3 before out rc; shift 3
  fresh_home
  before=$(snapshot)
  out=$(b "$dir" "$@") && rc=0 || rc=$?
  check_eq "$name: exit 1" 1 "$rc"
  check "$name: says why" grep -q -- "$msg" <<<"$out"
  check "$name: nothing started" not grep -q fake-claude <<<"$out"
  check "$name: changes nothing on the host" same_as "$before"
}

for cmd in claude exec; do
  if [ $cmd = claude ]; then run=(-p hi); else run=(--exec claude -p hi); fi
  refused "$cmd: -m of a missing path" "$WS" "mount path does not exist" -m "$T_DIR/nope" "${run[@]}"
  refused "$cmd: -m \$HOME" "$WS" "refusing to mount your home directory" -m "$H" "${run[@]}"
  refused "$cmd: -m of a broken link" "$WS" "broken symlink" -m "$T_DIR/broken" "${run[@]}"
  refused "$cmd: \$HOME as the workspace" "$H" "refusing to use your home directory" "${run[@]}"
done
printf 'allow-write /\n' >"$WS/.blaude"
chown 65534:65534 "$WS/.blaude"
refused "an invalid policy" "$WS" "would grant the whole file system" --trust-policy -p hi
rm "$WS/.blaude"

# Control: the same state, good input: claude runs and its files appear.
fresh_home
before=$(snapshot)
out=$(b "$WS" -p hi)
check "control: a good run changes the host (the snapshot sees it)" not same_as "$before" >/dev/null
check_eq "control: a good run starts claude" "fake-claude --dangerously-skip-permissions -p hi" "$(grep fake-claude <<<"$out")"
check "control: a good run writes ~/.claude.json" test -f "$H/.claude.json"
check "control: a good run creates ~/.claude" test -d "$H/.claude"
check "control: a good run caches bwrap's features" test -f "$H/.cache/blaude/bwrap-features-65534"
check "control: a good run creates the MCP token file" test -f "$H/dev/mcp/.token-cache.json"

finish
