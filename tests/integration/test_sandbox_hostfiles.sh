#!/usr/bin/env bash
# What other programs configured in $HOME and the environment, with the real bwrap as uid
# 65534: MCP token files of npm-linked packages (with planted symlinks), files named by claude's
# env vars, fnm/pnpm/corepack. --clear-tmp keeps the test dir (under /tmp) out of the sandbox,
# so anything of it seen inside arrived through the mount under test.
. "$(dirname "$0")/lib.sh"

need_sandbox

NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
mkdir -p "$H/.ssh" "$WS"
echo SECRET >"$H/.ssh/secret"
chown -R $NOBODY:$NOBODY "$H" "$WS"
SB_ENV=()
# nob CMD...: CMD as uid 65534 from the workspace, with a clean environment plus SB_ENV.
nob() { (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin "${SB_ENV[@]}" \
  setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@" </dev/null); }
# sb [blaude options] -- SCRIPT: the real blaude runs SCRIPT in sh inside the sandbox
sb() {
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  nob "$BLAUDE" "${opts[@]}" --exec sh -c "$2" 2>>"$T_DIR/sb.err"
}

# --- npm-linked packages: token files read-write, the rest read-only, links never bound -------
NVM_LIB="$H/.nvm/versions/node/v20.0.0/lib/node_modules"
mkdir -p "$NVM_LIB/npm" "$H/.nvm/versions/node/v20.0.0/bin" "$H/dev/mcp" "$H/dev/evil" "$H/dev/fresh"
echo '{}' | tee "$H/dev/mcp/package.json" "$H/dev/evil/package.json" "$H/dev/fresh/package.json" "$NVM_LIB/npm/package.json" >/dev/null
echo "code" >"$H/dev/mcp/index.js"
ln -s "$H/dev/mcp" "$NVM_LIB/mcp"
ln -s "$H/dev/evil" "$NVM_LIB/evil"
ln -s "$H/dev/fresh" "$NVM_LIB/fresh"
# A package under development planted links at its token names (host secret, a new host file).
ln -s "$H/.ssh/secret" "$H/dev/evil/.token-cache.json"
ln -s "$H/.bashrc" "$H/dev/evil/.selected-account.json"
chown -R $NOBODY:$NOBODY "$H"
chown -h $NOBODY:$NOBODY "$H/dev/evil/.token-cache.json" "$H/dev/evil/.selected-account.json"

nob "$BLAUDE" --dry-run --exec true >/dev/null 2>&1
check "--dry-run creates no token file" test ! -e "$H/dev/fresh/.token-cache.json"
: >"$T_DIR/sb.err"
sb -- "echo token >'$H/dev/mcp/.token-cache.json'; echo acct >'$H/dev/mcp/.selected-account.json'
  echo evil >'$H/dev/mcp/index.js' 2>/dev/null; echo evil >'$H/dev/mcp/new.js' 2>/dev/null
  echo pwned >'$H/dev/evil/.token-cache.json' 2>/dev/null; echo pwned >'$H/dev/evil/.selected-account.json' 2>/dev/null
  cat '$H/dev/evil/.token-cache.json' 2>/dev/null; cat '$H/dev/mcp/index.js'; true" >"$T_DIR/linked.out"
check_eq "linked package: a token written inside persists on the host" "token" "$(cat "$H/dev/mcp/.token-cache.json")"
check_eq "linked package: the second token file too" "acct" "$(cat "$H/dev/mcp/.selected-account.json")"
check_eq "linked package: token files are created private" "600" "$(stat -c %a "$H/dev/fresh/.token-cache.json")"
check "linked package: the package is visible inside" grep -q '^code$' "$T_DIR/linked.out"
check_eq "linked package: the package itself is read-only" "code" "$(cat "$H/dev/mcp/index.js")"
check "linked package: no new file in the package" test ! -e "$H/dev/mcp/new.js"
check_eq "planted token link: the host file it names is untouched" "SECRET" "$(cat "$H/.ssh/secret")"
check "planted token link: no host file is created through it" test ! -e "$H/.bashrc"
check "planted token link: its target is not readable inside" not grep -q SECRET "$T_DIR/linked.out"
check "planted token link: reported" grep -q "token file $H/dev/evil/.token-cache.json is a symlink" "$T_DIR/sb.err"

# --- files and dirs named by claude's environment variables ----------------------------------
echo "ENVFILE" >"$H/envfile"
mkdir -p "$T_DIR/pdata"
chown $NOBODY:$NOBODY "$H/envfile" "$T_DIR/pdata"
SB_ENV=(CLAUDE_ENV_FILE="$H/envfile" CLAUDE_PLUGIN_DATA="$T_DIR/pdata" CLAUDE_LOGS_DIR="$H")
: >"$T_DIR/sb.err"
out=$(sb --clear-tmp -- "cat '$H/envfile'; echo data >'$T_DIR/pdata/f'; echo evil >'$H/from-sandbox' 2>/dev/null; true")
check "CLAUDE_ENV_FILE is readable inside" grep -q ENVFILE <<<"$out"
check_eq "CLAUDE_PLUGIN_DATA is writable and persists" "data" "$(cat "$T_DIR/pdata/f" 2>&1)"
check "a variable naming \$HOME does not make it writable" test ! -e "$H/from-sandbox"
check "... and that is reported" grep -q "not mounting CLAUDE_LOGS_DIR" "$T_DIR/sb.err"
SB_ENV=()
out=$(sb --clear-tmp -- "cat '$H/envfile' 2>&1; true")
check "control: without CLAUDE_ENV_FILE the file is not there" not grep -q ENVFILE <<<"$out"

# --- fnm, pnpm, corepack: readable, on PATH, not writable ------------------------------------
FNM="$H/.local/share/fnm"
mkdir -p "$FNM/node-versions/v22.0.0/installation/bin" "$H/.local/share/pnpm/bin" "$H/.cache/node/corepack/v1"
printf '#!/bin/sh\necho fnm-node\n' >"$FNM/node-versions/v22.0.0/installation/bin/node"
printf '#!/bin/sh\necho pnpm-tool\n' >"$H/.local/share/pnpm/bin/pnpm-tool"
echo "corepack" >"$H/.cache/node/corepack/v1/pm"
chmod 755 "$FNM/node-versions/v22.0.0/installation/bin/node" "$H/.local/share/pnpm/bin/pnpm-tool"
chown -R $NOBODY:$NOBODY "$H"
tools='node; pnpm-tool; cat "$HOME/.cache/node/corepack/v1/pm"
  echo x >"$HOME/.local/share/fnm/evil" 2>/dev/null; echo x >"$HOME/.cache/node/corepack/evil" 2>/dev/null; true'
out=$(sb -- "$tools")
check "fnm's node is on the sandbox PATH" grep -q '^fnm-node$' <<<"$out"
check "pnpm's bin dir is on the sandbox PATH" grep -q '^pnpm-tool$' <<<"$out"
check "corepack's dir is readable" grep -q '^corepack$' <<<"$out"
check "fnm's dir does not take writes" test ! -e "$FNM/evil"
check "corepack's dir does not take writes" test ! -e "$H/.cache/node/corepack/evil"
sb --allow-protected-writes -- "$tools" >/dev/null
check "control: with --allow-protected-writes the write reaches fnm's dir" test -e "$FNM/evil"

finish
