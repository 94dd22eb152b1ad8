#!/usr/bin/env bash
# ~/.config entries of another owner or group under the write-discarding overlay. The sandbox's user namespace maps only the user's own uid and gid, and the kernel's
# overlayfs refuses to copy up a lower entry whose owner or group has no mapping there
# (fs/overlayfs/copy_up.c: EOVERFLOW). So inside, reads and listings work, but a write to such
# a file, a new entry in such a dir, or a write below it (its parents are copied up first)
# fails with "Value too large for defined data type". blaude now finds them at start, binds them
# read-only on the overlay (EROFS, the error programs explain) and says once per list which they
# are and the chown that makes them write-discarding like the rest. Real blaude as uid 65534,
# with the overlay bwrap and with bwrap 0.8 (blaude's own overlay). Control:
# BLAUDE_CONFIG_UNMAPPED=off, the overlay alone as before: the EOVERFLOW.
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs

OTHER_GID=100  # a group uid 65534 is not in (setpriv --clear-groups)
ODD=$'odd\n\e[31mname'  # a name that must not reach the terminal as it is

fresh() {
  rm -rf "$H" "$WS"
  mkdir -p "$H/.claude" "$H/.config/grp/mine" "$H/.config/rootdir" "$WS"
  echo "setting=1" >"$H/.config/grp/settings"
  echo "mine" >"$H/.config/grp/mine/f"
  echo "root" >"$H/.config/rootfile"
  echo "root" >"$H/.config/rootopen"
  echo "user" >"$H/.config/rootdir/userfile"
  echo "own" >"$H/.config/own.conf"
  echo "odd" >"$H/.config/$ODD"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
  chgrp $OTHER_GID "$H/.config/grp" "$H/.config/grp/settings" "$H/.config/$ODD"  # yours, another group
  chown root:root "$H/.config/rootfile" "$H/.config/rootdir" "$H/.config/rootopen"  # sudo's leftovers
  chmod 666 "$H/.config/rootopen"
}

# What the session does in ~/.config: each write's error (or "ok") and what it reads back.
session='
  cd ~/.config
  w() { out=$(sh -c "$1" 2>&1) && echo "$2: ok" || echo "$2: ${out##*: }"; }
  w "echo 2 >>grp/settings" edit-other-group-file
  w "echo n >grp/new" create-in-other-group-dir
  w "echo n >grp/mine/new" create-below-other-group-dir
  w "echo u >>rootdir/userfile" edit-own-file-in-root-dir
  w "echo o >>own.conf" edit-own-file
  w "echo n >brand-new" create-at-top
  w "echo x >>rootopen" edit-root-file-others-may-write
  w "echo x >>rootfile" edit-root-file-only-root-may-write
  w "rm -f rootfile" remove-root-file
  echo "read: $(cat grp/settings) $(cat rootdir/userfile)"
  echo "own: $(tail -n1 own.conf)"'

host_unchanged() {
  [ "$(cat "$H/.config/grp/settings")" = "setting=1" ] && [ ! -e "$H/.config/grp/new" ] &&
    [ ! -e "$H/.config/grp/mine/new" ] && [ "$(cat "$H/.config/rootdir/userfile")" = user ] &&
    [ "$(cat "$H/.config/own.conf")" = own ] && [ ! -e "$H/.config/brand-new" ] &&
    [ "$(cat "$H/.config/rootopen")" = root ] && [ "$(cat "$H/.config/rootfile")" = root ]
}
has() { grep -qF -- "$1" <<<"$2"; }
marker="$H/.cache/blaude/config-unmapped-$NOBODY"

for bw in "$NEW" /usr/bin; do
  v=$("$bw/bwrap" --version | awk '{print $2}')
  label="bwrap $v"
  if [ "$bw" = /usr/bin ] && "$bw/bwrap" --overlay-src / --tmp-overlay / --version >/dev/null 2>&1; then
    log "the system bwrap has overlays too: the own-overlay path is not reached here"
    continue
  fi

  # --- control: the overlay alone (as before this fix): EOVERFLOW -------------------------------
  fresh
  SB_ENV=(BLAUDE_CONFIG_UNMAPPED=off)
  out=$(sb_nobody "$bw" -- "$session") || fail "$label control: blaude exited $?: $(cat "$T_DIR/sb.err")"
  SB_ENV=()
  log "$label control:"$'\n'"$out"
  check "$label control: a write to a file of another group fails with EOVERFLOW" \
    has "edit-other-group-file: Value too large for defined data type" "$out"
  check "$label control: a new file in a dir of another group fails with EOVERFLOW" \
    has "create-in-other-group-dir: Value too large for defined data type" "$out"
  check "$label control: a write below such a dir fails with EOVERFLOW (its parents are copied up)" \
    has "create-below-other-group-dir: Value too large for defined data type" "$out"
  check "$label control: so does your own file in a root-owned dir" \
    has "edit-own-file-in-root-dir: Value too large for defined data type" "$out"
  check "$label control: so does a root-owned file others may write" \
    has "edit-root-file-others-may-write: Value too large for defined data type" "$out"
  check "$label control: a root-owned file only root may write: EACCES, as on the host" \
    has "edit-root-file-only-root-may-write: Permission denied" "$out"
  check "$label control: removing it works (discarded)" has "remove-root-file: ok" "$out"
  check "$label control: reads work" has "read: setting=1 user" "$out"
  check "$label control: your own files are write-discarding" has "edit-own-file: ok" "$out"
  check "$label control: nothing reached the host" host_unchanged
  check "$label control: and no word about it at start" not grep -q "another user or group" "$T_DIR/sb.err"

  # --- dry-run: the plan binds them read-only, says so, writes nothing --------------------------
  fresh
  dry=$(sb_nobody "$bw" --dry-run -- true) || fail "$label dry-run exited $?: $(cat "$T_DIR/sb.err")"
  check "$label dry-run: the other group's dir is read-only on the overlay" \
    grep -q -- "--ro-bind $H/.config/grp $H/.config/grp " <<<"$dry"
  check "$label dry-run: the root-owned dir too" grep -q -- "--ro-bind $H/.config/rootdir $H/.config/rootdir " <<<"$dry"
  check "$label dry-run: not a root-owned file only root may write (EACCES anyway; rm must work)" \
    not grep -q -- "--ro-bind $H/.config/rootfile" <<<"$dry"
  check "$label dry-run: but a root-owned file others may write" grep -q -- "--ro-bind $H/.config/rootopen $H/.config/rootopen " <<<"$dry"
  check "$label dry-run: your own files are not" not grep -q -- "--ro-bind $H/.config/own.conf" <<<"$dry"
  check "$label dry-run: nothing below a listed dir is bound" not grep -q -- "--ro-bind $H/.config/grp/" <<<"$dry"
  check "$label dry-run: the warning names the cause and the fix" \
    grep -q "sudo chown -R $NOBODY:$NOBODY .*$H/.config/grp" "$T_DIR/sb.err"
  check "$label dry-run: the odd name is shown escaped, on one line" \
    grep -qF "$H/.config/odd\\n\\e[31mname (file, owner $NOBODY, group $OTHER_GID)" "$T_DIR/sb.err"
  check "$label dry-run: no raw escape reaches the terminal" not grep -q $'\e' "$T_DIR/sb.err"
  check "$label dry-run: changes nothing (no marker)" test ! -e "$marker"

  # --- the fix: read-only, explained once --------------------------------------------------------
  out=$(sb_nobody "$bw" -- "$session") || fail "$label: blaude exited $?: $(cat "$T_DIR/sb.err")"
  log "$label:"$'\n'"$out"
  check "$label: a write to a file of another group is refused read-only, not EOVERFLOW" \
    has "edit-other-group-file: Read-only file system" "$out"
  check "$label: a new file in a dir of another group: read-only" has "create-in-other-group-dir: Read-only file system" "$out"
  check "$label: below such a dir: read-only" has "create-below-other-group-dir: Read-only file system" "$out"
  check "$label: your own file in a root-owned dir: read-only" has "edit-own-file-in-root-dir: Read-only file system" "$out"
  check "$label: a root-owned file others may write: read-only" \
    has "edit-root-file-others-may-write: Read-only file system" "$out"
  check "$label: a root-owned file only root may write: EACCES, as on the host" \
    has "edit-root-file-only-root-may-write: Permission denied" "$out"
  check "$label: removing it still works (discarded)" has "remove-root-file: ok" "$out"
  check "$label: no EOVERFLOW anywhere" not has "Value too large" "$out"
  check "$label: reads work" has "read: setting=1 user" "$out"
  check "$label: your own files stay write-discarding (the write works inside)" has "own: o" "$out"
  check "$label: a new file at the top works inside" has "create-at-top: ok" "$out"
  check "$label: nothing reached the host" host_unchanged
  check "$label: the warning at start says why and how to fix it" \
    grep -q "cannot copy them up.*EOVERFLOW" "$T_DIR/sb.err"
  check "$label: the marker remembers this list" test -s "$marker"
  out=$(sb_nobody "$bw" -- "$session") || fail "$label: second run exited $?: $(cat "$T_DIR/sb.err")"
  check "$label: said once: the next start is silent about it" not grep -q "another user or group" "$T_DIR/sb.err"
  check "$label: and still read-only, not EOVERFLOW" has "edit-other-group-file: Read-only file system" "$out"
  chgrp $NOBODY "$H/.config/own.conf"
  chgrp $OTHER_GID "$H/.config/own.conf"
  sb_nobody "$bw" -- true >/dev/null || fail "$label: third run exited $?"
  check "$label: a changed list is said again" grep -q "own.conf (file, owner $NOBODY, group $OTHER_GID)" "$T_DIR/sb.err"

  # --- the fix the warning gives works -----------------------------------------------------------
  fresh
  sb_nobody "$bw" -- true >/dev/null 2>&1 || true
  fixline=$(grep -A1 "make them yours:" "$T_DIR/sb.err" | tail -n1 | sed 's/^ *sudo //')
  (cd / && eval "$fixline") || fail "$label: the printed fix failed: $fixline"
  out=$(sb_nobody "$bw" -- "$session") || fail "$label after the fix: blaude exited $?: $(cat "$T_DIR/sb.err")"
  check "$label after the printed chown: every write works inside (but the file only root may write: EACCES)" \
    test "$(grep -c ': ok$' <<<"$out")" = 8
  check "$label after the printed chown: and is discarded" host_unchanged
  check "$label after the printed chown: no warning" not grep -q "another user or group" "$T_DIR/sb.err"

  # --- a -m over a listed dir decides (no mount-order refusal) ------------------------------------
  fresh
  out=$(sb_nobody "$bw" -m "$H/.config/grp:rw" -- 'echo n >~/.config/grp/new 2>&1; echo rc=$?') ||
    fail "$label -m: blaude exited $?: $(cat "$T_DIR/sb.err")"
  check "$label: -m over a listed dir starts (the read-only bind gives way)" not grep -q "would hide a mount" "$T_DIR/sb.err"
  # (bwrap 0.8: blaude's own overlay is mounted before bwrap resolves the -m source, so a -m
  # inside ~/.config binds the overlay's view: writes there are discarded (entries of your own,
  # as before this change) or fail with EOVERFLOW (these). Only bwrap 0.9+ writes it through.)
  if [ "$bw" = "$NEW" ]; then
    check "$label: the session wrote into the -m dir" grep -q "rc=0" <<<"$out"
    check "$label: and the -m dir is written through, as asked" test -e "$H/.config/grp/new"
  fi
done

finish
