# ptybench smoke test: tiny sizes, no timing asserted. Checks that the driver verifies every byte
# of every stream, from the first, through all four variants (direct, script, blaude, ptybench's
# own minimal relay) and two producer shapes (plain text, TUI escapes); and, as controls, that it
# notices one flipped payload byte (the first one, and one deep inside), and a stream whose first
# bytes differ from what the variant is known to print before its child (so "byte-exact: yes"
# can fail).
. "$(dirname "$0")/lib.sh"

PTYBENCH="${BLAUDE_BUILD:?}/ptybench"
[ -x "$PTYBENCH" ] || missing "ptybench not built ($PTYBENCH)"
command -v script >/dev/null || missing "util-linux script not installed"

tiny=(--size 2 --reps 1 --shapes text-64k,escapes-4k --latency-samples 20 --resize-samples 5
      --start-samples 2)

out=$("$PTYBENCH" --blaude "$BLAUDE" "${tiny[@]}" --rss-size 3 2>"$T_DIR/err") && rc=0 || rc=$?
check_eq "bench exits 0 when every transfer is exact" 0 "$rc"
check "all four variants byte-exact" \
  grep -q '^byte-exact: direct yes script yes blaude yes relay yes' <<<"$out"
for shape in text-64k escapes-4k; do
  check "throughput row for $shape has four numbers" \
    grep -Eq "^\| $shape( \| [0-9.]+ \[[0-9.]+\]){4} \|" <<<"$out"
done
check "blaude's preamble (its --no-sandbox notice) was learned" \
  grep -Eq '^- blaude: preamble [1-9][0-9]* bytes' <<<"$out"
check "peak RSS of blaude was sampled" \
  grep -Eq '^\| peak RSS <= 8 MiB while 3 MiB pass \| [0-9.]+ MiB \(script [0-9.]+\)' <<<"$out"
check "time to first output was measured" \
  grep -Eq '^\| time to first output p50, ms( \| [0-9.]+){4} \|' <<<"$out"
check "no problems reported" bash -c '! grep -q PROBLEM <<<"$1"' _ "$out"
[ "$T_FAILS" -eq 0 ] || { echo "--- output:"; echo "$out"; cat "$T_DIR/err"; }

# Controls: the producer flips one payload byte in every run (8 = 2 shapes x 4 variants).
for at in 0 1000000; do
  out=$("$PTYBENCH" --blaude "$BLAUDE" "${tiny[@]}" --rss-size 0 --corrupt-at $at 2>/dev/null) \
    && rc=0 || rc=$?
  check_eq "bench fails when payload byte $at is altered" 1 "$rc"
  check "the altered byte $at is located in every variant and shape" \
    test "$(grep -c "not byte-exact: mismatch at payload byte $at\$" <<<"$out")" = 8
  check "byte-exact line says NO ($at)" \
    grep -q '^byte-exact: direct NO script NO blaude NO relay NO' <<<"$out"
done
# The stream's first bytes are checked too: expecting one byte more than each variant prints
# before its child must fail at that byte (byte 0 for the variants that print nothing).
out=$("$PTYBENCH" --blaude "$BLAUDE" "${tiny[@]}" --rss-size 0 --wrong-preamble 2>/dev/null) \
  && rc=0 || rc=$?
check_eq "bench fails when the stream does not start as expected" 1 "$rc"
check "direct's first byte is compared" \
  test "$(grep -Ec '^- PROBLEM: direct [a-z0-9-]+ transfer not byte-exact: stream differs from the expected preamble at byte 0$' <<<"$out")" = 2
check "blaude's stream is compared right after its notice" \
  grep -Eq '^- PROBLEM: blaude .*differs from the expected preamble at byte [1-9][0-9]*$' <<<"$out"

# Bad input: clear error, exit 2.
"$PTYBENCH" --size nope >/dev/null 2>"$T_DIR/err" && rc=0 || rc=$?
check_eq "bad option exits 2" 2 "$rc"
check "bad option says what is wrong" grep -q '^ptybench: bad option or value: --size' "$T_DIR/err"
"$PTYBENCH" --blaude "$BLAUDE" --shapes text-2k >/dev/null 2>"$T_DIR/err" && rc=0 || rc=$?
check_eq "unknown shape exits 2" 2 "$rc"
check "unknown shape lists the known ones" grep -q 'text-4k' "$T_DIR/err"
finish
