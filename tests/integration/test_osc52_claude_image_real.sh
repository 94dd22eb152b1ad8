#!/usr/bin/env bash
# The real Claude Code pasting an image under blaude: a PNG on the host's clipboard (the host's
# xclip, a real Xvfb), claude started by the real blaude in its bwrap sandbox as uid 65534 in
# tmux, with DISPLAY as a user has it. Ctrl+V in claude's input: Claude Code (on Linux) runs
# `xclip -selection clipboard -o -t TARGETS`, then `xclip -selection clipboard -o -t image/png`;
# inside those are blaude's stand-ins, answered right after the paste key (the type list and one
# read), so claude shows "[Image #1]". Control: the same with the user policy's
# `clipboard-paste off`: the type lists (xclip, then wl-paste --list-types) are refused, claude
# then tries a text read (xclip -o, wl-paste, xsel: a pasted image's path?), refused too, and
# shows no attachment.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/osc52_lib.sh"

need_sandbox
claude_tmp_cleanup_at_exit
CLAUDE_BIN=$("$BLAUDE_SRC/scripts/install-test-claude.sh") || { fail "install Claude Code"; finish; }
CLAUDE_DIR=$(dirname "$CLAUDE_BIN")
USER_PATH="$CLAUDE_DIR:/usr/local/bin:/usr/bin:/bin"
start_xvfb
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown 65534:65534 "$RT"
chmod 700 "$RT"

# A 2x2 PNG on the host's CLIPBOARD, served by the host's xclip (it forks and stays the owner).
base64 -d >"$T_DIR/img.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8AARGDiPwMAHfAD/aAzCYkAAAAASUVORK5CYII='
DISPLAY=$X_DISPLAY xclip -selection clipboard -t image/png -i "$T_DIR/img.png" >/dev/null 2>&1
clip_png() { DISPLAY=$X_DISPLAY timeout 5 xclip -o -selection clipboard -t image/png 2>/dev/null; }
png_on_clipboard() { cmp -s <(clip_png) "$T_DIR/img.png"; }
check "control: the host's clipboard holds the PNG" wait_until png_on_clipboard

# Two users' worlds (HOME, project, state dir), the second with `clipboard-paste off`; both have
# onboarding done, bypass mode accepted and the project trusted, as a returning user.
for u in a b; do
  mkdir -p "$T_DIR/home$u/.claude" "$T_DIR/proj$u" "$T_DIR/state$u"
  printf '{"hasCompletedOnboarding": true, "bypassPermissionsModeAccepted": true, "projects": {"%s": {"hasTrustDialogAccepted": true}}}\n' \
    "$T_DIR/proj$u" >"$T_DIR/home$u/.claude.json"
  chmod 600 "$T_DIR/home$u/.claude.json"
done
mkdir -p "$T_DIR/homeb/.config/blaude"
echo 'clipboard-paste off' >"$T_DIR/homeb/.config/blaude/policy"
chown -R 65534:65534 "$T_DIR"/home? "$T_DIR"/proj? "$T_DIR"/state?

# start_session NAME USER: blaude (claude) as uid 65534 in its own tmux session; the exit status
# lands in $T_DIR/NAME.rc. The pane stays after exit, for blaude's summary.
tm -f /dev/null new-session -d -s keep 'exec sleep 86400'
start_session() {
  local name=$1 u=$2
  tm -f /dev/null new-session -d -s "$name" -x 120 -y 40 \
    "cd '$T_DIR/proj$u' && env -i HOME='$T_DIR/home$u' TERM=xterm-256color LANG=C.UTF-8 PATH='$USER_PATH' \
     DISPLAY='$X_DISPLAY' XDG_RUNTIME_DIR='$RT' XDG_STATE_HOME='$T_DIR/state$u' \
     setpriv --reuid=65534 --regid=65534 --clear-groups '$BLAUDE' --debug; echo \$? > '$T_DIR/$name.rc'"
  tm set-option -t "$name" remain-on-exit on >/dev/null
}
screen_of() { tm capture-pane -t "$1" -p -J -S -200; }
wait_screen() { # wait_screen NAME REGEX SECONDS
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    screen_of "$1" | grep -Eq -- "$2" && return 0
    sleep 0.1
  done
  echo "--- $1: timed out waiting for /$2/:" >&2
  screen_of "$1" | grep -v '^$' | tail -25 >&2
  return 1
}
wait_rc() { local i; for ((i = 0; i < $2 * 10; i++)); do [ -s "$T_DIR/$1.rc" ] && { cat "$T_DIR/$1.rc"; return; }; sleep 0.1; done; echo timeout; }
# paste NAME REGEX: Ctrl+V until claude reacts with REGEX (a key typed before claude reads its
# terminal is flushed; each Ctrl+V opens a new window, so a retry is a fresh paste).
paste() {
  local n
  for n in 1 2 3; do
    tm send-keys -t "$1" C-v
    wait_screen "$1" "$2" 10 2>/dev/null && return 0
  done
  wait_screen "$1" "$2" 1
}
quit() {
  local n
  for n in 1 2 3; do
    tm send-keys -t "$1" C-u
    tm send-keys -t "$1" -l '/exit'
    sleep 0.5
    tm send-keys -t "$1" Enter
    [ "$(wait_rc "$1" 15)" != timeout ] && return 0
  done
  return 1
}

start_session paste a
start_session off b
for s in paste off; do
  check "$s: claude's prompt is up (bypass mode)" wait_screen "$s" 'bypass permissions on' 90
done

check "Ctrl+V in claude's input: claude shows the image attachment [Image #1]" paste paste '\[Image #1\]'
log "screen after Ctrl+V, through blaude:"
screen_of paste | grep -v '^$' | tail -12 | sed 's/^/    | /'
# The control's Ctrl+V: repeated until the broker has seen claude's whole sequence (a window
# opened, the type list and 3 text reads refused), then claude has nothing more to show.
blog() { cat "$T_DIR/state$1"/blaude.log "$T_DIR/state$1"/*/blaude.log 2>/dev/null | grep 'broker: clipboard' || true; }
off_done() { [ "$(blog b | grep -c 'read of text refused')" -ge 3 ]; }
for n in 1 2 3; do
  tm send-keys -t off C-v
  wait_secs 10 off_done && break
done
check "control (clipboard-paste off): Ctrl+V opened the window, claude's type list and reads were refused" off_done
check "... and claude shows no attachment (2 s)" not wait_screen off '\[Image #' 2 2>/dev/null

for s in paste off; do
  quit "$s" || true
  check_eq "$s: blaude exits 0 after claude's /exit" 0 "$(wait_rc "$s" 1)"
done
log "blaude's summary (paste):"
screen_of paste | grep -A6 'clipboard stand-ins\|read the host clipboard' | sed 's/^/    | /' || true
log "blaude's summary (off):"
screen_of off | grep -A6 'clipboard stand-ins' | sed 's/^/    | /' || true
check "the summary counts the type list and the image read" wait_screen paste 'read the host clipboard 2 time' 5
check "... 1 x read of image/png" grep -q '^  1 x read of image/png' <<<"$(screen_of paste)"
check "control: the summary counts no read" not grep -q 'read the host clipboard' <<<"$(screen_of off)"
check "control: ... and the refusals" wait_screen off 'clipboard stand-ins were refused [0-9]+ time' 5
for u in a b; do
  log "broker's log ($u):"
  blog $u | sed 's/^/    | /'
done
blog a >"$T_DIR/a.log"
check "broker log: claude's type list (xclip -o -t TARGETS) answered after the paste key" \
  grep -q 'type list answered' "$T_DIR/a.log"
check "... then its image/png read answered" grep -q 'image/png answered' "$T_DIR/a.log"
check "... and nothing refused" not grep -q refused "$T_DIR/a.log"

finish
