#!/usr/bin/env bash
# The overlay path of the sandbox with a real bwrap >= 0.9 (scripts/get-bwrap-overlay.sh; Debian
# 12's own is 0.8), run by the real blaude as uid 65534 with its own HOME and workspace. blaude
# finds that bwrap first on PATH, detects --tmp-overlay and mounts ~/.config, the package caches
# and the protected workspace dirs as write-discarding overlays. Each attack has controls: the
# same writes with --allow-protected-writes reach the host, and with the system's bwrap 0.8 the
# fallback (read-only dirs, host-writable ~/.config) behaves visibly differently.
. "$(dirname "$0")/lib.sh"

# The first fetch needs Debian's registry (make test's bwrap-overlay target does it): offline and
# outside CI a skip, in CI a failure.
NEW=$("$BLAUDE_SRC/scripts/get-bwrap-overlay.sh" 2>"$T_DIR/get.err") ||
  host_lacks "no bwrap with overlay support could be obtained: $(tr '\n' ' ' <"$T_DIR/get.err")"
NEWDIR=$(dirname "$NEW")
if ! as_nobody "$NEW" --unshare-user --ro-bind / / true 2>"$T_DIR/userns.err"; then
  host_lacks "bwrap cannot create a user namespace as uid 65534: $(cat "$T_DIR/userns.err")"
fi
mkdir -p "$T_DIR/ovl-probe"
if ! as_nobody "$NEW" --unshare-user --ro-bind / / --overlay-src "$T_DIR/ovl-probe" --tmp-overlay /mnt \
  true 2>"$T_DIR/ovl.err"; then
  host_lacks "the kernel refuses overlayfs in a user namespace (needs Linux 5.11+): $(cat "$T_DIR/ovl.err")"
fi
OLD=$(command -v bwrap || true)
FALLBACK=0  # the system's bwrap lacks overlays: the fallback controls can run
if [ -n "$OLD" ] && ! "$OLD" --overlay-src / --tmp-overlay / --version >/dev/null 2>&1; then FALLBACK=1; fi
log "overlay bwrap: $NEW ($("$NEW" --version)); fallback controls: $FALLBACK (${OLD:-no system bwrap})"

H="$T_DIR/home"
WS="$T_DIR/proj"  # under /tmp, so the workspace is also reachable through the host /tmp bind
NOBODY=65534

# Everything owned by the sandbox user, as a real user's files are (overlayfs in a user
# namespace cannot copy up files whose owner is not mapped).
fresh() {
  rm -rf "$H" "$WS"
  mkdir -p "$H/.claude" "$H/.config/git" "$H/.config/autostart" "$H/.npm/_cacache" "$H/.cache/uv"
  echo "[user]" >"$H/.config/git/config"
  echo "theme=dark" >"$H/.config/app.conf"
  echo "[Desktop Entry]" >"$H/.config/autostart/keep.desktop"
  echo "cached" >"$H/.npm/_cacache/index"
  mkdir -p "$WS/.git/hooks" "$WS/.vscode" "$WS/.husky" "$WS/packages/app/.git/hooks" "$WS/src"
  printf '[core]\n\thooksPath = .husky\n' >"$WS/.git/config"
  echo "ref: refs/heads/main" >"$WS/.git/HEAD"
  echo "[core]" >"$WS/packages/app/.git/config"
  printf '#!/bin/sh\nexit 0\n' >"$WS/.git/hooks/pre-push"
  echo '{"editor": 1}' >"$WS/.vscode/settings.json"
  echo "# project rc" >"$WS/.bashrc"
  echo "code" >"$WS/src/main.c"
  chown -R $NOBODY:$NOBODY "$H" "$WS"
}

# sb BWRAP_DIR [blaude options] -- SCRIPT: run SCRIPT with sh in blaude's sandbox, from the
# workspace, with BWRAP_DIR first on PATH (where blaude looks for bwrap).
sb() {
  local dir=$1 opts=()
  shift
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "$WS" && env -i HOME="$H" PATH="$dir:/usr/bin:/bin" TERM=dumb BLAUDE_OWN_OVERLAY="${OWN_OVERLAY:-}" \
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
    "$BLAUDE" "${opts[@]}" --exec sh -c "$1" </dev/null 2>"$T_DIR/sb.err")
}
absent() { [ ! -e "$1" ]; }
unchanged() { [ "$(cat "$1")" = "$2" ]; }
has() { grep -qx -- "$1" <<<"$2"; }

# Writes an agent could use to persist on the host, each followed by what the sandbox sees.
attack='
  echo evil >~/.config/autostart/evil.desktop
  echo "theme=evil" >>~/.config/app.conf
  rm -f ~/.config/autostart/keep.desktop
  echo poisoned >~/.npm/_cacache/evil
  echo poisoned >~/.cache/uv/evil
  echo evil >.git/hooks/pre-commit
  echo evil >>.git/hooks/pre-push
  echo "{}" >.vscode/tasks.json
  echo evil >packages/app/.git/hooks/post-checkout
  echo evil >.husky/pre-commit
  echo evil >"$WS_HOST/.git/hooks/post-merge"
  echo evil >>.git/config
  echo evil >>.bashrc
  echo evil >>~/.config/git/config
  echo kept >~/.claude/kept
  echo ok >src/ok.c
  for f in ~/.config/autostart/evil.desktop ~/.npm/_cacache/evil ~/.cache/uv/evil .git/hooks/pre-commit \
    .vscode/tasks.json packages/app/.git/hooks/post-checkout .husky/pre-commit "$WS_HOST/.git/hooks/post-merge"; do
    [ -s "$f" ] && echo "seen:${f##*/}"
  done
  tail -n1 ~/.config/app.conf | sed "s/^/conf:/"
  tail -n1 .git/hooks/pre-push | sed "s/^/hook:/"
  [ -e ~/.config/autostart/keep.desktop ] || echo "deleted:keep"
  true'
attack="WS_HOST='$WS'; $attack"

# --- the plan: the overlay path is chosen ---------------------------------------------------
fresh
plan=$(sb "$NEWDIR" --dry-run -- true)
check "dry-run: the overlay bwrap is the one blaude runs" grep -q "^$NEW \\\\\$" <<<"$plan"
check "dry-run: ~/.config is a write-discarding overlay" \
  grep -q -- "--overlay-src $H/.config --tmp-overlay $H/.config " <<<"$plan"
check "dry-run: the npm cache is a write-discarding overlay" \
  grep -q -- "--overlay-src $H/.npm --tmp-overlay $H/.npm " <<<"$plan"
# Protected dirs are read-only (blaude mounts them itself, by descriptor; the dry-run shows the
# equivalent bwrap options), not write-discarding overlays: see docs/PERFORMANCE.md.
check "dry-run: the project at its own path, /workspaces/proj a link to it" \
  grep -q -- "--symlink $WS /workspaces/proj" <<<"$plan"
check "dry-run: .git/hooks is read-only at its own path" \
  grep -q -- "--ro-bind $WS/.git/hooks $WS/.git/hooks" <<<"$plan"
check "dry-run: ~/.config/git stays read-only on top" \
  grep -q -- "--ro-bind $H/.config/git $H/.config/git " <<<"$plan"
check "dry-run: no host-writable warning with overlays" not grep -q "stay writable on the host" "$T_DIR/sb.err"
check "dry-run left no feature cache behind" absent "$H/.cache/blaude"
if [ $FALLBACK = 1 ]; then
  plan_old=$(sb /usr/bin --dry-run -- true)
  check "control: with bwrap 0.8 the plan has no overlay" not grep -q -- "--overlay-src" <<<"$plan_old"
fi

# --- attacks through the overlays -------------------------------------------------------------
fresh
out=$(sb "$NEWDIR" -- "$attack") || fail "blaude --exec exited $?: $(cat "$T_DIR/sb.err")"
check "the session ran (its workspace write persists)" test -e "$WS/src/ok.c"
check "the feature cache names this bwrap and overlay=1" \
  grep -qx "overlay=1" "$H/.cache/blaude/bwrap-features-$NOBODY"
check "the feature cache is keyed by this bwrap's identity" \
  grep -q "^$NEW dev=" "$H/.cache/blaude/bwrap-features-$NOBODY"
SEEN_ALL="evil.desktop evil evil"  # the protected workspace dirs refuse the writes (read-only)
seen() { grep '^seen:' <<<"$1" | sed 's/^seen://' | tr '\n' ' ' | sed 's/ $//'; }
check_eq "inside, every write through an overlay is visible" "$SEEN_ALL" "$(seen "$out")"
check "inside: the ~/.config edit is visible" has "conf:theme=evil" "$out"
check "inside: the hook edit was refused" not has "hook:evil" "$out"
check "inside: the ~/.config deletion is visible" has "deleted:keep" "$out"
check "~/.config: a new file does not reach the host" absent "$H/.config/autostart/evil.desktop"
check "~/.config: an edit does not reach the host" unchanged "$H/.config/app.conf" "theme=dark"
check "~/.config: a deletion does not reach the host" test -e "$H/.config/autostart/keep.desktop"
check "~/.npm: cache poisoning does not reach the host" absent "$H/.npm/_cacache/evil"
check "~/.cache/uv: cache poisoning does not reach the host" absent "$H/.cache/uv/evil"
check ".git/hooks: a new hook does not reach the host" absent "$WS/.git/hooks/pre-commit"
check ".git/hooks: an edited hook is unchanged on the host" unchanged "$WS/.git/hooks/pre-push" "$(printf '#!/bin/sh\nexit 0')"
check ".git/hooks via the host /tmp path: discarded too" absent "$WS/.git/hooks/post-merge"
check ".vscode: tasks.json does not reach the host" absent "$WS/.vscode/tasks.json"
check "a nested repo's hooks: discarded" absent "$WS/packages/app/.git/hooks/post-checkout"
check "the core.hooksPath dir: discarded" absent "$WS/.husky/pre-commit"
check ".git/config stays read-only" unchanged "$WS/.git/config" "$(printf '[core]\n\thooksPath = .husky')"
check ".bashrc stays read-only" unchanged "$WS/.bashrc" "# project rc"
check "~/.config/git stays read-only" unchanged "$H/.config/git/config" "[user]"
check "~/.claude writes persist" test -e "$H/.claude/kept"
check "no host-writable warning with overlays" not grep -q "stay writable on the host" "$T_DIR/sb.err"

# --- control: the same writes with --allow-protected-writes reach the host ---------------------
fresh
out=$(sb "$NEWDIR" --allow-protected-writes -- "$attack") || fail "control run exited $?: $(cat "$T_DIR/sb.err")"
check "control: ~/.config new file reaches the host" test -e "$H/.config/autostart/evil.desktop"
check "control: ~/.config edit reaches the host" grep -q "theme=evil" "$H/.config/app.conf"
check "control: ~/.config deletion reaches the host" absent "$H/.config/autostart/keep.desktop"
check "control: ~/.npm write reaches the host" test -e "$H/.npm/_cacache/evil"
check "control: ~/.cache/uv write reaches the host" test -e "$H/.cache/uv/evil"
check "control: a new hook reaches the host" test -e "$WS/.git/hooks/pre-commit"
check "control: a hook edit reaches the host" grep -q evil "$WS/.git/hooks/pre-push"
check "control: a hook via the /tmp path reaches the host" test -e "$WS/.git/hooks/post-merge"
check "control: .vscode write reaches the host" test -e "$WS/.vscode/tasks.json"
check "control: nested hooks write reaches the host" test -e "$WS/packages/app/.git/hooks/post-checkout"
check "control: hooksPath write reaches the host" test -e "$WS/.husky/pre-commit"
check "control: .git/config edit reaches the host" grep -q evil "$WS/.git/config"
check "control: .bashrc edit reaches the host" grep -q evil "$WS/.bashrc"
check "control: ~/.config/git edit reaches the host" grep -q evil "$H/.config/git/config"

# --- bwrap 0.8, where the system's bwrap has no overlays: blaude makes them itself -----------
#. Then the last resort, as where the
# kernel refuses blaude an overlay too (BLAUDE_OWN_OVERLAY=off): the control that shows why.
if [ $FALLBACK = 1 ]; then
  fresh
  out=$(sb /usr/bin -- "$attack") || fail "bwrap 0.8 run exited $?: $(cat "$T_DIR/sb.err")"
  check "bwrap 0.8: the feature cache now says overlay=0 (re-probed for the other binary)" \
    grep -qx "overlay=0" "$H/.cache/blaude/bwrap-features-$NOBODY"
  check_eq "bwrap 0.8: inside, every write through blaude's own overlays is visible" "$SEEN_ALL" "$(seen "$out")"
  check "bwrap 0.8: ~/.config writes do not reach the host" absent "$H/.config/autostart/evil.desktop"
  check "bwrap 0.8: ~/.npm writes do not reach the host" absent "$H/.npm/_cacache/evil"
  check "bwrap 0.8: no host-writable warning" not grep -q "^  $H/.config\$" "$T_DIR/sb.err"
  fresh
  out=$(OWN_OVERLAY=off sb /usr/bin -- "$attack") || fail "fallback run exited $?: $(cat "$T_DIR/sb.err")"
  check "fallback: ~/.config writes reach the host (why overlays matter)" \
    grep -q "theme=evil" "$H/.config/app.conf"
  check "fallback: but not into what runs at login (autostart is read-only)" \
    absent "$H/.config/autostart/evil.desktop"
  check "fallback: ~/.npm writes reach the host" test -e "$H/.npm/_cacache/evil"
  check "fallback: the user is told ~/.config stays host-writable" grep -q "^  $H/.config\$" "$T_DIR/sb.err"
  check_eq "fallback: only the bound ~/.config and caches take writes; protected dirs are read-only inside" \
    "evil evil" "$(seen "$out")"
  check "fallback: no new hook on the host" absent "$WS/.git/hooks/pre-commit"
  check "fallback: no .vscode/tasks.json on the host" absent "$WS/.vscode/tasks.json"
  check "fallback: the hook edit is not visible inside" not has "hook:evil" "$out"
else
  log "the system bwrap has overlays too: the 0.8 fallback controls do not apply here"
fi

# --- a dotfile manager's symlinked ~/.config/git (stow): bwrap refused to mount on it, so --------
# blaude did not start at all. Now the link is left alone; the overlay discards its replacement.
link_ws() {
  fresh
  rm -rf "$H/.config/git"
  mkdir -p "$H/dotfiles/git"
  echo "[user]" >"$H/dotfiles/git/config"
  ln -s ../dotfiles/git "$H/.config/git"
  chown -R $NOBODY:$NOBODY "$H/dotfiles"
  chown -h $NOBODY:$NOBODY "$H/.config/git"
}
replace_link='rm ~/.config/git && mkdir ~/.config/git && echo "[core] fsmonitor = evil" >~/.config/git/config &&
  echo replaced'
link_ws
out=$(sb "$NEWDIR" -- "$replace_link") || fail "symlinked ~/.config/git: blaude exited $?: $(cat "$T_DIR/sb.err")"
check "symlinked ~/.config/git: the session starts and sees its own replacement" has replaced "$out"
check "symlinked ~/.config/git: the link survives on the host" test -L "$H/.config/git"
check "symlinked ~/.config/git: its target is unchanged" unchanged "$H/dotfiles/git/config" "[user]"
check "symlinked ~/.config/git: the note says it is not mounted" grep -q "config/git is a symlink" "$T_DIR/sb.err"
if [ $FALLBACK = 1 ]; then
  link_ws
  out=$(OWN_OVERLAY=off sb /usr/bin -- "$replace_link") || fail "fallback, symlinked ~/.config/git: exited $?: $(cat "$T_DIR/sb.err")"
  check "fallback control: the session starts with a symlinked ~/.config/git" has replaced "$out"
  check "fallback control: without overlays the link is replaced on the host" not test -L "$H/.config/git"
  check "fallback control: and the user was warned" grep -q "config/git is a symlink in the host-writable" "$T_DIR/sb.err"
fi

finish
