#!/usr/bin/env bash
# Mount order with the real system bwrap as uid 65534: a tool dir inside ~/.config (nvm's XDG
# layout, NVM_DIR=~/.config/nvm) stays read-only under bwrap 0.8's fallback, where ~/.config
# itself is a host-writable bind. Before the fix ~/.config was bound after the tool dirs and hid
# the nvm bind. Controls: a plain ~/.config file does reach the host (so the nvm protection is
# what holds), --allow-protected-writes lets the nvm write through, and bwrap itself, given the
# old order by hand, lets it through too (so the test would notice the bug coming back).
. "$(dirname "$0")/lib.sh"

BW=$(command -v bwrap) || skip "bwrap is not installed"
if ! as_nobody "$BW" --unshare-user --ro-bind / / true 2>"$T_DIR/userns.err"; then
  skip "bwrap cannot create a user namespace as uid 65534: $(cat "$T_DIR/userns.err")"
fi
OVERLAY=0
"$BW" --overlay-src / --tmp-overlay / --version >/dev/null 2>&1 && OVERLAY=1
log "bwrap: $BW ($("$BW" --version)); overlay: $OVERLAY"

H="$T_DIR/home"
WS="$T_DIR/ws/proj"
NVM="$H/.config/nvm"
fresh() {
  rm -rf "$H" "$T_DIR/ws"
  mkdir -p "$H/.claude" "$NVM/versions" "$WS"
  echo "orig" >"$NVM/nvm.sh"
  echo "theme=dark" >"$H/.config/app.conf"
  chown -R 65534:65534 "$H" "$T_DIR/ws"
}
sb() {  # sb [blaude options] -- SCRIPT
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "$WS" && env -i HOME="$H" NVM_DIR="$NVM" PATH="/usr/bin:/bin" TERM=dumb \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$BLAUDE" "${opts[@]}" --exec sh -c "$1" </dev/null 2>"$T_DIR/sb.err")
}
attack="echo evil >>'$NVM/nvm.sh'; echo evil >'$NVM/versions/planted'; echo theme=evil >>~/.config/app.conf; cat '$NVM/nvm.sh'; echo ran"

fresh
plan=$(sb --dry-run -- true)
i_cfg=$(grep -n -- " $H/.config \\\\\$" <<<"$plan" | head -1 | cut -d: -f1)
i_nvm=$(grep -n -- " $NVM \\\\\$" <<<"$plan" | head -1 | cut -d: -f1)
check "dry-run mounts ~/.config and the nvm dir" test -n "$i_cfg" -a -n "$i_nvm"
check "dry-run: ~/.config comes before the nvm dir inside it" test "${i_cfg:-0}" -lt "${i_nvm:-0}"

out=$(sb -- "$attack")
check_eq "the session ran" "ran" "$(tail -1 <<<"$out")"
check "inside, the nvm dir is visible (the attack aimed at it)" grep -qx orig <<<"$out"
check_eq "nvm.sh inside ~/.config is unchanged on the host" "orig" "$(cat "$NVM/nvm.sh")"
check "no file planted in the nvm dir reaches the host" test ! -e "$NVM/versions/planted"
if [ $OVERLAY = 0 ]; then
  check "control: a ~/.config file is host-writable in the fallback (so nvm's bind is what held)" \
    grep -qx "theme=evil" "$H/.config/app.conf"
  check "the fallback warning lists ~/.config" grep -q "$H/.config\$" "$T_DIR/sb.err"
fi

fresh
sb --allow-protected-writes -- "$attack" >/dev/null || true
check "control: with --allow-protected-writes the nvm write reaches the host" grep -qx evil "$NVM/nvm.sh"

# bwrap itself with the old order: the read-only nvm bind, then ~/.config writable over it.
fresh
as_nobody "$BW" --unshare-user --ro-bind / / --tmpfs "$H" --ro-bind "$NVM" "$NVM" \
  --bind "$H/.config" "$H/.config" sh -c 'echo evil >>"$0/nvm.sh"' "$NVM" 2>"$T_DIR/raw.err" || true
check "control: bwrap with the old order lets the write through" grep -qx evil "$NVM/nvm.sh"
fresh
as_nobody "$BW" --unshare-user --ro-bind / / --tmpfs "$H" --bind "$H/.config" "$H/.config" \
  --ro-bind "$NVM" "$NVM" sh -c 'echo evil >>"$0/nvm.sh"' "$NVM" 2>"$T_DIR/raw.err" || true
check_eq "control: bwrap with the new order keeps it read-only" "orig" "$(cat "$NVM/nvm.sh")"

finish
