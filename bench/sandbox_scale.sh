#!/usr/bin/env bash
# Sandbox start-up at monorepo scale (issue 12): a generated tree (bench/gen_tree.sh, ~20,000
# files) with N = 0, 10, 40, 160 nested repos, under /tmp (so the /tmp alias of the workspace is
# protected too). For each N, in one hyperfine run, as uid 65534:
#   blaude   `blaude --no-clipboard --exec true` (probe, plan, bwrap, protections, exec)
#   dry-run  `blaude --no-clipboard --dry-run --exec true` (probe + plan + print: blaude's own part)
#   bwrap    a bare `bwrap --unshare-user --ro-bind / / true` (the baseline)
# and the same with the overlay-capable bwrap when it is there (BLAUDE_BWRAP_OVERLAY or the
# test cache). Prints a markdown table; the ratios against bare bwrap are the numbers to compare
# across machines. Needs root (for setpriv) and hyperfine.
# Usage: bench/sandbox_scale.sh BUILD_DIR [runs] [N...]
set -euo pipefail
BUILD=${1:?usage: sandbox_scale.sh BUILD_DIR [runs] [N...]}
RUNS=${2:-20}
shift $(($# >= 2 ? 2 : 1))
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(0 10 40 160)
HERE=$(cd "$(dirname "$0")" && pwd)
command -v hyperfine >/dev/null || { echo "sandbox_scale: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "sandbox_scale: run as root (it measures as uid 65534 through setpriv)" >&2; exit 1; }

T=$(mktemp -d /tmp/blaude-scale.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
install -m 755 "$BUILD/blaude" "$T/blaude"
mkdir -p "$T/home/.claude"
OVERLAY=${BLAUDE_BWRAP_OVERLAY:-/var/cache/blaude-test/bwrap-overlay/bin/bwrap}
BWRAPS=(/usr/bin/bwrap)
[ -x "$OVERLAY" ] && BWRAPS+=("$OVERLAY")

for n in "${NS[@]}"; do "$HERE/gen_tree.sh" "$T/t$n" "$n" >/dev/null; done
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
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); runs per cell: $RUNS"
