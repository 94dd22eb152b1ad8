#!/usr/bin/env bash
# What the proxy does per 4 KiB chunk, blaude vs ptybench's minimal relay, counted rather than
# timed (counts hold on a loaded 2-CPU machine where wall-clock pairs spread 0.3-3x): syscalls by
# kind (reads, of them EAGAIN; terminal and master writes; epoll_wait, epoll_ctl, poll), context
# switches (voluntary = slept, preempted = still runnable) and task-clock, of the proxy process
# alone (perf stat --no-inherit: not the producer, not the watchdog). ptybench drives both and
# checks every byte: blaude is its "blaude" variant, the relay rides in the "base" slot through a
# wrapper. Needs perf with the syscalls and sched tracepoints (no hardware counters needed).
# Usage: bench/pty_counts.sh BUILD_DIR [MiB] [REPS] [SHAPES]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [MiB] [REPS] [SHAPES]}
mib=${2:-32}
reps=${3:-3}
shapes=${4:-text-4k,text-64k,escapes-4k,escapes-64k}
command -v perf >/dev/null || { echo "$0: perf is needed (apt-get install linux-perf)" >&2; exit 2; }
perf stat -e syscalls:sys_enter_read -e sched:sched_switch true 2>/dev/null >/dev/null ||
  { echo "$0: perf cannot count the syscalls/sched tracepoints here (root, or perf_event_paranoid)" >&2; exit 2; }
build=$(cd "$build" && pwd)
[ -x "$build/blaude" ] && [ -x "$build/ptybench" ] ||
  { echo "$0: $build/blaude and $build/ptybench are needed" >&2; exit 2; }
dir=$(mktemp -d /tmp/blaude-pty-counts.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
cp "$build/blaude" "$dir/blaude"
cp "$build/ptybench" "$dir/ptybench"

events="-e syscalls:sys_enter_read -e syscalls:sys_exit_read --filter ret==-11
  -e syscalls:sys_enter_write -e syscalls:sys_enter_epoll_wait -e syscalls:sys_enter_epoll_ctl
  -e syscalls:sys_enter_poll -e sched:sched_switch -e sched:sched_switch --filter prev_state==0
  -e task-clock"
# blaude's wrapper gets ptybench's "--no-sandbox --exec CMD"; the relay's drops those two.
for v in blaude relay; do
  cat >"$dir/w-$v" <<EOF
#!/bin/sh
dir=$dir
bytes=0 ws=0 esc=text prev=
for a in "\$@"; do
  case "\$prev" in --produce) bytes=\$a ;; --write-size) ws=\$a ;; esac
  [ "\$a" = --escapes ] && esc=escapes
  prev=\$a
done
if [ $v = relay ]; then shift 2; set -- "\$dir/ptybench" --relay "\$@"; else set -- "\$dir/blaude" "\$@"; fi
[ "\$bytes" -ge 1048576 ] || exec "\$@"
exec perf stat --no-inherit -x, -o "\$dir/ps.$v.\$esc-\$ws.\$bytes.\$\$" $(printf "%s " $events) -- "\$@"
EOF
  chmod +x "$dir/w-$v"
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$dir/ptybench" --blaude "$dir/w-blaude" --baseline "$dir/w-relay" --variants blaude,base \
  --shapes "$shapes" --size "$mib" --reps "$reps" --rss-size 0 --latency-samples 1 \
  --resize-samples 1 --start-samples 1 >"$dir/pty.txt" 2>"$dir/pty.err" ||
  { echo "$0: ptybench failed:" >&2; cat "$dir/pty.txt" "$dir/pty.err" >&2; exit 1; }
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# One line per transfer: shape variant chunks then the counts in the order of $events.
for f in "$dir"/ps.*; do
  IFS=. read -r _ v shape bytes _ <<<"${f##*/}"
  printf '%s %s %s ' "$shape" "$v" "$((bytes / 4096))"
  grep -v '^#' "$f" | grep . | cut -d, -f1 | tr '\n' ' '
  echo
done | awk '
  { k = $1 " " $2; n[k]++; c = $3
    for (i = 4; i <= 12; i++) v[k, i, n[k]] = $i / (i == 12 ? c / 256 : c); shapes[$1] = 1 }
  function med(k, i,   m, a, x, y, t) {
    m = n[k]; for (x = 1; x <= m; x++) a[x] = v[k, i, x]
    for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    print "| shape | proxy | syscalls | read (EAGAIN) | write | epoll_wait | epoll_ctl | poll | switches | voluntary | preempted | task-clock, ms per MiB |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (s in shapes) for (p = 0; p < 2; p++) {
      k = s " " (p ? "relay" : "blaude"); if (!n[k]) continue
      sc = med(k, 4) + med(k, 6) + med(k, 7) + med(k, 8) + med(k, 9)
      printf "| %s | %s | %.2f | %.2f (%.3f) | %.2f | %.2f | %.3f | %.2f | %.2f | %.2f | %.2f | %.0f |\n", s,
        p ? "relay" : "blaude", sc, med(k, 4), med(k, 5), med(k, 6), med(k, 7), med(k, 8), med(k, 9),
        med(k, 10), med(k, 10) - med(k, 11), med(k, 11), med(k, 12)
    }
  }'
echo "(per 4 KiB chunk of payload, medians of $reps transfers of $mib MiB; the proxy process only)"
