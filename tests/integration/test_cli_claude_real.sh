#!/usr/bin/env bash
# The real Claude Code (npm @anthropic-ai/claude-code), started through blaude in tmux as an
# unprivileged user (claude refuses --dangerously-skip-permissions as root). No network here:
# claude shows its first screen (the folder-trust question), then its welcome screen with
# "Not logged in"; `-p` exits 1 with "Not logged in". blaude must render those screens and
# exit with claude's own status, compared against claude started directly.
# For now through --no-sandbox; the lead switches this to the sandbox once the planner lands.
. "$(dirname "$0")/lib.sh"

CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")
log "claude: $CLAUDE_BIN ($(as_nobody env HOME="$T_DIR" "$CLAUDE_BIN" --version 2>/dev/null))"

# One unprivileged user's world: its own HOME and project directory.
mkdir -p "$T_DIR/home" "$T_DIR/proj" "$T_DIR/home2" "$T_DIR/proj2"
chown 65534:65534 "$T_DIR/home" "$T_DIR/proj" "$T_DIR/home2" "$T_DIR/proj2"
USER_PATH="$CLAUDE_DIR:/usr/local/bin:/usr/bin:/bin"
# as_user HOME CMD...: the command as uid 65534 with a clean, minimal environment.
as_user() { local h=$1; shift; as_nobody env -i HOME="$h" TERM=xterm-256color LANG=C.UTF-8 PATH="$USER_PATH" "$@"; }

# --- claude's version, through blaude (-v is claude's) --------------------------------------
direct=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" claude -v </dev/null 2>&1)
via=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" "$BLAUDE" --no-sandbox -v </dev/null 2>/dev/null)
log "claude -v: $direct"
check "claude -v prints a version" grep -q 'Claude Code' <<<"$direct"
check_eq "blaude -v prints claude's version" "$direct" "$via"

# --- -p without login: claude's own exit status and message ---------------------------------
set +e
d_out=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" claude --dangerously-skip-permissions -p hello </dev/null 2>&1); d_rc=$?
b_out=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" "$BLAUDE" --no-sandbox -p hello </dev/null 2>/dev/null); b_rc=$?
set -e
log "claude -p: rc=$d_rc: $d_out"
check "claude -p fails here (no login, no network)" test "$d_rc" -ne 0
check_eq "blaude -p exits with claude's status" "$d_rc" "$b_rc"
check_eq "blaude -p shows claude's message" "$d_out" "$b_out"

# --- interactive, in tmux: the first screen renders, then claude's exit status ---------------
# start_session NAME HOME PROJ CMD...: runs CMD as the user in its own tmux session; the exit
# status lands in $T_DIR/NAME.rc.
start_session() {
  local name=$1 home=$2 proj=$3; shift 3
  tm -f /dev/null new-session -d -s "$name" -x 100 -y 30 \
    "cd '$proj' && env -i HOME='$home' TERM=xterm-256color LANG=C.UTF-8 PATH='$USER_PATH' \
     setpriv --reuid=65534 --regid=65534 --clear-groups $* ; echo \$? > '$T_DIR/$name.rc'"
  tm set-option -t "$name" remain-on-exit on >/dev/null
}
screen_of() { tm capture-pane -t "$1" -p -J; }
wait_screen() { # wait_screen NAME REGEX SECONDS
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    screen_of "$1" | grep -Eq -- "$2" && return 0
    sleep 0.1
  done
  echo "--- $1: timed out waiting for /$2/:" >&2
  screen_of "$1" | grep -v '^$' | tail -20 >&2
  return 1
}
wait_rc() { local i; for ((i = 0; i < $2 * 10; i++)); do [ -s "$T_DIR/$1.rc" ] && { cat "$T_DIR/$1.rc"; return; }; sleep 0.1; done; echo timeout; }

# 0. Control: claude alone in a fresh HOME starts its onboarding, which needs the network
#    (here: "Failed to connect to api.anthropic.com"), and exits. blaude sets the onboarding
#    flags first, which is why it reaches the screens below offline.
mkdir -p "$T_DIR/home3" && chown 65534:65534 "$T_DIR/home3"
start_session fresh "$T_DIR/home3" "$T_DIR/proj2" claude --dangerously-skip-permissions
f_rc=$(wait_rc fresh 60)
log "claude alone, fresh HOME, exit $f_rc:"
screen_of fresh | grep -v '^$' | sed 's/^/    | /'
check "control: claude alone in a fresh HOME stops at onboarding offline" test "$f_rc" != 0 -a "$f_rc" != timeout
tm kill-session -t fresh

# The direct run gets the same flags blaude writes, so both start from the same state.
printf '{"hasCompletedOnboarding": true, "bypassPermissionsModeAccepted": true}\n' >"$T_DIR/home2/.claude.json"
chown 65534:65534 "$T_DIR/home2/.claude.json"

# 1. Refuse the folder-trust question: claude exits 1 "after the screen". Same for both.
start_session direct "$T_DIR/home2" "$T_DIR/proj2" claude --dangerously-skip-permissions
start_session blaude "$T_DIR/home" "$T_DIR/proj" "$BLAUDE" --no-sandbox
for s in direct blaude; do
  check "$s: claude's first screen renders" wait_screen "$s" 'Quick safety check|trust this folder' 60
done
log "first screen through blaude:"
screen_of blaude | grep -v '^$' | sed 's/^/    | /'
# "No, exit" is preselected. Keys typed before claude switches its terminal to raw mode are
# flushed, so Enter is repeated until the session ends (a dead pane ignores keys).
press_enter_until_exit() {
  local n
  for n in 1 2 3 4 5 6; do
    tm send-keys -t "$1" Enter
    [ "$(wait_rc "$1" 10)" != timeout ] && return 0
  done
  return 1
}
press_enter_until_exit direct || true
press_enter_until_exit blaude || true
d_rc=$(wait_rc direct 1)
b_rc=$(wait_rc blaude 1)
check "direct claude exits non-zero when the folder is not trusted" test "$d_rc" != 0 -a "$d_rc" != timeout
check "blaude ended" test "$b_rc" != timeout
check_eq "blaude exits with claude's own status" "$d_rc" "$b_rc"
check "blaude: claude's farewell reached the pane" wait_screen blaude "didn't start because this folder" 10
tm kill-session -t direct; tm kill-session -t blaude

# 2. A project the user trusted before (claude's own record in ~/.claude.json, which blaude's
#    merge must keep): the welcome screen with bypass mode on, then /exit → 0. (Selecting "Yes"
#    in the menu by keys is racy: keys typed before claude reads its terminal are flushed.)
rm -f "$T_DIR"/*.rc
printf '{"projects": {"%s": {"hasTrustDialogAccepted": true}}, "numStartups": 5}\n' "$T_DIR/proj" \
  >"$T_DIR/home/.claude.json"
chown 65534:65534 "$T_DIR/home/.claude.json"
start_session blaude "$T_DIR/home" "$T_DIR/proj" "$BLAUDE" --no-sandbox
check "welcome screen renders (Claude Code vX.Y.Z)" wait_screen blaude 'Claude Code v[0-9]+\.[0-9]+' 60
check "... not logged in (no network, no account)" wait_screen blaude 'Not logged in|/login' 30
check "... bypass mode is on (--dangerously-skip-permissions reached claude)" \
  wait_screen blaude 'bypass permissions on' 30
log "welcome screen through blaude:"
screen_of blaude | grep -v '^$' | sed 's/^/    | /'
for n in 1 2 3; do  # retyped if the first keys came before claude read its terminal
  tm send-keys -t blaude C-u
  tm send-keys -t blaude -l '/exit'
  sleep 0.5
  tm send-keys -t blaude Enter
  [ "$(wait_rc blaude 15)" != timeout ] && break
done
check_eq "blaude exits 0 after claude's /exit" 0 "$(wait_rc blaude 1)"
check "onboarding flag set in ~/.claude.json" grep -q '"hasCompletedOnboarding": *true' "$T_DIR/home/.claude.json"
check_eq "~/.claude.json still 0600 and the user's" "600 65534" "$(stat -c '%a %u' "$T_DIR/home/.claude.json")"

finish
