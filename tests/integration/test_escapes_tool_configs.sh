#!/usr/bin/env bash
# Workspace files a host tool runs commands from on its own, beyond the seed's list:
# a dev container's initializeCommand (.devcontainer/, .devcontainer.json) runs on the host when
# the folder is reopened in the container; mise runs a config's [hooks]/[env] _.source when the
# shell enters the dir and trusts it by path, so an edit to a trusted .mise.toml runs at the next
# cd; editors' project settings (.zed/, .helix/) name the commands they start. Real blaude, bwrap
# 0.8 and the overlay bwrap, as uid 65534: each is read-only inside, at the root and two levels
# down. Control: --allow-protected-writes lets the same writes land (so the test sees a leak).
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
sandbox_dirs
FILES=(.devcontainer/devcontainer.json .devcontainer.json .mise.toml .mise/config.toml .zed/settings.json
       .helix/languages.toml a/b/.mise.toml a/b/.devcontainer/devcontainer.json)
fresh() {
  rm -rf "$WS"
  for f in "${FILES[@]}"; do mkdir -p "$WS/$(dirname "$f")"; echo mine >"$WS/$f"; done
  chown -R $NOBODY:$NOBODY "$WS"
}
attack='for f in "$@"; do echo evil >>"$f" 2>/dev/null; done
  echo "{\"initializeCommand\": \"evil\"}" >.devcontainer/new.json 2>/dev/null
  mv .mise.toml .mise.old 2>/dev/null; echo "[hooks]" >.mise.toml 2>/dev/null; true'
for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  fresh
  sb_nobody "$bw" -- "$attack" "${FILES[@]}" || true
  for f in "${FILES[@]}"; do check_eq "$label: $f unchanged on the host" mine "$(cat "$WS/$f")"; done
  check "$label: nothing new in .devcontainer" test ! -e "$WS/.devcontainer/new.json"
  fresh
  sb_nobody "$bw" --allow-protected-writes -- "$attack" "${FILES[@]}" || true
  check "$label control: without the protection the writes land" grep -q evil "$WS/.devcontainer/devcontainer.json"
  check "$label control: and .mise.toml is replaced" grep -q hooks "$WS/.mise.toml"
done
finish
