# Helpers for the OSC 52 integration tests; source after lib.sh. An Xvfb of the test's own (the
# server picks a free display with -displayfd), and "steps": one blaude run per tmux window,
# with the raw bytes blaude writes to its terminal captured by pipe-pane (before tmux parses
# them, since tmux itself swallows application OSC 52).

for t in Xvfb xclip xsel base64; do
  command -v "$t" >/dev/null || missing "$t is not installed"
done

start_xvfb() {
  Xvfb -displayfd 5 -nolisten tcp -screen 0 320x240x24 5>"$T_DIR/xdisplay" >/dev/null 2>&1 &
  XVFB_PID=$!
  at_exit "kill $XVFB_PID"
  wait_secs 30 test -s "$T_DIR/xdisplay" || { echo "Xvfb did not start" >&2; exit 1; }
  X_DISPLAY=":$(head -n1 "$T_DIR/xdisplay")"
  log "Xvfb on $X_DISPLAY"
}

# clip_get SELECTION / clip_set SELECTION TEXT, through xclip against our Xvfb
clip_get() { DISPLAY=$X_DISPLAY timeout 5 xclip -o -selection "$1" 2>/dev/null; }
# clip_set returns once the new owner answers: xclip forks before it may own the selection.
clip_set() {
  printf '%s' "$2" | DISPLAY=$X_DISPLAY xclip -selection "$1" -i >/dev/null 2>&1
  clip_wait "$1" "$2" || echo "clip_set: $1 did not take the value" >&2
}
# clip_wait SELECTION EXPECTED: polls until the selection holds EXPECTED (copies are async)
clip_wait() {
  local i
  for ((i = 0; i < 100; i++)); do
    [ "$(clip_get "$1")" = "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
b64() { printf '%s' "$1" | base64 -w0; }

# wait_secs N CMD...: polls CMD for up to N seconds
wait_secs() {
  local n=$1 i
  shift
  for ((i = 0; i < n * 10; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}
step_exited() { [ -s "$T_DIR/$1.rc" ]; }
raw_done() { LC_ALL=C grep -aqF STEP-DONE "$T_DIR/$1.raw" 2>/dev/null; }

# step_start NAME [ENV=VALUE | -u VAR ...] -- BLAUDE-ARGS...: blaude in window NAME, output
# captured raw in $T_DIR/NAME.raw. Every step's child prints STEP-DONE at its end.
step_start() {
  local name=$1 envs=()
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  {
    echo 'read -r go'
    # `env` takes its -u options before any assignment. The wrapper (not tmux) reaps blaude and
    # records its status: tmux can be slow to notice a dead pane.
    printf 'env -u WAYLAND_DISPLAY '
    printf '%q ' "${envs[@]}"
    printf 'XDG_STATE_HOME=%q ' "$T_DIR/state"
    printf '%q ' "$BLAUDE" "$@"
    printf '\necho $? >%q.tmp && mv %q.tmp %q\n' "$T_DIR/$name.rc" "$T_DIR/$name.rc" "$T_DIR/$name.rc"
  } >"$T_DIR/$name.step"
  : >"$T_DIR/$name.raw"
  tm new-window -d -n "$name" "bash $T_DIR/$name.step"
  tm pipe-pane -t "t:$name" -o "cat >> $T_DIR/$name.raw"
  tm send-keys -t "t:$name" Enter
}
# step_end NAME: waits for blaude to exit and its output to be captured; sets STEP_STATUS
step_end() {
  wait_secs 60 step_exited "$1" || echo "step $1: blaude did not exit" >&2
  # On a miss, what the step showed: its exit status, its screen and the tail of the session log.
  wait_secs 20 raw_done "$1" || {
    echo "step $1: output incomplete (blaude's exit status: $(cat "$T_DIR/$1.rc" 2>/dev/null || echo none)); its screen:" >&2
    screen_of "$1" >&2 || true
    tail -n 15 "$T_DIR/state/blaude/blaude.log" >&2 2>/dev/null || true
  }
  STEP_STATUS=$(cat "$T_DIR/$1.rc" 2>/dev/null || true)
}
step() { step_start "$@"; step_end "$1"; }
raw_has() { LC_ALL=C grep -aqF -- "$2" "$T_DIR/$1.raw"; }
raw_lacks() { ! raw_has "$@"; }
screen_of() { tm capture-pane -p -J -t "t:$1"; }
screen_has() { screen_of "$1" | grep -qF -- "$2"; }
log_has() { grep -qF -- "$1" "$T_DIR/state/blaude/blaude.log"; }
has_esc() { LC_ALL=C grep -q $'\e' <<<"$1"; }
