#!/usr/bin/env bash
# Proxy mode's transparent capture with a real sshd: git over ssh to an allowed name works with
# --allow-domain NAME:22, proxy-unaware (ssh -F /dev/null, no proxy variables). The test owns a
# network namespace (its loopback holds a real sshd on :22 serving a bare repository the test
# made) and a mount namespace whose /etc/hosts names it (ssh.test, other.test → 127.0.0.1); the
# real blaude runs as uid 65534 there, with the client key handed in by -m. One session with
# --allow-domain ssh.test:22: git ls-remote and git clone of ssh://root@ssh.test/... show the
# test's commit, and the proxy's log names the connection allowed by name. Control: a session
# with --allow-domain other.test:22 (port 22 is captured, ssh.test is not allowed): the same
# ls-remote fails, and the log and the exit summary name the refused ssh.test:22.
if [ -z "${BLAUDE_IN_NETNS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to own a network and a mount namespace"; exit 77; }
  exec unshare -n -m env BLAUDE_IN_NETNS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

ip link set lo up
# net_prereqs wants a global address (the host's, in its own namespace): one of documentation's.
ip addr add 203.0.114.6/32 dev lo scope global
printf '127.0.0.1 localhost\n127.0.0.1 ssh.test other.test\n' >"$T_DIR/hosts"
mount --bind "$T_DIR/hosts" /etc/hosts
net_prereqs
for t in ssh ssh-keygen git; do command -v $t >/dev/null || missing "$t"; done
[ -x /usr/sbin/sshd ] || missing "sshd (openssh-server)"
net_world
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown 65534:65534 "$RT"
chmod 700 "$RT"

# The bare repository (root's: sshd logs root in) with one commit of the test's.
REPO="$T_DIR/remote.git"
git init -q --bare "$REPO"
git init -q "$T_DIR/seed"
git -C "$T_DIR/seed" -c user.name=Test -c user.email=test@example.invalid \
  commit -q --allow-empty -m "sshcap seed"
git -C "$T_DIR/seed" push -q "$REPO" HEAD:refs/heads/main
git -C "$REPO" symbolic-ref HEAD refs/heads/main
SEED=$(git -C "$REPO" rev-parse refs/heads/main)
# The client key, uid 65534's, in a dir of its own handed in with -m.
KEYS="$T_DIR/keys"
mkdir -m 700 "$KEYS"
ssh-keygen -q -t ed25519 -N '' -C sshcap -f "$KEYS/id"
chown -R 65534:65534 "$KEYS"
# A real sshd on 127.0.0.1:22 of the test's namespace: root with that key only.
ssh-keygen -q -t ed25519 -N '' -f "$T_DIR/hostkey"
cp "$KEYS/id.pub" "$T_DIR/authorized_keys"
mkdir -p /run/sshd
cat >"$T_DIR/sshd_config" <<EOF
ListenAddress 127.0.0.1:22
HostKey $T_DIR/hostkey
AuthorizedKeysFile $T_DIR/authorized_keys
PidFile $T_DIR/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
EOF
at_exit "kill \$(cat '$T_DIR/sshd.pid' 2>/dev/null) 2>/dev/null"
/usr/sbin/sshd -f "$T_DIR/sshd_config" -E "$T_DIR/sshd.log"
check "a real sshd listens on 127.0.0.1:22" wait_until bash -c 'exec 3<>/dev/tcp/127.0.0.1/22'
# ssh with no config (-F /dev/null: no ProxyCommand), the key by its path; the user's HOME.
SSHOPTS="-F /dev/null -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no"
SSHOPTS+=" -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 -o LogLevel=ERROR"
host=$(cd / && as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin GIT_SSH_COMMAND="ssh -i $KEYS/id $SSHOPTS" \
  git ls-remote "ssh://root@ssh.test$REPO" 2>&1)
check "control: git ls-remote over ssh on the host (no sandbox) shows the commit" \
  grep -q "^$SEED	refs/heads/main$" <<<"$host"

# Inside: no proxy variables, no ssh config; the key by its path under -m.
# shellcheck disable=SC2016 # expanded inside, by bash -c
INSIDE='
  for v in $(compgen -e | grep -i proxy); do unset "$v"; done
  export GIT_SSH_COMMAND="ssh -i $1/id $4"
  echo proxyenv=$(compgen -e | grep -ci proxy)
  git ls-remote "ssh://root@ssh.test$2" 2>&1 | sed "s/^/ls: /"
  echo ls_rc=${PIPESTATUS[0]}
  if [ "$3" = clone ]; then
    git clone -q "ssh://root@ssh.test$2" clone 2>&1 | sed "s/^/clone: /"
    echo clone_rc=${PIPESTATUS[0]}
    echo head=$(git -C clone rev-parse HEAD 2>&1) subject=$(git -C clone log -1 --format=%s 2>&1)
  fi'
logins() { grep -c "Accepted publickey for root" "$T_DIR/sshd.log"; }
before=$(logins)
set +e
out=$(BL_ENV="XDG_RUNTIME_DIR=$RT" bl --allow-domain ssh.test:22 -m "$KEYS" \
  --exec bash -c "$INSIDE" sh "$KEYS" "$REPO" clone "$SSHOPTS" 2>"$T_DIR/err")
rc=$?
set -e
val() { sed -n "s/^$1=//p" <<<"$out"; }
log "session rc=$rc"; cat "$T_DIR/err" >&2; printf "%s\n" "$out"
check_eq "inside: no proxy variable is set for ssh" "0" "$(val proxyenv)"
check "git ls-remote ssh://root@ssh.test/... through capture shows the test's commit" \
  grep -q "^ls: $SEED	refs/heads/main$" <<<"$out"
check_eq "... and succeeds" "0" "$(val ls_rc)"
check_eq "git clone over ssh through capture succeeds" "0" "$(val clone_rc)"
check_eq "... with the test's commit" "$SEED subject=sshcap seed" "$(val head)"
check "the proxy's log names the ssh connection allowed by name" \
  grep -q "net: allowed CONNECT ssh.test:22 " <(net_log)
check_eq "the sshd let the test's key in, once for ls-remote and once for clone" \
  "$((before + 2))" "$(logins)"

# Control: port 22 is captured (a rule names it), ssh.test is not allowed.
set +e
out=$(BL_ENV="XDG_RUNTIME_DIR=$RT" bl --allow-domain other.test:22 -m "$KEYS" \
  --exec bash -c "$INSIDE" sh "$KEYS" "$REPO" ls "$SSHOPTS" 2>"$T_DIR/err2")
set -e
log "control session"; cat "$T_DIR/err2" >&2; printf "%s\n" "$out"
check "control: with ssh.test not allowed, git ls-remote over ssh fails" \
  grep -Eq '^ls_rc=[1-9]' <<<"$out"
check "... without the commit" not grep -q "$SEED" <<<"$out"
check "... and the proxy's log names the refusal, ssh.test:22" \
  grep -q "net: refused CONNECT ssh.test:22: ssh.test:22 is not allowed" <(net_log)
check "... and so does the exit summary" grep -q "refused 1 connection: ssh.test:22" "$T_DIR/err2"
finish
