#!/usr/bin/env bash
# Installs the real Claude Code (npm @anthropic-ai/claude-code) for the end-to-end tests, owned by
# an unprivileged user: claude refuses --dangerously-skip-permissions as root, so the tests run it
# as uid 65534. Idempotent: a working install under $DEST is reused (CI caches that path).
# Usage: scripts/install-test-claude.sh            → prints the path of the claude binary
# Env: BLAUDE_TEST_CLAUDE_DIR (default /var/cache/blaude-test/claude), BLAUDE_TEST_CLAUDE_VERSION.
set -euo pipefail
DEST=${BLAUDE_TEST_CLAUDE_DIR:-/var/cache/blaude-test/claude}
VERSION=${BLAUDE_TEST_CLAUDE_VERSION:-latest}
BIN="$DEST/node_modules/.bin/claude"
UID_NOBODY=65534

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=$UID_NOBODY --regid=$UID_NOBODY --clear-groups "$@"
  else
    "$@"
  fi
}
works() { [ -x "$BIN" ] && as_owner env HOME="$DEST/home" "$BIN" --version >/dev/null 2>&1; }

if works; then echo "$BIN"; exit 0; fi

command -v npm >/dev/null || { echo "install-test-claude: npm not found (apt install npm)" >&2; exit 1; }
mkdir -p "$DEST" 2>/dev/null || {
  echo "install-test-claude: cannot create $DEST (run as root, or set BLAUDE_TEST_CLAUDE_DIR)" >&2
  exit 1
}
[ "$(id -u)" = 0 ] && { chown $UID_NOBODY:$UID_NOBODY "$DEST"; chmod 755 "$(dirname "$DEST")" "$DEST"; }

# One installer at a time (parallel CTest jobs may call this): the lock lives beside $DEST.
exec 9>"$DEST.lock"
flock 9
if works; then echo "$BIN"; exit 0; fi

cd "$DEST"
as_owner mkdir -p "$DEST/home"
[ -f package.json ] || as_owner sh -c 'echo "{\"private\": true}" > package.json'
# A throw-away npm cache: the package holds a ~200 MB binary, and CI caches $DEST. Scripts must
# run: the postinstall puts the native binary in place of bin/claude.exe.
CACHE="$DEST/.npm-cache"
as_owner env HOME="$DEST/home" npm_config_cache="$CACHE" npm_config_update_notifier=false \
  npm_config_ignore_scripts=false npm_config_omit= \
  npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$VERSION" >&2 || {
  echo "install-test-claude: npm install failed (is https://registry.npmjs.org reachable?)" >&2
  rm -rf "$CACHE"
  exit 1
}
rm -rf "$CACHE" "$DEST/home/.npm"
works || { echo "install-test-claude: $BIN does not run after install" >&2; exit 1; }
echo "$BIN"
