#!/usr/bin/env bash
# Runs each libFuzzer target built in $1 for a short, bounded time on its checked-in seed corpus
# (tests/fuzz/corpus/<target>: a target without one fails), JOBS of them at a time.
# Env: FUZZ_SECONDS (12 each), JOBS (nproc).
set -euo pipefail
dir=$1
secs=${FUZZ_SECONDS:-12}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
shopt -s nullglob
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

targets=()
for src in tests/fuzz/*.cpp; do
  name=$(basename "$src" .cpp)
  [ -x "$dir/tests/$name" ] || { echo "fuzz: $dir/tests/$name was not built" >&2; exit 1; }
  [ -d "tests/fuzz/corpus/$name" ] || { echo "fuzz: $name has no seed corpus (tests/fuzz/corpus/$name)" >&2; exit 1; }
  targets+=("$name")
done

# one NAME: the target on a copy of its corpus (libFuzzer adds what it finds to the first dir).
one() {
  local name=$1 c="$work/$1"
  mkdir -p "$c" && cp -r "tests/fuzz/corpus/$name"/. "$c"/
  if "$dir/tests/$name" -max_total_time="$secs" -max_len=65536 -print_final_stats=0 "$c" >"$c.log" 2>&1; then
    echo "fuzz: $name ran ${secs}s clean"
  else
    { echo "fuzz: $name FAILED"; tail -n 60 "$c.log"; } >&2
    : >"$work/$name.failed"
  fi
}

running=0
for name in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running-1)); fi
  one "$name" &
  running=$((running+1))
done
wait
fails=$(find "$work" -maxdepth 1 -name '*.failed' | wc -l)
[ "$fails" -eq 0 ] || { echo "fuzz: $fails of ${#targets[@]} targets failed" >&2; exit 1; }
echo "fuzz: ${#targets[@]} targets ran clean"
