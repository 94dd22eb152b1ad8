#!/usr/bin/env bash
# What the child inherits: only fds 0/1/2, default signal dispositions and an empty mask, its own
# session with the pty as controlling terminal (pty mode).
. "$(dirname "$0")/lib.sh"
PT="python3 $BLAUDE_SRC/tests/integration/ptyterm.py"
# Each probe is the child itself (exec'd by blaude), so nothing of a shell's own shows up.
run_probe() { # mode: pty|pipe
  local fds sig sid
  if [ "$1" = pty ]; then
    run() { (trap '' INT QUIT; exec 7</etc/hostname; $PT capture "$T_DIR/out" -- "$BLAUDE" --no-sandbox --exec "$@") >/dev/null; unbracket "$T_DIR/out"; tr -d '\r' < "$T_DIR/out"; }
  else
    run() { (trap '' INT QUIT; exec 7</etc/hostname; "$BLAUDE" --no-sandbox --exec "$@" 2>/dev/null </dev/null); }
  fi
  fds=$(run ls -1 /proc/self/fd | grep -E '^[0-9]+$' | sort -n | tr '\n' ' ')
  echo "FDS=${fds% }"
  run grep -E '^Sig(Ign|Blk)' /proc/self/status | tr '\t' ' '
  run sh -c 'echo SID=$(ps -o sid= -p $$ | tr -d " ") PID=$$ TTY=$(ps -o tty= -p $$ | tr -d " ")' | grep SID=
}

out=$(run_probe pty)
log "$out"
check_eq "pty: child has only fds 0 1 2 (3 is ls's own)" "FDS=0 1 2 3" "$(grep FDS= <<<"$out")"
check_eq "pty: no ignored signals" "SigIgn: 0000000000000000" "$(grep -o 'SigIgn:.*' <<<"$out")"
check_eq "pty: empty signal mask" "SigBlk: 0000000000000000" "$(grep -o 'SigBlk:.*' <<<"$out")"
sid=$(grep -o 'SID=[0-9]*' <<<"$out" | cut -d= -f2); pid=$(grep -o 'PID=[0-9]*' <<<"$out" | cut -d= -f2)
check_eq "pty: child leads its own session" "$pid" "$sid"
check "pty: child has a controlling terminal" grep -q 'TTY=pts/' <<<"$out"

out=$(run_probe pipe)
log "$out"
check_eq "pipes: child has only fds 0 1 2 (3 is ls's own)" "FDS=0 1 2 3" "$(grep FDS= <<<"$out")"
check_eq "pipes: ignored signals reset" "SigIgn: 0000000000000000" "$(grep -o 'SigIgn:.*' <<<"$out")"

# Control: the probe does see an inherited fd and an ignored signal when they do leak.
out=$(trap '' INT; exec 7</etc/hostname; echo "FDS=$(ls /proc/self/fd | sort -n | tr '\n' ' ')"; grep SigIgn /proc/self/status)
check "control: probe sees a leaked fd 7" grep -Eq '^FDS=.* 7( |$)' <<<"$out"
check "control: probe sees an ignored SIGINT" not grep -q 'SigIgn: 0000000000000000' <<<"$out"
finish
