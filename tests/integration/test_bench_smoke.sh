# ptybench smoke test: tiny sizes, no timing asserted. Checks that the driver verifies every byte
# through all four variants (direct, script, blaude, ptybench's own minimal relay), and, as a
# control, that it notices one flipped byte in the payload (so "byte-exact: yes" can fail).
. "$(dirname "$0")/lib.sh"

PTYBENCH="${BLAUDE_BUILD:?}/ptybench"
[ -x "$PTYBENCH" ] || missing "ptybench not built ($PTYBENCH)"
command -v script >/dev/null || missing "util-linux script not installed"

tiny=(--size 2 --reps 1 --rss-size 3 --latency-samples 20 --resize-samples 5 --start-samples 2)

out=$("$PTYBENCH" --blaude "$BLAUDE" "${tiny[@]}" 2>"$T_DIR/err") && rc=0 || rc=$?
check_eq "bench exits 0 when every transfer is exact" 0 "$rc"
check "all four variants byte-exact" \
  grep -q '^byte-exact: direct yes script yes blaude yes relay yes' <<<"$out"
check "table has a throughput row with three numbers" \
  grep -Eq '^\| throughput.*\| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' <<<"$out"
check "peak RSS of blaude was sampled" \
  grep -Eq '^\| peak RSS.*\| — \| [0-9.]+ \| [0-9.]+ \|' <<<"$out"
check "no problems reported" bash -c '! grep -q PROBLEM <<<"$1"' _ "$out"
[ "$T_FAILS" -eq 0 ] || { echo "--- output:"; echo "$out"; cat "$T_DIR/err"; }

# Control: the producer flips payload byte 1000000 (inside the 2 MiB run) in every variant.
out=$("$PTYBENCH" --blaude "$BLAUDE" "${tiny[@]}" --rss-size 0 --corrupt-at 1000000 2>/dev/null) \
  && rc=0 || rc=$?
check_eq "bench fails when a byte is altered" 1 "$rc"
check "the altered byte is located in every variant" \
  test "$(grep -c 'not byte-exact: mismatch at payload byte 1000000$' <<<"$out")" = 4
check "byte-exact line says NO" grep -q '^byte-exact: direct NO script NO blaude NO relay NO' <<<"$out"

# Bad input: clear error, exit 2.
"$PTYBENCH" --size nope >/dev/null 2>"$T_DIR/err" && rc=0 || rc=$?
check_eq "bad option exits 2" 2 "$rc"
check "bad option says what is wrong" grep -q '^ptybench: bad option or value: --size' "$T_DIR/err"
finish
