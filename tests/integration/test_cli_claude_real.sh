#!/usr/bin/env bash
# The real Claude Code (npm @anthropic-ai/claude-code), started through blaude in its real
# bubblewrap sandbox, in tmux, as an unprivileged user (claude refuses
# --dangerously-skip-permissions as root). No network here: claude shows its first screen (the
# folder-trust question), then its welcome screen with "Not logged in"; `-p` exits 1 with "Not
# logged in". blaude must render those screens and exit with claude's own status, compared
# against claude started directly.
# claude is installed where the sandbox hides it by default (/var/cache/.../node_modules/.bin on
# PATH; /var is a tmpfs inside), so this also checks that blaude runs the user's claude at its own
# path. Inside, the project is at its own path and HOME a tmpfs with ~/.claude persisting: both
# are read back from claude's own transcript on the host.
. "$(dirname "$0")/lib.sh"

need_sandbox
claude_tmp_cleanup_at_exit
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")
log "claude: $CLAUDE_BIN -> $(readlink -f "$CLAUDE_BIN") ($(as_nobody env HOME="$T_DIR" "$CLAUDE_BIN" --version 2>/dev/null))"

# One unprivileged user's world: its own HOME and project directory. The direct runs of claude
# (the reference) get their own HOMEs, so nothing they write is mistaken for blaude's.
mkdir -p "$T_DIR/home" "$T_DIR/proj" "$T_DIR/home2" "$T_DIR/proj2" "$T_DIR/homed"
chown 65534:65534 "$T_DIR/home" "$T_DIR/proj" "$T_DIR/home2" "$T_DIR/proj2" "$T_DIR/homed"
USER_PATH="$CLAUDE_DIR:/usr/local/bin:/usr/bin:/bin"
# as_user HOME CMD...: the command as uid 65534 with a clean, minimal environment.
as_user() { local h=$1; shift; as_nobody env -i HOME="$h" TERM=xterm-256color LANG=C.UTF-8 PATH="$USER_PATH" "$@"; }

# --- claude at its own path inside ---------------------------------------------------------------
# Control: for a user whose PATH has no claude, nothing of the install is in the sandbox (/var is
# a tmpfs there). With claude on PATH, blaude mounts it, also beside another program (--exec).
set +e
ctl=$(cd "$T_DIR/proj" && as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin "$BLAUDE" --exec sh -c \
  'ls -A /var; command -v claude' </dev/null 2>/dev/null)
in_box=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" "$BLAUDE" --exec sh -c 'command -v claude; claude -v' </dev/null 2>&1)
set -e
check "control: without claude on PATH, /var is empty inside and no claude is found" test -z "$ctl"
check_eq "--exec sh: claude is on PATH inside at its own path, and runs" \
  "$CLAUDE_DIR/claude
$(as_nobody env HOME="$T_DIR/homed" "$CLAUDE_BIN" -v 2>/dev/null)" "$in_box"

# An npm prefix in $HOME (npm's own layout: bin/claude → ../lib/node_modules/...): only claude's
# package comes into the sandbox, not the prefix nor its other packages. The binary is hard-linked
# from the test install (copied when /tmp is another filesystem).
P5="$T_DIR/home5/.npm-global"
PKG5="$P5/lib/node_modules/@anthropic-ai/claude-code"
mkdir -p "$PKG5/bin" "$P5/bin" "$T_DIR/home5/.claude"
cp "$(dirname "$(readlink -f "$CLAUDE_BIN")")/../package.json" "$PKG5/"
ln "$(readlink -f "$CLAUDE_BIN")" "$PKG5/bin/claude.exe" 2>/dev/null || cp "$(readlink -f "$CLAUDE_BIN")" "$PKG5/bin/claude.exe"
ln -s ../lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe "$P5/bin/claude"
echo secret >"$P5/lib/node_modules/other-package-token"
chown -R 65534:65534 "$T_DIR/home5"
as5() { as_nobody env -i HOME="$T_DIR/home5" TERM=xterm-256color LANG=C.UTF-8 PATH="$P5/bin:/usr/bin:/bin" "$@"; }
set +e
v5=$(cd "$T_DIR/proj" && as5 "$BLAUDE" -v </dev/null 2>&1)
ls5=$(cd "$T_DIR/proj" && as5 "$BLAUDE" --exec sh -c \
  'command -v claude; echo "prefix:" $(ls -A ~/.npm-global); echo "nm:" $(ls -A ~/.npm-global/lib/node_modules)' \
  </dev/null 2>&1)
set -e
log "npm prefix in HOME: $ls5"
check_eq "npm prefix in HOME: blaude -v runs that claude" "$(as5 claude -v 2>&1 </dev/null)" "$v5"
check "... found by PATH inside at its own path" grep -q "^$P5/bin/claude\$" <<<"$ls5"
check_eq "... only claude's package is mounted, not the prefix's other files" \
  "prefix: bin lib
nm: @anthropic-ai" "$(tail -n 2 <<<"$ls5")"
check "... control: the other file exists on the host" test -s "$P5/lib/node_modules/other-package-token"

# --- claude's version, through blaude (-v is claude's) --------------------------------------
direct=$(cd "$T_DIR/proj" && as_user "$T_DIR/homed" claude -v </dev/null 2>&1)
via=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" "$BLAUDE" -v </dev/null 2>"$T_DIR/v.err") || true
log "claude -v: $direct"
check "claude -v prints a version" grep -q 'Claude Code' <<<"$direct"
check_eq "blaude -v (sandboxed) prints claude's version" "$direct" "$via"
check_eq "... and nothing on stderr" "" "$(cat "$T_DIR/v.err")"

# --- -p without login: claude's own exit status and message ---------------------------------
set +e
d_out=$(cd "$T_DIR/proj" && as_user "$T_DIR/homed" claude --dangerously-skip-permissions -p hello </dev/null 2>&1); d_rc=$?
b_out=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" "$BLAUDE" -p hello </dev/null 2>/dev/null); b_rc=$?
set -e
log "claude -p: rc=$d_rc: $d_out"
check "claude -p fails here (no login, no network)" test "$d_rc" -ne 0
check_eq "blaude -p exits with claude's status" "$d_rc" "$b_rc"
check_eq "blaude -p shows claude's message" "$d_out" "$b_out"

# claude's transcript of that -p session, written by claude inside the sandbox to ~/.claude:
# it persists on the host, under the project's own path's key (the project is at its host path
# inside), with bypass mode on, as the direct run's (the control) does.
key_host=$(printf '%s' "$T_DIR/proj" | sed 's|[^A-Za-z0-9]|-|g')
tr_box=$(ls "$T_DIR"/home/.claude/projects/"$key_host"/*.jsonl 2>/dev/null | head -1)
tr_dir=$(ls "$T_DIR"/homed/.claude/projects/"$key_host"/*.jsonl 2>/dev/null | head -1)
check "claude's transcript (written in the sandbox) persists in the host's ~/.claude" test -s "$tr_box"
check "... claude's cwd was the host path" grep -q "\"cwd\":\"$T_DIR/proj\"" "$tr_box"
check "... in bypass-permissions mode" grep -q '"permissionMode":"bypassPermissions"' "$tr_box"
check "... and nothing under the seed's /workspaces/proj key" not test -e "$T_DIR/home/.claude/projects/-workspaces-proj"
check "control: claude run directly records the host path" grep -q "\"cwd\":\"$T_DIR/proj\"" "$tr_dir"
check "~/.claude is still the user's and 0700" test "$(stat -c '%a %u' "$T_DIR/home/.claude")" = "700 65534"

# --- HOME inside: a tmpfs at the same path, only ~/.claude and ~/.claude.json reach the host --
echo host-only >"$T_DIR/home/host-file"
chown 65534:65534 "$T_DIR/home/host-file"
inside=$(cd "$T_DIR/proj" && as_user "$T_DIR/home" "$BLAUDE" --exec sh -c \
  'echo "home=$HOME pwd=$(pwd)"; ls -A "$HOME" | tr "\n" " "; echo; echo x >"$HOME/tmpfs-file"; echo y >"$HOME/.claude/kept"' \
  </dev/null 2>&1) || true
log "inside: $inside"
check "HOME inside is the user's HOME path" grep -q "^home=$T_DIR/home pwd=$T_DIR/proj\$" <<<"$inside"
check "... a tmpfs: the host's files in HOME are not there" not grep -q host-file <<<"$inside"
check "... with ~/.claude and ~/.claude.json" grep -q '\.claude \.claude\.json' <<<"$inside"
check "a file written to ~/.claude inside persists on the host" test "$(cat "$T_DIR/home/.claude/kept" 2>/dev/null)" = y
check "a file written elsewhere in HOME does not" not test -e "$T_DIR/home/tmpfs-file"
rm -f "$T_DIR/home/host-file" "$T_DIR/home/.claude/kept"

# --- --no-sandbox, once: the same claude, but it sees the host path ----------------------------
set +e
n_out=$(cd "$T_DIR/proj2" && as_user "$T_DIR/home2" "$BLAUDE" --no-sandbox -p hello </dev/null 2>/dev/null); n_rc=$?
set -e
key2=$(printf '%s' "$T_DIR/proj2" | sed 's|[^A-Za-z0-9]|-|g')
check_eq "--no-sandbox -p: claude's status" "$d_rc" "$n_rc"
check_eq "--no-sandbox -p: claude's message" "$d_out" "$n_out"
check "--no-sandbox: claude's transcript records the host path" \
  grep -q "\"cwd\":\"$T_DIR/proj2\"" "$(ls "$T_DIR"/home2/.claude/projects/"$key2"/*.jsonl 2>/dev/null | head -1)"
rm -rf "$T_DIR/home2/.claude" "$T_DIR/home2/.claude.json"

# --- interactive, in tmux: the first screen renders, then claude's exit status ---------------
# start_session NAME HOME PROJ CMD...: runs CMD as the user in its own tmux session; the exit
# status lands in $T_DIR/NAME.rc.
# RUN_UID (default 65534) picks the user.
# A session that lives for the whole test keeps the tmux server up: killing the last session
# makes the server exit, and a new-session sent right then can reach the exiting server ("server
# exited unexpectedly", seen in loaded full runs).
tm -f /dev/null new-session -d -s keep 'exec sleep 86400'
start_session() {
  local name=$1 home=$2 proj=$3 uid=${RUN_UID:-65534}; shift 3
  tm -f /dev/null new-session -d -s "$name" -x 100 -y 30 \
    "cd '$proj' && env -i HOME='$home' TERM=xterm-256color LANG=C.UTF-8 PATH='$USER_PATH' \
     setpriv --reuid=$uid --regid=$uid --clear-groups $* ; echo \$? > '$T_DIR/$name.rc'"
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
start_session blaude "$T_DIR/home" "$T_DIR/proj" "$BLAUDE"
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
#    merge must keep; inside, the project is at its own path): the welcome screen with bypass
#    mode on, then /exit → 0. (Selecting "Yes" in the menu by keys is racy: keys typed before
#    claude reads its terminal are flushed.)
rm -f "$T_DIR"/*.rc
printf '{"projects": {"%s": {"hasTrustDialogAccepted": true}}, "numStartups": 5}\n' "$T_DIR/proj" \
  >"$T_DIR/home/.claude.json"
chown 65534:65534 "$T_DIR/home/.claude.json"
start_session blaude "$T_DIR/home" "$T_DIR/proj" "$BLAUDE"
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
check "claude's trust record for the project kept" grep -q '"hasTrustDialogAccepted": *true' "$T_DIR/home/.claude.json"
check_eq "~/.claude.json still 0600 and the user's" "600 65534" "$(stat -c '%a %u' "$T_DIR/home/.claude.json")"
tm kill-session -t blaude

# 3. The same welcome screen as a regular uid: claude reports no feature the sandbox broke. (As
#    65534, the kernel's overflow uid, claude inside a user namespace reads its uid as unmapped
#    and turns cross-session messaging off; a real user's uid is mapped, and that warning goes.)
mkdir -p "$T_DIR/home4/.claude" "$T_DIR/proj4"
printf '{"hasCompletedOnboarding": true, "bypassPermissionsModeAccepted": true, "projects": {"%s": {"hasTrustDialogAccepted": true}}}\n' "$T_DIR/proj4" \
  >"$T_DIR/home4/.claude.json"
chmod 600 "$T_DIR/home4/.claude.json"
chown -R 1000:1000 "$T_DIR/home4" "$T_DIR/proj4"
rm -f "$T_DIR"/*.rc
RUN_UID=1000 start_session blaude4 "$T_DIR/home4" "$T_DIR/proj4" "$BLAUDE"
check "uid 1000: welcome screen renders" wait_screen blaude4 'bypass permissions on' 60
sleep 2  # claude's startup notices come after the prompt box
log "welcome screen as uid 1000:"
screen_of blaude4 | grep -v '^$' | sed 's/^/    | /'
check "uid 1000: claude shows no warning" not grep -q '⚠' <<<"$(screen_of blaude4)"

# --- claude --worktree: the worktree it makes inside is the host's git's too -------------------------
# Claude Code makes <repo>/.claude/worktrees/NAME with `git worktree add` before it needs the API
# (here it then fails "Not logged in"). The exit audit leaves a new .claude that holds only
# worktrees (and Claude's empty .cc-writes) where it is; anything else in it goes aside (unit test).
mkdir -p "$T_DIR/projw"
chown 65534:65534 "$T_DIR/projw"
hg() { (cd "$T_DIR/projw" && as_nobody env -i HOME="$T_DIR/homed" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 git "$@"); }
hg init -q . && hg -c user.name=u -c user.email=u@h commit -q --allow-empty -m init
(cd "$T_DIR/projw" && as_user "$T_DIR/home" "$BLAUDE" --worktree wtx -p hi </dev/null >"$T_DIR/wt.out" 2>&1) || true
log "claude --worktree: $(tail -n 3 "$T_DIR/wt.out")"
check "claude --worktree inside blaude made its worktree in .claude/worktrees" test -e "$T_DIR/projw/.claude/worktrees/wtx/.git"
check "... the host's git lists it" grep -q "$T_DIR/projw/.claude/worktrees/wtx " <(hg worktree list)
check "... and works in it" hg -C .claude/worktrees/wtx status --porcelain
check "... the exit audit moved nothing aside" not ls -d "$T_DIR/projw"/.claude.blaude-audit-*

finish
