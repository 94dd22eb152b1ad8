#!/usr/bin/env bash
# The terminal state guard end to end, side by side: blaude in pty mode (under `script` for a
# terminal) runs `cat` on a stream, with the guard on and with BLAUDE_TERM_GUARD=off (the OSC 52
# pass-through alone), alternating on/off ROUNDS times. Reports blaude+cat CPU (user+sys, from
# /usr/bin/time) per run and the best of each; wall times are printed but on a shared machine
# only CPU means anything. The guard runs in user space: the user-time ratio is its cost, with
# less of the kernel's noise than user+sys. Streams: plain text, a TUI redraw, and ptybench's
# escapes payload (titles, links; from BUILD_DIR/ptybench when it is there).
# Usage: bench/term/guard_bench.sh BUILD_DIR [MiB] [ROUNDS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [MiB] [ROUNDS]}
mib=${2:-128}
rounds=${3:-3}
blaude=$(cd "$build" && pwd)/blaude
dir=$(mktemp -d /tmp/blaude-guard-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
bytes=$((mib * 1024 * 1024))
head -c $((bytes * 3 / 4)) /dev/urandom | base64 -w 100 >"$dir/plain"
# Escape-heavy TUI output: colour, cursor moves, short runs of text, mode toggles.
awk -v n="$bytes" 'BEGIN { srand(1); while (t < n) {
  s = sprintf("\033[38;5;%dm%s\033[0m\033[%d;%dH", int(rand()*256), substr("xxxxxxxxxxxx", 1, 1+int(rand()*12)),
              1+int(rand()*50), 1+int(rand()*200));
  if (rand() < 0.02) s = s "\033[?2026h\033[?25l"; else if (rand() < 0.02) s = s "\033[?25h\033[?2026l";
  printf "%s", s; t += length(s) } }' >"$dir/tui"
streams="plain tui"
if [ -x "$build/ptybench" ]; then
  "$build/ptybench" --produce "$bytes" --escapes >"$dir/ptyesc"
  streams="$streams ptyesc"
fi
printf '%-6s %-6s %8s %8s %8s %8s\n' stream guard wall_s user_s sys_s cpu_s
for f in $streams; do
  best_on=999; best_off=999; user_on=999; user_off=999
  for ((r = 0; r < rounds; r++)); do
    for g in on off; do
      script -qec "env -u DISPLAY -u WAYLAND_DISPLAY BLAUDE_TERM_GUARD=$g XDG_STATE_HOME=$dir/state \
        /usr/bin/time -o $dir/t -f '%e %U %S' $blaude --no-sandbox --exec cat $dir/$f" /dev/null >/dev/null 2>&1
      read -r wall user sys <"$dir/t"
      cpu=$(echo "$user + $sys" | bc)
      printf '%-6s %-6s %8s %8s %8s %8s\n' "$f" "$g" "$wall" "$user" "$sys" "$cpu"
      if [ "$g" = on ]; then best_on=$(echo "if ($cpu < $best_on) $cpu else $best_on" | bc)
        user_on=$(echo "if ($user < $user_on) $user else $user_on" | bc)
      else best_off=$(echo "if ($cpu < $best_off) $cpu else $best_off" | bc)
        user_off=$(echo "if ($user < $user_off) $user else $user_off" | bc); fi
    done
  done
  printf '%-6s best CPU: guard on %s s, off %s s, ratio %s; best user: on %s s, off %s s (%s MiB)\n' \
    "$f" "$best_on" "$best_off" "$(echo "scale=3; $best_on / $best_off" | bc)" "$user_on" "$user_off" "$mib"
done
