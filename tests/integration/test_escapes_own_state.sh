#!/usr/bin/env bash
# What blaude reads at start to decide protections, or writes by path, must never be
# writable from inside, in any mode. Its config dir has test_escapes_config.sh; this is its
# cache (~/.cache/blaude: bwrap's feature cache, whose "overlay=0" pushes the next session to the
# fallback layout) and its log dir ($XDG_STATE_HOME/blaude: a link planted there redirects the
# log's appends, here into ~/.bashrc). The sandbox reaches both through -m DIR:rw of a parent.
# Real blaude, bwrap 0.8 and the overlay bwrap, as uid 65534, protect helper and bwrap-option
# form. Controls: the same -m mount writes a sibling dir through (so the mount is writable and
# the test would see a leak); and a cache entry planted from outside is read (its fail-closed
# answer, "no fd binds", is honoured) while its "no overlays" is asked again (defence in depth).
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs
FEAT="$H/.cache/blaude/bwrap-features-$NOBODY"

fresh() {
  rm -rf "$H" "$WS"
  mkdir -p "$H/.claude" "$H/.config" "$H/.cache/other" "$H/.local/state/other" "$WS"
  echo "# mine" >"$H/.bashrc"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
}

attack='
  c=$HOME/.cache; s=$HOME/.local/state
  id=$(head -n1 $c/blaude/bwrap-features-'$NOBODY' 2>/dev/null)
  printf "%s\noverlay=0\nfd_binds=1\n" "$id" >$c/blaude/bwrap-features-'$NOBODY' 2>/dev/null && echo "cache planted"
  mv $c/blaude $c/blaude.old 2>/dev/null && mkdir $c/blaude 2>/dev/null && echo "cache dir swapped"
  ln -sf $HOME/.bashrc $s/blaude/blaude.log 2>/dev/null && echo "log link planted"
  echo x >$c/other/w && echo x >$s/other/w && echo "siblings written"'

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  for pm in helper bwrap-options; do
    fresh
    SB_ENV=(BLAUDE_PROTECT_MOUNTS=$pm)
    sb_nobody "$bw" -- true || true  # the first session writes the cache and the log
    before=$(cat "$FEAT" 2>/dev/null)
    out=$(sb_nobody "$bw" -m "$H/.cache:rw" -m "$H/.local/state:rw" -- "$attack" || true)
    l="$label ($pm)"
    check "$l control: the -m mounts are writable from inside" grep -q "siblings written" <<<"$out"
    check "$l: the feature cache cannot be rewritten" not grep -q "cache planted" <<<"$out"
    check "$l: the cache dir cannot be swapped" not grep -q "cache dir swapped" <<<"$out"
    check_eq "$l: the cache entry is unchanged on the host" "$before" "$(cat "$FEAT" 2>/dev/null)"
    check "$l: no link can be planted in the log dir" not grep -q "log link planted" <<<"$out"
    check "$l: the log is still a file" test ! -L "$H/.local/state/blaude/blaude.log"
    sb_nobody "$bw" -- true || true
    check_eq "$l: ~/.bashrc unchanged after the next session" "# mine" "$(cat "$H/.bashrc")"
  done
  SB_ENV=()
done

# The very first session, when neither dir exists yet: blaude makes them (its cache and log go
# there before the sandbox starts) and they are read-only inside all the same.
fresh
out=$(sb_nobody /usr/bin -m "$H/.cache:rw" -m "$H/.local/state:rw" -- "$attack" || true)
check "first session: it starts (control: the -m mounts are writable)" grep -q "siblings written" <<<"$out"
check "first session: the cache and log dirs are read-only all the same" \
  not grep -q "cache planted\|cache dir swapped\|log link planted" <<<"$out"

# Defence in depth, overlay bwrap: an entry planted from outside (as if a guard had failed).
fresh
sb_nobody "$NEW" -- true || true
id=$(head -n1 "$FEAT")
check "the overlay bwrap's entry says overlay=1" grep -qx "overlay=1" "$FEAT"
check "control: with overlays the plan makes ~/.config write-discarding" \
  grep -q -- "--tmp-overlay $H/.config" <<<"$(sb_nobody "$NEW" --dry-run -- true 2>&1)"
printf '%s\noverlay=1\nfd_binds=0\n' "$id" >"$FEAT"
SB_ENV=(BLAUDE_PROTECT_MOUNTS=bwrap-options)
dry=$(sb_nobody "$NEW" --dry-run -- true 2>&1; cat "$T_DIR/sb.err")
SB_ENV=()
check "control: a planted entry is read (its fail-closed 'no fd binds' is honoured: a refusal)" \
  grep -q "cannot bind from a descriptor" <<<"$dry"
printf '%s\noverlay=0\nfd_binds=1\n' "$id" >"$FEAT"
dry=$(sb_nobody "$NEW" --dry-run -- true 2>&1; cat "$T_DIR/sb.err")
check "a planted 'no overlays' is asked again: the plan keeps bwrap's overlays" grep -q -- "--tmp-overlay $H/.config" <<<"$dry"
sb_nobody "$NEW" -- true || true
check "and the entry is rewritten with the true answer" grep -qx "overlay=1" "$FEAT"
finish
