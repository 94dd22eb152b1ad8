#!/usr/bin/env bash
# Command-line items through the real blaude, sandboxed with the real bwrap as uid
# 65534 and with --no-sandbox: `--` is not passed on; --exec CMD exits 127 (not found) and 126
# (cannot run) the same way in both modes; did-you-mean for misspelt blaude options (never for
# claude's); -m '~/x' and --mount=~/x expand ~.
. "$(dirname "$0")/lib.sh"

need_sandbox
NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/proj"
BIN="$T_DIR/bin"
mkdir -p "$H/data" "$WS/sub" "$BIN"
echo DATA >"$H/data/f"
printf '#!/bin/sh\necho not-executable\n' >"$WS/noexec.sh"
chmod 644 "$WS/noexec.sh"
# The stub writes into the workspace (read-write in the sandbox; the environment is filtered).
STUB_LOG="$WS/argv"
cat >"$BIN/claude" <<STUB
#!/bin/sh
for a in "\$@"; do printf '%s\\n' "\$a"; done >argv  # the cwd: the workspace in both modes
STUB
chmod 755 "$BIN/claude"
touch "$STUB_LOG"
chown -R $NOBODY:$NOBODY "$H" "$WS" "$BIN"
# nob ARGS...: the real blaude as uid 65534 in the workspace; output in $T_DIR/out, code in $rc.
nob() {
  : >"$STUB_LOG"
  set +e
  (cd "$WS" && env -i HOME="$H" PATH="$BIN:/usr/bin:/bin" \
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$BLAUDE" "$@" </dev/null >"$T_DIR/out" 2>&1)
  rc=$?
  set -e
}
argv() { paste -sd'|' "$STUB_LOG"; }
SKIP=--dangerously-skip-permissions

# --- `--`: the rest reaches claude, the `--` itself does not ----------------------------------
for mode in --no-sandbox --clear-tmp; do
  nob $mode -- --debug
  check_eq "$mode: blaude -- --debug gives claude --debug (a flag, not a prompt)" "$SKIP|--debug" "$(argv)"
  nob $mode -p -- --git -- x
  check_eq "$mode: after --, blaude's names and a second -- are claude's" "$SKIP|-p|--git|--|x" "$(argv)"
done

# --- --exec: 127 not found, 126 cannot run; the same with and without the sandbox -------------
for mode in --no-sandbox --clear-tmp; do
  nob $mode --exec no-such-command-xyz arg
  check_eq "$mode: missing CMD exits 127" 127 "$rc"
  check "$mode: ... saying so" grep -q '^blaude: no-such-command-xyz: command not found' "$T_DIR/out"
  nob $mode --exec ./noexec.sh
  check_eq "$mode: a CMD without the x bit exits 126" 126 "$rc"
  check "$mode: ... saying so" grep -q '^blaude: ./noexec.sh: Permission denied' "$T_DIR/out"
  nob $mode --exec ./sub
  check_eq "$mode: a directory as CMD exits 126" 126 "$rc"
  nob $mode --exec "$WS/missing/tool"
  check_eq "$mode: a missing absolute CMD exits 127" 127 "$rc"
  nob $mode --exec sh -c 'exit 1'
  check_eq "$mode: control: CMD's own exit 1 stays 1" 1 "$rc"
  nob $mode --exec sh -c 'exit 126'
  check_eq "$mode: control: CMD's own 126 stays 126" 126 "$rc"
done
# Control: bwrap started on the command directly (the --dry-run command without the shim) turns
# the same failure into its own exit 1, which is what the shim is for.
nob --clear-tmp --dry-run --exec no-such-command-xyz
grep -v '^mkdir\|^(umask' "$T_DIR/out" | grep -v '^blaude:' | sed "s| $SHIM | |" >"$T_DIR/noshim.sh"
check "the dry run shows the shim" grep -qF "$SHIM no-such-command-xyz" "$T_DIR/out"
chmod 644 "$T_DIR/noshim.sh"
set +e
(cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
  bash "$T_DIR/noshim.sh" </dev/null >"$T_DIR/noshim.out" 2>&1)
rc=$?
set -e
check_eq "control: without the shim bwrap exits 1 for a missing CMD" 1 "$rc"
check "control: ... with its own message" grep -q 'execvp no-such-command-xyz' "$T_DIR/noshim.out"

# --- did you mean -----------------------------------------------------------------------------
for typo in --no-netwrok:--no-network --dryrun:--dry-run --gti:--git --clear-tpm:--clear-tmp; do
  nob --no-sandbox -c "${typo%%:*}"
  check_eq "${typo%%:*}: exit 2" 2 "$rc"
  check "${typo%%:*}: did you mean ${typo#*:}" grep -qF -- "did you mean ${typo#*:}?" "$T_DIR/out"
  check "${typo%%:*}: claude not started" test ! -s "$STUB_LOG"
done
check "the hint says how to pass it anyway" grep -qF -- "blaude -- --clear-tpm" "$T_DIR/out"
nob --no-sandbox -- --dryrun
check_eq "after --, a near miss is claude's" "$SKIP|--dryrun" "$(argv)"
for own in --init --tmux --all --cwd --sso --tmux=classic --debug=hooks; do
  nob --no-sandbox "$own"
  check_eq "claude's $own (close to a blaude option) reaches claude" "$SKIP|$own" "$(argv)"
done
nob --no-sandbox --totally-unknown-flag
check_eq "an unknown option far from blaude's still passes through" "$SKIP|--totally-unknown-flag" "$(argv)"

# --- -m ~/x, --mount=~/x ------------------------------------------------------------------------
nob --clear-tmp --exec cat "$H/data/f"
check "control: without -m, ~/data is not in the sandbox" not grep -q DATA "$T_DIR/out"
nob --clear-tmp -m '~/data' --exec cat "$H/data/f"
check_eq "-m '~/data' (quoted, no shell expansion) mounts \$HOME/data" DATA "$(cat "$T_DIR/out")"
nob --clear-tmp --mount=~/data:rw --exec sh -c "echo W >'$H/data/w'"
check_eq "--mount=~/data:rw mounts it read-write" W "$(cat "$H/data/w" 2>/dev/null)"
nob --clear-tmp -m '~/data' --exec sh -c "echo W >'$H/data/ro' 2>/dev/null; true"
check "-m '~/data' is read-only" test ! -e "$H/data/ro"
nob --clear-tmp -m '~nobody/x' --exec true
check_eq "-m ~user: a usage error" 2 "$rc"
check "... saying only ~ and ~/ expand" grep -q 'only ~ and ~/ are expanded' "$T_DIR/out"

finish
