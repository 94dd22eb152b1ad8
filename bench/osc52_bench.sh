#!/usr/bin/env bash
# OSC 52 interception cost, end to end: blaude (pty mode, under `script` for a terminal) runs
# `cat` on a 128 MiB stream with interception on (an Xvfb of its own, so xclip is the backend)
# and with --no-clipboard. Reports wall time and blaude+cat CPU from /usr/bin/time.
# Usage: bench/osc52_bench.sh BUILD_DIR [MiB]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [MiB]}
mib=${2:-128}
blaude=$(cd "$build" && pwd)/blaude
dir=$(mktemp -d /tmp/blaude-osc52-bench.XXXXXX)
Xvfb -displayfd 5 -nolisten tcp 5>"$dir/xdisplay" >/dev/null 2>&1 &
xpid=$!
trap 'kill $xpid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -s "$dir/xdisplay" ] && break; sleep 0.1; done
display=":$(head -n1 "$dir/xdisplay")"
bytes=$((mib * 1024 * 1024))
head -c $((bytes * 3 / 4)) /dev/urandom | base64 -w 100 >"$dir/plain"
# Escape-heavy TUI output: colour, cursor moves, short runs of text.
awk -v n="$bytes" 'BEGIN { srand(1); while (t < n) {
  s = sprintf("\033[38;5;%dm%s\033[0m\033[%d;%dH", int(rand()*256), substr("xxxxxxxxxxxx", 1, 1+int(rand()*12)),
              1+int(rand()*50), 1+int(rand()*200)); printf "%s", s; t += length(s) } }' >"$dir/tui"
awk -v n="$bytes" 'BEGIN { s = "\033]52;c;aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=\007line\r\n";
  while (t < n) { printf "%s", s; t += length(s) } }' >"$dir/osc52"
printf '%-7s %-14s %8s %8s %8s\n' stream mode wall_s user_s sys_s
for f in plain tui osc52; do
  for mode in on --no-clipboard; do
    extra=(); [ "$mode" = on ] || extra=(--no-clipboard)
    script -qec "env DISPLAY=$display XDG_STATE_HOME=$dir/state /usr/bin/time -o $dir/t -f '%e %U %S' \
      $blaude --no-sandbox ${extra[*]} --exec cat $dir/$f" /dev/null >/dev/null 2>&1
    read -r wall user sys <"$dir/t"
    printf '%-7s %-14s %8s %8s %8s\n' "$f" "$mode" "$wall" "$user" "$sys"
  done
done
