#!/usr/bin/env bash
# Mount order with the real system bwrap as uid 65534: a tool dir inside ~/.config (nvm's XDG
# layout, NVM_DIR=~/.config/nvm) stays read-only under bwrap 0.8's fallback, where ~/.config
# itself is a host-writable bind. Before the fix ~/.config was bound after the tool dirs and hid
# the nvm bind. Controls: a plain ~/.config file does reach the host (so the nvm protection is
# what holds), --allow-protected-writes lets the nvm write through, and bwrap itself, given the
# old order by hand, lets it through too (so the test would notice the bug coming back).
. "$(dirname "$0")/lib.sh"

BW=$(command -v bwrap) || missing "bwrap is not installed"
if ! as_nobody "$BW" --unshare-user --ro-bind / / true 2>"$T_DIR/userns.err"; then
  host_lacks "bwrap cannot create a user namespace as uid 65534: $(cat "$T_DIR/userns.err")"
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
  # BLAUDE_OWN_OVERLAY=off: the fallback where ~/.config is a host-writable bind (where the
  # kernel refuses blaude its own overlay; test_escapes_config covers the overlay).
  (cd "$WS" && env -i HOME="$H" NVM_DIR="$NVM" PATH="/usr/bin:/bin" TERM=dumb BLAUDE_OWN_OVERLAY=off \
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

# Symlinks inside the mounted ~/.config (a dotfile manager's): CLAUDE_CONFIG_DIR and NVM_DIR are
# links to ~/dots/*. bwrap cannot mount onto a link, so blaude mounts the targets, where the
# links lead.
linked() {
  fresh
  rm -rf "$NVM"
  mkdir -p "$H/dots/claude" "$H/dots/nvm"
  echo "orig" >"$H/dots/nvm/nvm.sh"
  ln -s ../dots/claude "$H/.config/claude"
  ln -s ../dots/nvm "$NVM"
  chown -hR 65534:65534 "$H"
}
linked
# (valid JSON with an inert key: what the audit cannot parse, it moves aside)
attack2="echo '{\"model\": \"kept\"}' >'$H/.config/claude/settings.json'; echo evil >>'$NVM/nvm.sh'; cat '$NVM/nvm.sh'; echo ran"
(cd "$WS" && env -i HOME="$H" NVM_DIR="$NVM" CLAUDE_CONFIG_DIR="$H/.config/claude" PATH="/usr/bin:/bin" TERM=dumb \
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --exec sh -c "$attack2" </dev/null \
  >"$T_DIR/linked.out" 2>"$T_DIR/linked.err") || true
check_eq "symlinked dirs: the session ran" "ran" "$(tail -1 "$T_DIR/linked.out")"
check "symlinked CLAUDE_CONFIG_DIR: a settings write persists on the host" grep -q '"model": "kept"' "$H/dots/claude/settings.json"
check "symlinked nvm dir: visible inside" grep -qx orig "$T_DIR/linked.out"
check_eq "symlinked nvm dir: the host copy is unchanged" "orig" "$(cat "$H/dots/nvm/nvm.sh")"
check "blaude said where it mounted" grep -q "$H/.config/claude is a symlink to $H/dots/claude" "$T_DIR/linked.err"
# Control: bwrap given the link itself as destination fails (why blaude must not do that).
check "control: bwrap refuses or fails to mount onto the link" not as_nobody "$BW" --unshare-user \
  --ro-bind / / --tmpfs "$H" --bind "$H/.config" "$H/.config" --bind "$H/dots/claude" "$H/.config/claude" true

finish
