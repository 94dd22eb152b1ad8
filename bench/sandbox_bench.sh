#!/usr/bin/env bash
# Sandbox launch cost: `--dry-run` (probe + plan + print) and `--exec true` (plus bwrap) in a
# small repo and in a 20,000-file repo with node_modules and nested repos, against a bare
# `bwrap --ro-bind / / true`. Usage: bench/sandbox_bench.sh BUILD_DIR [runs]
set -euo pipefail
BUILD=${1:?build dir}
RUNS=${2:-50}
BLAUDE="$BUILD/blaude"  # the real binary (the test-only sandbox_driver is gone)
T=$(mktemp -d /tmp/blaude-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home"
mkdir -p "$HOME/.claude"

small="$T/small"
mkdir -p "$small/src" "$small/.git/hooks"
echo "[core]" >"$small/.git/config"
for i in $(seq 1 20); do echo x >"$small/src/f$i.c"; done

large="$T/large"
mkdir -p "$large/.git/hooks"
echo "[core]" >"$large/.git/config"
for p in $(seq 1 30); do                     # 30 nested repos, 100 files each
  mkdir -p "$large/packages/p$p/src/a/b" "$large/packages/p$p/.git/hooks"
  echo "[core]" >"$large/packages/p$p/.git/config"
  (cd "$large/packages/p$p/src/a/b" && touch $(seq -f 'f%g.js' 1 100))
done
for m in $(seq 1 150); do                    # node_modules: 15,000 files
  mkdir -p "$large/node_modules/m$m/lib"
  (cd "$large/node_modules/m$m/lib" && touch $(seq -f 'f%g.js' 1 100))
done
for d in $(seq 1 20); do                     # 2,000 source files
  mkdir -p "$large/src/d$d/x"
  (cd "$large/src/d$d/x" && touch $(seq -f 'f%g.c' 1 100))
done
echo "files in the large repo: $(find "$large" -type f | wc -l)"

avg_ms() {  # avg_ms DIR CMD...: mean wall time of RUNS runs, in ms
  local dir=$1; shift
  local start end
  start=$(date +%s%N)
  for _ in $(seq 1 "$RUNS"); do (cd "$dir" && "$@" >/dev/null 2>&1 </dev/null); done
  end=$(date +%s%N)
  echo "scale=2; ($end - $start) / $RUNS / 1000000" | bc
}

printf '%-34s %10s %10s\n' "" small large
printf '%-34s %10s %10s\n' "bwrap --ro-bind / / true" "$(avg_ms "$small" bwrap --ro-bind / / true)" "$(avg_ms "$large" bwrap --ro-bind / / true)"
printf '%-34s %10s %10s\n' "blaude --dry-run --exec true" "$(avg_ms "$small" "$BLAUDE" --dry-run --exec true)" "$(avg_ms "$large" "$BLAUDE" --dry-run --exec true)"
printf '%-34s %10s %10s\n' "blaude --exec true" "$(avg_ms "$small" "$BLAUDE" --exec true)" "$(avg_ms "$large" "$BLAUDE" --exec true)"
printf '%-34s %10s %10s\n' "/bin/true (process start floor)" "$(avg_ms "$small" /bin/true)" "$(avg_ms "$large" /bin/true)"
