#!/usr/bin/env bash
# --dry-run prints the exact bwrap command (shell-quoted, runnable) and changes nothing on the
# host; a real run is the control that does create blaude's state (feature cache, ~/.claude).
. "$(dirname "$0")/lib.sh"

need_sandbox

H="$T_DIR/home"
WS="$T_DIR/my proj's dir"   # quoting matters
mkdir -p "$H" "$WS/.git/hooks"
echo "[core]" >"$WS/.git/config"
chown -R 65534:65534 "$H" "$WS"
# drv [blaude options]: the real blaude as uid 65534 from the workspace, clean environment.
drv() { (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" "$@" </dev/null); }

before=$(find "$H" "$WS" -printf '%p %s %T@\n' | sort)
out=$(drv --dry-run --exec printf '%s|' "it's" 'a b' 2>"$T_DIR/err")
after=$(find "$H" "$WS" -printf '%p %s %T@\n' | sort)
check_eq "--dry-run changes nothing in HOME or the workspace" "$before" "$after"
check "--dry-run prints the bwrap command" grep -q '^/usr/bin/bwrap \\$' <<<"$out"
check "one option group per line" grep -q "^  --ro-bind /usr /usr \\\\$" <<<"$out"
check "the protected config is in the plan, at the project's own path" grep -q "^  --ro-bind .*s dir/.git/config' '.*s dir/.git/config' \\\\$" <<<"$out"
check "the project's own path is the working directory, /workspaces/<dir> a link to it" \
  grep -q "^  --symlink .*s dir' /workspaces/my_proj_s_dir \\\\$" <<<"$out"
seed_out=$(drv --dry-run --workspace-path=seed --exec true 2>/dev/null)
check "--workspace-path=seed: the protected config at /workspaces/<dir>" grep -q "^  --ro-bind .*s dir/.git/config' /workspaces/my_proj_s_dir/.git/config \\\\$" <<<"$seed_out"
check "--workspace-path=seed: the working directory there" grep -q "^  --chdir /workspaces/my_proj_s_dir \\\\$" <<<"$seed_out"
# The command starts through blaude's exec shim (exit 127/126 for a missing/unrunnable CMD).
check "the command comes last" grep -q "^  -- $SHIM printf '%s|' 'it'\\\\''s' 'a b'$" <<<"$out"

# Every protected path is listed, each with the form it took (protect_form.hpp): the protect
# helper where it runs, bwrap from held descriptors where it cannot (forced here), a /tmp socket
# dir's tmpfs by path and re-checked there. A repository whose name carries a line break and a
# command is listed escaped: the comment block stays comments (the run below would create PWNED).
nl_repo="$WS/x"$'\n'"touch '$T_DIR/PWNED' #"
mkdir -p "$nl_repo/.git/hooks" && echo "[core]" >"$nl_repo/.git/config" && chown -R 65534:65534 "$nl_repo"
out=$(drv --dry-run --exec printf '%s|' "it's" 'a b' 2>"$T_DIR/err")
check "the protected paths are listed with their form" \
  grep -Eq '^#   /.*/\.git/hooks +read-only +(helper|held descriptor) +hooks of ' <<<"$out"
check "a protected name with a line break is listed escaped" grep -qF '/x\ntouch ' <<<"$out"
check "the list says what each form means" grep -Eq '^#   (helper|held descriptor): ' <<<"$out"
# (tmux's socket dir for uid 65534 is shadowed whether or not it exists: made first when missing.)
held=$(cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin BLAUDE_PROTECT_MOUNTS=bwrap-options \
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --dry-run --exec true 2>>"$T_DIR/err" </dev/null)
check "the bwrap-option form: held descriptors" \
  grep -Eq '^#   /.*/\.git/hooks +read-only +held descriptor ' <<<"$held"
check "the bwrap-option form: a /tmp socket dir by path, re-checked" \
  grep -Eq '^#   /tmp/tmux-65534 +hidden \(empty tmpfs\) +by path, re-checked ' <<<"$held"
check "control: with the helper the same dir is the helper's" \
  grep -Eq '^#   /tmp/tmux-65534 +hidden \(empty tmpfs\) +helper ' <<<"$(drv --dry-run --exec true 2>/dev/null)"

# The printed command runs as printed (and its quoting survives a shell).
ran=$(cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "$out" 2>&1 </dev/null)
check_eq "the printed command runs in a shell" "it's|a b|" "$ran"
check "the printed list of protected paths ran nothing" not test -e "$T_DIR/PWNED"

# The same with claude as the command (a stand-in on PATH) and a new project policy: --dry-run
# writes none of claude's onboarding files and neither asks about the policy (stdin and the
# terminal are absent: asking would fail) nor records trust.
mkdir -p "$T_DIR/bin"
printf '#!/bin/sh\necho "fake-claude $*"\n' >"$T_DIR/bin/claude"
chmod 755 "$T_DIR/bin" "$T_DIR/bin/claude"
echo 'allow-read ~/.config/extra' >"$WS/.blaude"
chown 65534:65534 "$WS/.blaude"
cl() { (cd "$WS" && env -i HOME="$H" PATH="$T_DIR/bin:/usr/bin:/bin" \
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" "$@" </dev/null); }
before=$(find "$H" "$WS" -printf '%p %s %T@\n' | sort)
out=$(cl --dry-run -p hi 2>"$T_DIR/err") && rc=0 || rc=$?
after=$(find "$H" "$WS" -printf '%p %s %T@\n' | sort)
check_eq "--dry-run of claude with a new policy: exit 0 (nothing asked)" 0 "$rc"
check "--dry-run of claude: the plan runs claude with the skip flag" \
  grep -q "^  -- $SHIM claude --dangerously-skip-permissions -p hi$" <<<"$out"
check_eq "--dry-run of claude with a new policy changes nothing in HOME or the workspace" "$before" "$after"

# Control: a real run does leave state (so the no-change checks above could fail).
out=$(cl --trust-policy -p hi 2>>"$T_DIR/err")
check_eq "control: the real run started claude" "fake-claude --dangerously-skip-permissions -p hi" "$out"
check "control: a real run of claude writes ~/.claude.json" test -f "$H/.claude.json"
rm -rf "$H/.claude" "$H/.cache" "$WS/.blaude"
drv --exec true
check "control: a real run caches bwrap's features" test -f "$H/.cache/blaude/bwrap-features-65534"
check "control: a real run creates ~/.claude" test -d "$H/.claude"
check_eq "the cache dir is private" "700" "$(stat -c %a "$H/.cache/blaude")"

# --debug prints the same command to stderr before starting.
drv --debug --exec true 2>"$T_DIR/dbg" >/dev/null
check "--debug prints the command to stderr" grep -q "^  --cap-drop ALL \\\\$" "$T_DIR/dbg"

# Bad input: a clear error and nothing started.
err=$(drv -m "$T_DIR/nope" --exec true 2>&1) && rc=0 || rc=$?
check_eq "missing -m path: exit 1" 1 "$rc"
check "missing -m path: says so" grep -q "blaude: mount path does not exist" <<<"$err"
err=$(drv -m "$H" --exec true 2>&1) && rc=0 || rc=$?
check "-m \$HOME is refused" grep -q "refusing to mount your home directory" <<<"$err"
err=$(drv -m / --exec true 2>&1) && rc=0 || rc=$?
check "-m / (a parent of \$HOME) is refused" grep -q "refusing to mount your home directory" <<<"$err"
ln -s "$T_DIR/gone" "$T_DIR/broken"
err=$(drv -m "$T_DIR/broken" --exec true 2>&1) && rc=0 || rc=$?
check "-m of a broken link is refused" grep -q "broken symlink" <<<"$err"

finish
