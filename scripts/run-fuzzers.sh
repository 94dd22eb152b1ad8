#!/usr/bin/env bash
# Runs each libFuzzer target built in $1 for a short, bounded time on its seed corpus.
set -euo pipefail
dir=$1
secs=${FUZZ_SECONDS:-20}
shopt -s nullglob
n=0
for src in tests/fuzz/*.cpp; do
  name=$(basename "$src" .cpp)
  bin="$dir/tests/$name"
  [ -x "$bin" ] || { echo "fuzz: $bin was not built" >&2; exit 1; }
  corpus="tests/fuzz/corpus/$name"
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  echo "fuzz: $name for ${secs}s"
  "$bin" -max_total_time="$secs" -max_len=65536 -print_final_stats=0 "$work" 2>"$work.log" || {
    tail -n 60 "$work.log" >&2; exit 1; }
  rm -rf "$work" "$work.log"
  n=$((n+1))
done
echo "fuzz: $n targets ran clean"
