# Shared helpers for integration tests. Source it: . "$(dirname "$0")/lib.sh"
# Each test gets its own tmux server (-L socket), temp dir and cleanup; tests run in parallel.
set -euo pipefail

: "${BLAUDE:?BLAUDE must point at the blaude binary (ctest sets it)}"
: "${BLAUDE_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
T_NAME=$(basename "$0" .sh)
T_DIR=$(mktemp -d "/tmp/blaude-${T_NAME}.XXXXXX")
chmod 755 "$T_DIR"
# Tests run blaude as uid 65534 too: a checkout under a private dir (mktemp -d is 0700) would
# make the binary unreachable for that user, so use a copy in the test's own dir then.
if [ "$(id -u)" = 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$BLAUDE" 2>/dev/null; then
  mkdir -p "$T_DIR/.bin" && cp "$BLAUDE" "$T_DIR/.bin/blaude" && chmod 755 "$T_DIR/.bin" "$T_DIR/.bin/blaude"
  # and the exec shim beside it, where blaude looks for it (src/shim_main.cpp)
  if [ -e "$(dirname "$BLAUDE")/blaude-exec" ]; then
    cp "$(dirname "$BLAUDE")/blaude-exec" "$T_DIR/.bin/blaude-exec" && chmod 755 "$T_DIR/.bin/blaude-exec"
  fi
  BLAUDE="$T_DIR/.bin/blaude"
fi
# The exec shim as bwrap starts the command on Linux: blaude-exec, which the build puts beside
# blaude (src/shim_main.cpp, sandbox/request.hpp). Without it blaude's own binary is the shim
# (`/run/blaude/blaude __exec`; test_self_exe checks both).
SHIM="/run/blaude/exec __exec@1"
T_SOCK="blaude-${T_NAME}-$$"
T_FAILS=0
T_CHECKS=0
_cleanups=()
_late_cleanups=()
at_exit() { _cleanups+=("$1"); }
# at_exit_late: after the at_exit ones and the test's tmux server, when the test's own processes
# are stopped (for what they leave behind outside $T_DIR).
at_exit_late() { _late_cleanups+=("$1"); }
_run_cleanups() {
  local rc=$?
  local c
  for c in "${_cleanups[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  tmux -L "$T_SOCK" kill-server >/dev/null 2>&1 || true
  for c in "${_late_cleanups[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  # A process of the test may still be finishing a write there (a log line): retry, never fail.
  rm -rf "$T_DIR" 2>/dev/null || { sleep 0.5; rm -rf "$T_DIR" 2>/dev/null || true; }
  return $rc
}
trap _run_cleanups EXIT

# unbracket FILE: a capture of what blaude wrote to its terminal without blaude's own bytes
# around the session (the user's title pushed at the start; at the end, popped, and the reply
# fence's query), for a comparison with the child's output alone.
unbracket() { perl -0pi -e 's/\e\[22;0t//; s/\e\[23;0t\e\[5n\e\[c\z//' "$1"; }
log() { printf '[%s] %s\n' "$T_NAME" "$*"; }
pass() { T_CHECKS=$((T_CHECKS+1)); printf 'ok   - %s\n' "$*"; }
fail() { T_CHECKS=$((T_CHECKS+1)); T_FAILS=$((T_FAILS+1)); printf 'FAIL - %s\n' "$*"; }
# check "description" command...: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
check_eq() { # check_eq "description" expected actual
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected [$2], got [$3]"; fi; }
not() { ! "$@"; }
skip() { echo "SKIP: $*"; exit 77; }
# True for a sanitizer build of blaude (make asan): every start is slower, so launch-heavy tests
# run fewer launches there (saying so); the release and POSIX suites run the full count. The
# build's cache says so; clang links ASan's runtime statically, so ldd shows it only for gcc's.
# (Not `ldd | grep -q`: under pipefail grep's early exit can fail ldd with SIGPIPE.)
blaude_sanitized() {
  grep -q '^BLAUDE_SANITIZE:BOOL=ON' "${BLAUDE_BUILD:-$(dirname "$BLAUDE")}/CMakeCache.txt" 2>/dev/null && return 0
  case "$(ldd "$BLAUDE" 2>/dev/null)" in *libasan*) return 0 ;; *) return 1 ;; esac
}
# Prerequisites. `make test` installs every tool the suite uses (scripts/deps.sh test) and builds
# every target, so a missing one is a broken setup: `missing` fails, in CI and everywhere else.
missing() { echo "FAIL: prerequisite missing: $* (run scripts/deps.sh test, or make test)"; exit 1; }
# A property of the host outside the project (kernel settings, AppArmor, not running as root):
# a failure in CI (CI=true, set by .ci/run), which must run every test; elsewhere a skip that
# says why.
host_lacks() {
  if [ "${CI:-}" = true ]; then echo "FAIL: the CI host lacks a prerequisite: $*"; exit 1; fi
  skip "$* (outside CI only: with CI=true this is a failure)"
}
# need_sandbox: bwrap, and a user namespace for uid 65534 (what every sandbox test needs).
need_sandbox() {
  command -v bwrap >/dev/null || missing "bwrap is not installed"
  as_nobody bwrap --unshare-user --ro-bind / / true 2>"$T_DIR/userns.err" ||
    host_lacks "bwrap cannot create a user namespace as uid 65534: $(cat "$T_DIR/userns.err")"
}
# need_overlay_bwrap: NEW = the dir of the overlay-capable bwrap (scripts/get-bwrap-overlay.sh).
need_overlay_bwrap() {
  NEW=$("$BLAUDE_SRC/scripts/get-bwrap-overlay.sh" 2>"$T_DIR/get.err") || missing "the overlay bwrap: $(cat "$T_DIR/get.err")"
  NEW=$(dirname "$NEW")
}
# A home and a workspace of uid 65534 for sb_nobody: NOBODY, H (with .claude) and WS.
sandbox_dirs() {
  NOBODY=65534 H="$T_DIR/home" WS="$T_DIR/ws"
  mkdir -p "$H/.claude" "$WS"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
}
# sb_nobody BWRAP_DIR [blaude options] -- SCRIPT [ARGS...]: the real blaude as uid 65534 in $WS,
# HOME=$H, the bwrap of BWRAP_DIR first on PATH, the variables in SB_ENV; runs `sh -c SCRIPT sh
# ARGS...`; stdin /dev/null, stderr in $T_DIR/sb.err.
SB_ENV=()
sb_nobody() {
  local bw=$1 opts=()
  shift
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "$WS" && env -i HOME="$H" PATH="$bw:/usr/bin:/bin" TERM=dumb "${SB_ENV[@]}" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" "${opts[@]}" --exec sh -c "$1" sh "${@:2}" </dev/null 2>"$T_DIR/sb.err")
}
finish() {
  echo "$T_NAME: $((T_CHECKS-T_FAILS)) of $T_CHECKS checks passed"
  [ "$T_FAILS" -eq 0 ] && [ "$T_CHECKS" -gt 0 ]
}

# --- tmux as the user's terminal -----------------------------------------------------------
tm() { tmux -L "$T_SOCK" "$@"; }
# tm_start W H [command]: a detached session "t" running an interactive bash (or command)
tm_start() {
  local w=$1 h=$2; shift 2
  tm -f /dev/null new-session -d -s t -x "$w" -y "$h" "${@:-env PS1='$ ' bash --norc --noprofile -i}"
  tm set-option -t t remain-on-exit on >/dev/null
  tm set-option -g status off >/dev/null
  tm set-option -g history-limit 10000 >/dev/null
  sleep 0.2
}
tm_type() { tm send-keys -t t -l "$*"; }
tm_enter() { tm send-keys -t t Enter; }
# A command line that ends exactly at the pane's right edge leaves the next row marked as a
# wrapped continuation, so capture-pane -J joins the command's first line of output to the
# command ('^...' waits then miss it; only at some lengths, e.g. of the build dir's path). One
# trailing space moves the end off the edge.
tm_run() {
  local cmd="$*" w x
  w=$(tm display-message -p -t t '#{pane_width}')
  x=$(tm display-message -p -t t '#{cursor_x}')
  (( (x + ${#cmd}) % w == 0 )) && cmd+=" "
  tm_type "$cmd"
  tm_enter
}
tm_screen() { tm capture-pane -t t -p -J -S -2000; }
# tm_wait PATTERN [seconds]: wait until the pane shows an extended-regex match
tm_wait() {
  local pat=$1 secs=${2:-10} i
  for ((i = 0; i < secs * 20; i++)); do
    tm_screen | grep -Eq -- "$pat" && return 0
    sleep 0.05
  done
  echo "--- timed out waiting for /$pat/; screen:" >&2
  tm_screen | grep -v '^$' | tail -n 25 >&2
  return 1
}
tm_pane_pid() { tm display-message -p -t t '#{pane_pid}'; }
# tm_resize W H: resize the window, and return once the pane's terminal has the new size. tmux
# applies a pane's new size to its pty later, in a following pass of its event loop (rate-limited
# to one resize per 250 ms), so resize-window returns before a program in the pane could see it.
tm_resize() {
  local w=$1 h=$2 tty i
  tm resize-window -t t -x "$w" -y "$h"
  tty=$(tm display-message -p -t t '#{pane_tty}')
  for ((i = 0; i < 200; i++)); do
    [ "$(stty size <"$tty" 2>/dev/null)" = "$h $w" ] && return 0
    sleep 0.05
  done
  echo "tm_resize: the pane's terminal never became ${w}x$h (it is $(stty size <"$tty" 2>&1))" >&2
  return 1
}

# wait_for CMD... [tries of 50ms]: poll until a command succeeds (10 s)
wait_until() {
  local i
  for ((i = 0; i < 200; i++)); do "$@" && return 0; sleep 0.05; done
  return 1
}

# --- an unprivileged user for the sandbox tests (no account needed) --------------------------
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# --- what the real Claude Code leaves in the host's /tmp ----------------------------------------
# Claude Code (as uid 65534 here, directly or in blaude's sandbox, whose /tmp is the host's) keeps
# its temp root in /tmp/claude-65534 and its sockets in /tmp/cc-socks, and leaves there what a
# killed or short run does not remove: fswatch-probe-XXXXXX dirs, a dir per project (the cwd with
# every non-alphanumeric as "-": -tmp-blaude-test-x-AbC123-proj, -workspaces-proj inside the
# sandbox) holding a dir per session, <pid>.sock sockets. Piled up over runs they exhaust blaude's
# budget for its scan of /tmp (256 dirs, then a warning on stderr). TMPDIR cannot move them: Claude
# Code honours it, but blaude does not pass it into the sandbox; CLAUDE_CODE_TMPDIR would (blaude
# puts a tmpfs there) but would test another setup than the users' default one.
# claude_tmp_cleanup_at_exit, before the test first starts claude: lists what is there now, and
# at exit removes what is new and provably this test's or abandoned. ctest runs two tests at a
# time, so a new entry may be another test's, in use; removed are only:
# - a project dir named after this test's own $T_DIR (unique: mktemp), with everything in it;
# - a session dir <uuid> in another project dir (-workspaces-proj: every test's sandbox shows
#   its project there), when that session's files (~/.claude/projects/*/<uuid>.jsonl, ...) are
#   under $T_DIR, in a home of this test's claude: session ids are unique;
# - an fswatch-probe-* dir last changed at least CLAUDE_PROBE_STALE seconds ago: Claude Code's
#   probe makes one, writes its file in it, watches it for at most 1.5 s and removes it, so an
#   older one's claude was killed meanwhile and nothing uses it (a younger one is waited for: it
#   goes away, or is abandoned);
# - a <pid>.sock in cc-socks whose pid no longer runs (claude on the host names it by its own pid;
#   in the sandbox it is under the sandbox's /run/user tmpfs);
# - /tmp/claude-65534 (/tmp/cc-socks, a project dir that is not this test's), if this test saw it
#   absent and it is now empty, only while no process of uid 65534 runs: a running claude
#   creates its temp root once and then counts on it.
CLAUDE_PROBE_STALE=5
CLAUDE_TMP_ROOT=/tmp/claude-65534 CLAUDE_TMP_SOCKS=/tmp/cc-socks
claude_tmp_cleanup_at_exit() {
  local d
  _claude_tmp_before=""
  for d in "$CLAUDE_TMP_ROOT" "$CLAUDE_TMP_SOCKS"; do
    if [ -d "$d" ]; then
      _claude_tmp_before+="$d"$'\n'
      _claude_tmp_before+=$(find "$d" -mindepth 1 -maxdepth 2 2>/dev/null || true)$'\n'
    fi
  done
  at_exit_late _claude_tmp_cleanup
}
# _claude_tmp_new PATH: true when PATH was not there at claude_tmp_cleanup_at_exit.
_claude_tmp_new() { ! grep -qxF -- "$1" <<<"$_claude_tmp_before"; }
_claude_tmp_idle() { ! pgrep -u 65534 >/dev/null 2>&1; }
_claude_tmp_rmdir_if_new() { _claude_tmp_new "$1" && _claude_tmp_idle && rmdir "$1" 2>/dev/null || true; }
_claude_tmp_cleanup() {
  local root=$CLAUDE_TMP_ROOT ours e s name age waited=0
  ours=$(printf '%s' "$T_DIR" | tr -c 'A-Za-z0-9' '-')
  if [ -d "$root" ]; then
    for e in "$root"/* "$root"/.[!.]*; do
      [ -e "$e" ] || continue
      name=${e##*/}
      case $name in
        "$ours" | "$ours"-*) _claude_tmp_new "$e" && rm -rf "$e" ;;
        fswatch-probe-*)
          _claude_tmp_new "$e" || continue
          while age=$(($(date +%s) - $(stat -c %Y "$e" 2>/dev/null || date +%s))); [ -e "$e" ] &&
            [ "$age" -lt "$CLAUDE_PROBE_STALE" ] && [ $waited -lt $((CLAUDE_PROBE_STALE * 4)) ]; do
            sleep 0.5
            waited=$((waited + 1))
          done
          [ "$age" -ge "$CLAUDE_PROBE_STALE" ] && rm -rf "$e" ;;
        *)
          [ -d "$e" ] && [ ! -L "$e" ] || continue
          for s in "$e"/*; do
            [ -d "$s" ] && _claude_tmp_new "$s" || continue
            [[ ${s##*/} =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]] || continue
            [ -n "$(find "$T_DIR" -name "${s##*/}*" -print -quit 2>/dev/null)" ] && rm -rf "$s"
          done
          _claude_tmp_rmdir_if_new "$e" ;;
      esac
    done
    _claude_tmp_rmdir_if_new "$root"
  fi
  if [ -d "$CLAUDE_TMP_SOCKS" ]; then
    for e in "$CLAUDE_TMP_SOCKS"/*.sock; do
      [ -S "$e" ] && _claude_tmp_new "$e" || continue
      name=${e##*/}
      name=${name%.sock}
      [[ $name =~ ^[0-9]+$ ]] && [ ! -e "/proc/$name" ] && rm -f "$e"
    done
    _claude_tmp_rmdir_if_new "$CLAUDE_TMP_SOCKS"
  fi
}
