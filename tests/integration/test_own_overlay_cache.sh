#!/usr/bin/env bash
# The own-overlay probe's per-boot cache (sandbox/bwrap/probe/overlay_cache.hpp) through the real blaude
# as uid 65534 with the system's bwrap 0.8 (no --overlay: blaude makes ~/.config's write-discarding
# overlay itself). The cache is written after a start; a forged "does not work" entry is not
# believed (the attack: it would make ~/.config host-writable), with the real fallback as control;
# an entry of another boot is replaced.
. "$(dirname "$0")/lib.sh"
need_sandbox
BW=$(command -v bwrap)
"$BW" --overlay-src / --tmp-overlay / --version >/dev/null 2>&1 &&
  host_lacks "the system's bwrap has overlays ($("$BW" --version)); this test needs bwrap < 0.9"

H="$T_DIR/home"
WS="$T_DIR/proj"
CACHE="$H/.cache/blaude/own-overlay-65534"
mkdir -p "$H/.claude" "$H/.config" "$WS"
echo "theme=dark" >"$H/.config/app.conf"
chown -R 65534:65534 "$H" "$WS"

# run [env...] -- SCRIPT: SCRIPT with sh in blaude's sandbox, from the workspace.
run() {
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb "${envs[@]}" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --no-clipboard --exec sh -c "$1")
}

run -- true
check "a start writes the cache" test -f "$CACHE"
check "the entry is a positive answer" grep -qx 'own_overlay=1' "$CACHE"
boot=$(cat /proc/sys/kernel/random/boot_id)
check "the entry is keyed by this boot" grep -q "boot=$boot " "$CACHE"

# Attack: a forged "does not work" for this very key. Believed, ~/.config would be bound
# host-writable (the fallback with pins) and the write below would reach the host.
sed -i 's/^own_overlay=1$/own_overlay=0/' "$CACHE"
run -- 'echo evil >"$HOME/.config/app.conf"' || true
check_eq "forged negative entry: the write to ~/.config is discarded" "theme=dark" "$(cat "$H/.config/app.conf")"
# Control: the real fallback (as where unprivileged overlayfs is refused): the write lands.
run BLAUDE_OWN_OVERLAY=off -- 'echo evil >"$HOME/.config/app.conf"' || true
check_eq "control: without own overlays the same write reaches the host" "evil" "$(cat "$H/.config/app.conf")"
echo "theme=dark" >"$H/.config/app.conf"

# An entry of another boot is not used and is replaced by this boot's after the start.
sed -i "s/boot=$boot /boot=00000000-0000-0000-0000-000000000000 /; s/^own_overlay=0$/own_overlay=1/" "$CACHE"
run -- true
check "another boot's entry is replaced by this boot's" grep -q "boot=$boot " "$CACHE"
run -- 'echo evil >"$HOME/.config/app.conf"' || true
check_eq "with the cached answer, writes to ~/.config are discarded" "theme=dark" "$(cat "$H/.config/app.conf")"
finish
