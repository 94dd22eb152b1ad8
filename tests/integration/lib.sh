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
  BLAUDE="$T_DIR/.bin/blaude"
fi
T_SOCK="blaude-${T_NAME}-$$"
T_FAILS=0
T_CHECKS=0
_cleanups=()
at_exit() { _cleanups+=("$1"); }
_run_cleanups() {
  local rc=$?
  local c
  for c in "${_cleanups[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  tmux -L "$T_SOCK" kill-server >/dev/null 2>&1 || true
  # A process of the test may still be finishing a write there (a log line): retry, never fail.
  rm -rf "$T_DIR" 2>/dev/null || { sleep 0.5; rm -rf "$T_DIR" 2>/dev/null || true; }
  return $rc
}
trap _run_cleanups EXIT

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
# run fewer launches there (saying so); the release and POSIX suites run the full count.
# (Not `ldd | grep -q`: under pipefail grep's early exit can fail ldd with SIGPIPE.)
blaude_sanitized() { case "$(ldd "$BLAUDE" 2>/dev/null)" in *libasan*) return 0 ;; *) return 1 ;; esac; }
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
