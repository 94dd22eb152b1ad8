#!/usr/bin/env bash
# ~/.config: with bwrap < 0.9 there are no bwrap overlays, and ~/.config used
# to be host-writable. Files there run code on the host at the next login or app start
# (autostart, systemd/user, nvim/init.lua) and blaude's own user policy is applied by the next
# session without a prompt. Real blaude, bwrap 0.8 (blaude's own overlay) and the overlay bwrap,
# as uid 65534: writes inside must be discarded (and visible inside while the session runs);
# blaude's own config must not be writable from inside in ANY mode. Control:
# --allow-protected-writes makes ~/.config writable (so the test would see a leak), while
# ~/.config/blaude stays read-only even then. The last resort where blaude cannot make an
# overlay either (BLAUDE_OWN_OVERLAY=off stands for a kernel that refuses it): ~/.config stays
# host-writable, but what runs code at login or app start is read-only (guards of the protect
# layout), and the warning says so.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs

fresh() {
  rm -rf "$H" "$WS"
  mkdir -p "$H/.claude" "$H/.config/nvim" "$H/.config/autostart" "$WS"
  echo "-- mine" >"$H/.config/nvim/init.lua"
  echo "theme=light" >"$H/.config/app.conf"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
}

attack='
  c=$HOME/.config
  echo "[Desktop Entry]" >$c/autostart/evil.desktop
  mkdir -p $c/systemd/user && echo "[Service]" >$c/systemd/user/evil.service
  echo "os.execute(\"evil\")" >$c/nvim/init.lua
  echo theme=evil >$c/app.conf
  mkdir -p $c/blaude 2>/dev/null; echo "allow-write ~/.ssh" >$c/blaude/policy 2>/dev/null
  # what the session itself sees: its writes work while it runs
  cat $c/nvim/init.lua; cat $c/app.conf
  [ -e $c/blaude/policy ] && echo "policy planted" || echo "policy refused"'

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  for mode in attack control; do
    fresh
    opt=()
    [ $mode = control ] && opt=(--allow-protected-writes)
    out=$(sb_nobody "$bw" "${opt[@]}" -- "$attack" || true)
    if [ $mode = attack ]; then
      check "$label: inside, writes to ~/.config work during the session" grep -q "theme=evil" <<<"$out"
      check "$label: autostart entry discarded" test ! -e "$H/.config/autostart/evil.desktop"
      check "$label: systemd user unit discarded" test ! -e "$H/.config/systemd/user/evil.service"
      check_eq "$label: nvim/init.lua unchanged on the host" "-- mine" "$(cat "$H/.config/nvim/init.lua")"
      check_eq "$label: other config unchanged on the host" "theme=light" "$(cat "$H/.config/app.conf")"
      check "$label: blaude's own policy cannot be planted" test ! -e "$H/.config/blaude/policy"
      check "$label: --dry-run does not call ~/.config host-writable" \
        not grep -qi "writable on the host" <<<"$(sb_nobody "$bw" --dry-run -- true 2>&1; cat "$T_DIR/sb.err")"
    else
      check "$label control: without protection ~/.config is written through" grep -q evil "$H/.config/nvim/init.lua"
      check "$label control: blaude's own policy stays read-only even so" test ! -e "$H/.config/blaude/policy"
      check "$label control: and the session saw the refusal" grep -q "policy refused" <<<"$out"
    fi
  done
done
# The last resort, bwrap 0.8 only (0.12 has overlays): pins, mounted by the protect helper and
# by bwrap options where it cannot run. The helper's on both of its paths: laid out after bwrap's
# spawn (the default) and with the plan made whole first (BLAUDE_SCAN=sync, as --debug has it).
# (The late path once lost these pins: they are planned before the protections, in add_config.)
for pm in helper helper-sync bwrap-options; do
  fresh
  SB_ENV=(BLAUDE_OWN_OVERLAY=off BLAUDE_PROTECT_MOUNTS=${pm%-sync})
  [ "$pm" = helper-sync ] && SB_ENV+=(BLAUDE_SCAN=sync)
  out=$(sb_nobody /usr/bin -- "$attack" || true)
  label="bwrap 0.8, no overlay at all ($pm)"
  check "$label: autostart entry refused" test ! -e "$H/.config/autostart/evil.desktop"
  check "$label: a missing systemd dir is kept empty" test ! -e "$H/.config/systemd/user/evil.service"
  check_eq "$label: nvim/init.lua unchanged on the host" "-- mine" "$(cat "$H/.config/nvim/init.lua")"
  check "$label: blaude's own policy cannot be planted" test ! -e "$H/.config/blaude/policy"
  check "$label: the session saw the refusal" grep -q "policy refused" <<<"$out"
  check "$label control: other config is written through (and said so)" grep -q "theme=evil" "$H/.config/app.conf"
  dry=$(sb_nobody /usr/bin --dry-run -- true 2>&1; cat "$T_DIR/sb.err")
  check "$label: the warning names ~/.config host-writable and the pinned dirs" \
    grep -qi "writable on the host.*read-only: autostart" <<<"$(tr '\n' ' ' <<<"$dry")"
  SB_ENV=()
done
finish
