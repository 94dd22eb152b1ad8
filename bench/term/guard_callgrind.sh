#!/usr/bin/env bash
# The terminal state guard's cost with a noise far below 5 %: the instructions the real blaude
# process executes (callgrind: user space, its whole pty supervisor, scanner and tracker) while
# ptybench drives it, guard on vs BLAUDE_TERM_GUARD=off, and guard off vs off as the method's own
# noise. ptybench checks every byte of every stream, as in its throughput runs. The kernel's part
# of blaude's CPU is not counted: the guard makes no syscall (it only reads the bytes that pass),
# so its cost is exactly the user-space instructions it adds. Wall-clock and rusage pairs cannot
# resolve this on a shared 2-CPU machine (guard on/off pair spreads 0.6-2.2x, docs/PERFORMANCE.md).
# Needs valgrind. Valgrind hides AVX-512, so the tracker's AVX2 path is the one counted.
# Usage: bench/term/guard_callgrind.sh BUILD_DIR [MiB] [REPS] [SHAPES]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [MiB] [REPS] [SHAPES]}
mib=${2:-8}
reps=${3:-3}
shapes=${4:-text-64k,escapes-4k,escapes-64k}
command -v valgrind >/dev/null || { echo "$0: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
build=$(cd "$build" && pwd)
[ -x "$build/blaude" ] && [ -x "$build/ptybench" ] ||
  { echo "$0: $build/blaude and $build/ptybench are needed (cmake --build $build --target blaude ptybench)" >&2; exit 2; }
dir=$(mktemp -d /tmp/blaude-guard-cg.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$build/blaude" "$dir/blaude"  # a rebuild while this runs must not change the binary

# One wrapper per variant: blaude under callgrind, one profile per transfer, named after the
# variant, the producer's shape and payload size, and the wrapper's pid (= blaude's; the forked
# watchdog's profile has another pid and is left out). Probes, the preamble and the 64-byte
# first-output runs go to /dev/null.
for tag in on off off2; do
  guard=on
  [ "$tag" = on ] || guard=off
  cat >"$dir/blaude-$tag" <<EOF
#!/bin/sh
out=/dev/null
bytes=0 ws=0 esc=text
prev=
for a in "\$@"; do
  case "\$prev" in --produce) bytes=\$a ;; --write-size) ws=\$a ;; esac
  [ "\$a" = --escapes ] && esc=escapes
  prev=\$a
done
[ "\$bytes" -ge 1048576 ] && out="$dir/cg.$tag.\$esc-\$ws.\$bytes.\$\$.%p"
BLAUDE_TERM_GUARD=$guard exec valgrind -q --tool=callgrind --callgrind-out-file="\$out" "$dir/blaude" "\$@"
EOF
  chmod +x "$dir/blaude-$tag"
done

run() {  # run BLAUDE_TAG BASE_TAG
  # ptybench's own exit status is not used: its time-to-first-output probe (--start-samples, 1 at
  # least) times out under valgrind. Every throughput transfer must be byte-exact, and no other
  # problem may be reported.
  "$build/ptybench" --blaude "$dir/blaude-$1" --baseline "$dir/blaude-$2" --variants blaude,base \
    --shapes "$shapes" --size "$mib" --reps "$reps" --rss-size 0 --latency-samples 1 \
    --resize-samples 1 --start-samples 1 --no-awake >"$dir/pty-$1-$2.txt" 2>"$dir/pty-$1-$2.err" || true
  if grep 'PROBLEM' "$dir/pty-$1-$2.txt" | grep -vq 'first output'; then
    echo "$0: ptybench reported a problem (guard $1 vs $2):" >&2
    grep 'PROBLEM' "$dir/pty-$1-$2.txt" >&2
    exit 1
  fi
  n=$(ls "$dir" | grep -c "^cg\.$1\." || true)
  [ "$n" -gt 0 ] || { echo "$0: no profile was written (valgrind failed?)" >&2; cat "$dir/pty-$1-$2.err" >&2; exit 1; }
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
run on off
run off2 off
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Instructions per payload byte of each transfer: shape, variant, rep (in the order they ran).
for f in "$dir"/cg.*; do
  base=${f##*/}
  IFS=. read -r _ tag shape bytes pid ppid <<<"$base"
  [ "$pid" = "$ppid" ] || continue  # the watchdog's
  ir=$(awk '/^summary:/ { print $2 }' "$f")
  echo "$shape $tag $bytes $pid $ir"
done | sort -k1,1 -k2,2 -k4,4n | awk '
  { key = $1 " " $2; n[key]++; v[key, n[key]] = $5 / $3; shapes[$1] = 1 }
  function median(key,   m, i, j, t, a) {
    m = n[key]; for (i = 1; i <= m; i++) a[i] = v[key, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  function ratios(x, y,   m, i, j, t, r, lo, hi) {  # median (min-max) of per-rep ratios x/y
    m = n[x]; if (n[y] < m) m = n[y]
    for (i = 1; i <= m; i++) r[i] = v[x, i] / v[y, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
    return sprintf("%.3f (%.3f-%.3f)", m % 2 ? r[(m + 1) / 2] : (r[m / 2] + r[m / 2 + 1]) / 2, r[1], r[m])
  }
  END {
    printf "| shape | off, instr/B | off2, instr/B | on, instr/B | guard adds, instr/B | on / off | off2 / off (noise) |\n"
    printf "|---|---|---|---|---|---|---|\n"
    for (s in shapes) {
      off = median(s " off"); on = median(s " on"); off2 = median(s " off2")
      printf "| %s | %.3f | %.3f | %.3f | %+.3f | %s | %s |\n", s, off, off2, on, on - off,
        ratios(s " on", s " off"), ratios(s " off2", s " off")
    }
  }'
echo "($reps transfers of $mib MiB per shape and variant; instructions of the blaude process per payload byte, medians; ratios: median (min-max) of the per-rep pairs)"
