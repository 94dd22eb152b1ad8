#!/usr/bin/env bash
# Sandbox start-up at monorepo scale: a generated tree (bench/gen_tree.sh, ~20,000
# files) with N = 0, 10, 40, 160 nested repos (and "small", the default set), under /tmp (so the /tmp alias of the workspace is
# protected too). For each N, in one hyperfine run, as uid 65534:
#   blaude   `blaude --no-clipboard --exec true` (probe, plan, bwrap, protections, exec)
#   dry-run  `blaude --no-clipboard --dry-run --exec true` (probe + plan + print: blaude's own part)
#   bwrap    a bare `bwrap --unshare-user --ro-bind / / true` (the baseline)
# and the same with the overlay-capable bwrap when it is there (BLAUDE_BWRAP_OVERLAY or the
# test cache). Prints a markdown table; the ratios against bare bwrap are the numbers to compare
# across machines. N = "small" is a small repository instead (one repo, 200 files).
# A second table splits blaude's total into "to the child's exec" and "after": the command is
# `date +%s%N`, whose printed clock, minus the clock just before the start, is the time to the
# child's exec (plus date's own start, the same in the bare bwrap baseline run beside it);
# the rest of the total is the child's exit, the post-session audit walk and blaude's exit.
# BASELINE=/path/to/another/blaude adds that build to the second table, interleaved (old vs new).
# Needs root (for setpriv) and hyperfine.
# Usage: bench/sandbox_scale.sh BUILD_DIR [runs] [N...]
set -euo pipefail
BUILD=${1:?usage: sandbox_scale.sh BUILD_DIR [runs] [N...]}
RUNS=${2:-20}
shift $(($# >= 2 ? 2 : 1))
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(small 0 10 40 160)
HERE=$(cd "$(dirname "$0")" && pwd)
command -v hyperfine >/dev/null || { echo "sandbox_scale: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "sandbox_scale: run as root (it measures as uid 65534 through setpriv)" >&2; exit 1; }

T=$(mktemp -d /tmp/blaude-scale.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
install -m 755 "$BUILD/blaude" "$T/blaude"
# and its exec shim beside it, where blaude finds it (without it blaude is its own, slower, shim)
[ ! -e "$BUILD/blaude-exec" ] || install -m 755 "$BUILD/blaude-exec" "$T/blaude-exec"
[ -z "${BASELINE:-}" ] || install -m 755 "$BASELINE" "$T/baseline"
mkdir -p "$T/home/.claude"
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
[ -x "$OVERLAY" ] && BWRAPS+=("$OVERLAY")

for n in "${NS[@]}"; do
  if [ "$n" = small ]; then "$HERE/gen_tree.sh" "$T/t$n" 0 200 >/dev/null; else "$HERE/gen_tree.sh" "$T/t$n" "$n" >/dev/null; fi
done
chown -R 65534:65534 "$T/home" "$T"/t*

# as_nobody DIR CMD...: the command line hyperfine runs (no shell: -N)
nob() { echo "setpriv --reuid=65534 --regid=65534 --clear-groups env -C $1 -i HOME=$T/home PATH=$2:/usr/bin:/bin TERM=dumb ${*:3}"; }

echo "| bwrap | N repos | mounts in plan | blaude ms (median, min) | dry-run ms | bare bwrap ms | blaude / bare | CPU ms (blaude) |"
echo "|---|---|---|---|---|---|---|---|"
for bw in "${BWRAPS[@]}"; do
  ver=$("$bw" --version | awk '{print $2}')
  bindir=$(dirname "$bw")
  for n in "${NS[@]}"; do
    d="$T/t$n"
    ops=$(eval "$(nob "$d" "$bindir" "$T/blaude --no-clipboard --dry-run --exec true")" 2>/dev/null |
      grep -cE '^  --(bind|ro-bind|bind-fd|ro-bind-fd|tmpfs|overlay-src|remount-ro|dev|proc|symlink)( |$)' || true)
    j="$T/h.json"
    hyperfine -N -w 3 -r "$RUNS" --export-json "$j" \
      "$(nob "$d" "$bindir" "$T/blaude --no-clipboard --exec true")" \
      "$(nob "$d" "$bindir" "$T/blaude --no-clipboard --dry-run --exec true")" \
      "$(nob "$d" "$bindir" "$bw --unshare-user --ro-bind / / true")" >/dev/null 2>&1
    python3 - "$j" "$ver" "$n" "$ops" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ms = lambda x: x * 1000
b, d, w = r
print("| %s | %s | %s | %.1f, %.1f | %.1f | %.1f | %.2f | %.1f |" % (
    sys.argv[2], sys.argv[3], sys.argv[4], ms(b["median"]), ms(b["min"]), ms(d["median"]),
    ms(w["median"]), b["median"] / w["median"], ms(b["user"] + b["system"])))
EOF
  done
done
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); runs per cell: $RUNS"
echo
if [ -n "${BASELINE:-}" ]; then
  echo "| bwrap | N repos | blaude: to the child's exec ms (median) | blaude: total ms | blaude: after the child ms | bare bwrap: to exec ms | bare: total ms | to exec / bare | baseline: to exec ms | baseline: total ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| bwrap | N repos | blaude: to the child's exec ms (median) | blaude: total ms | blaude: after the child ms | bare bwrap: to exec ms | bare: total ms | to exec / bare |"
  echo "|---|---|---|---|---|---|---|---|"
fi
for bw in "${BWRAPS[@]}"; do
  ver=$("$bw" --version | awk '{print $2}')
  bindir=$(dirname "$bw")
  for n in "${NS[@]}"; do
    d="$T/t$n"
    python3 - "$RUNS" "$ver" "$n" "$(nob "$d" "$bindir" "$T/blaude --no-clipboard --exec date +%s%N")" \
      "$(nob "$d" "$bindir" "$bw --unshare-user --ro-bind / / date +%s%N")" \
      ${BASELINE:+"$(nob "$d" "$bindir" "$T/baseline --no-clipboard --exec date +%s%N")"} <<'EOF'
import statistics, subprocess, sys, time
runs, ver, n, cmds = int(sys.argv[1]), sys.argv[2], sys.argv[3], [c.split() for c in sys.argv[4:]]
res = [([], []) for _ in cmds]
for i in range(runs + 2):  # interleaved; the first two are warm-up
    for k, c in enumerate(cmds):
        t0 = time.time_ns()
        out = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        t1 = time.time_ns()
        stamp = int(out.split()[-1])
        if i >= 2:
            res[k][0].append((stamp - t0) / 1e6)
            res[k][1].append((t1 - t0) / 1e6)
med = statistics.median
(be, bt), (we, wt) = res[0], res[1]
after = med([t - e for e, t in zip(be, bt)])
extra = "".join(" %.1f | %.1f |" % (med(e), med(t)) for e, t in res[2:])
print("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |%s" % (ver, n, med(be), med(bt), after, med(we), med(wt), med(be) / med(we), extra))
EOF
  done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); runs per cell: $RUNS"
