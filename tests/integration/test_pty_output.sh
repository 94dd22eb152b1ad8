#!/usr/bin/env bash
# Every byte of a large, fast output arrives in order, also when the child exits right after
# writing it; a stalled terminal does not make blaude's memory grow.
. "$(dirname "$0")/lib.sh"
PT="python3 $BLAUDE_SRC/tests/integration/ptyterm.py"

# 50 MiB without newlines (base64 -w0), so the inner pty's ONLCR cannot change a byte.
head -c 39321600 /dev/urandom | base64 -w0 > "$T_DIR/data"
want=$(sha256sum < "$T_DIR/data" | cut -d' ' -f1)
code=$($PT capture "$T_DIR/got" -- "$BLAUDE" --no-sandbox --exec cat "$T_DIR/data" 2>/dev/null)
# blaude's own "--no-sandbox" notice goes to stderr, which is the pty too: strip that line.
grep -c 'no sandbox is active' "$T_DIR/got" >/dev/null && sed -i '1{/no sandbox is active/d}' "$T_DIR/got"
unbracket "$T_DIR/got"
got=$(sha256sum < "$T_DIR/got" | cut -d' ' -f1)
check_eq "50 MiB arrives byte-exact (size $(stat -c %s "$T_DIR/got"))" "$want" "$got"
check_eq "exit code of cat" 0 "$code"

# The same, with a child that exits with a code right after its last write.
code=$($PT capture "$T_DIR/got2" -- "$BLAUDE" --no-sandbox --exec sh -c "cat '$T_DIR/data'; exit 9" 2>/dev/null)
sed -i '1{/no sandbox is active/d}' "$T_DIR/got2"
unbracket "$T_DIR/got2"
check_eq "byte-exact when the child exits at once" "$want" "$(sha256sum < "$T_DIR/got2" | cut -d' ' -f1)"
check_eq "exit code 9 after the burst" 9 "$code"

# Control for the checksum comparison: a truncated copy must not match.
head -c -1 "$T_DIR/got" > "$T_DIR/short"
check "control: a one-byte-short copy is detected" [ "$(sha256sum < "$T_DIR/short" | cut -d' ' -f1)" != "$want" ]

# Stalled terminal: the child writes forever; from its first output on (blaude has started) the
# terminal reads nothing for 3 s.
res=$($PT stall 3 -- "$BLAUDE" --no-sandbox --exec sh -c 'exec base64 -w0 /dev/zero')
log "stall: $res"
# Under ASan the allocator's own reservations make the absolute size meaningless; growth is not.
cap=16384; blaude_sanitized && cap=262144
python3 - "$res" "$cap" <<'PY' && pass "RSS flat while the terminal is stalled" || fail "RSS grew while stalled: $res"
import json, sys
r = json.loads(sys.argv[1])
s = [x for x in r["rss_kib"] if x > 0]
assert r["first_read"] > 0, r   # the child was running before the stall began
assert len(s) >= 6, s
assert max(s) < int(sys.argv[2]), s
assert max(s[2:]) - s[2] < 512, s     # no growth after the first half second
PY
python3 -c "import json,sys; r=json.loads(sys.argv[1]); sys.exit(0 if r['read_after'] > (1<<20) else 1)" "$res" \
  && pass "output resumes after the stall" || fail "output did not resume: $res"

# Input toward a child that never reads: blaude's memory stays bounded too. The child's pty is
# raw, as a TUI's is (a canonical pty with a full line drops further input instead of pushing
# back: 10 MiB "sent" in 6 s, and nothing of blaude's path would be tested).
res=$($PT flood-input 64 BLAUDE_FLOOD_READY -- "$BLAUDE" --no-sandbox --exec sh -c 'stty raw -echo; echo BLAUDE_FLOOD_READY; exec sleep 30')
log "flood: $res"
python3 - "$res" "$cap" <<'PY' && pass "RSS flat while input floods a child that does not read" || fail "RSS grew: $res"
import json, sys
r = json.loads(sys.argv[1])
s = [x for x in r["rss_kib"] if x > 0]
assert len(s) >= 4, r                  # sampled for the whole flood, after the child was up
assert max(s) < int(sys.argv[2]), s
assert max(s) - s[0] < 512, s
assert r["sent"] < 8 << 20, r          # the flood was stopped by backpressure, not absorbed
PY
finish
