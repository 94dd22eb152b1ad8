#!/usr/bin/env bash
# --ssh-agent: the sandbox gets blaude's signing-only ssh-agent as SSH_AUTH_SOCK, in front of a
# real ssh-agent holding two keys (A and B), with only A allowed. Real ssh-agent, ssh-keygen,
# ssh-add and git; the real blaude and bwrap as uid 65534; one sandbox start does every check
# inside. Inside: ssh-add -l lists A only; a commit signed with gpg.format=ssh and A verifies on
# the host; signing with B fails; ssh-add -D, adding a key and locking are refused; no key file
# and no path of the real agent is there. After the session blaude names the signature (A's
# fingerprint, git's namespace) and the refusals. Controls: the same operations through the
# real agent on the host succeed (the refusals are the filter's), and without the flag there is
# no SSH_AUTH_SOCK inside.
. "$(dirname "$0")/lib.sh"

need_sandbox
for t in ssh-agent ssh-keygen ssh-add ssh git unshare ip; do command -v $t >/dev/null || missing "$t"; done
[ -x /usr/sbin/sshd ] || missing "sshd (openssh-server)"
sandbox_dirs
# The sockets' directory lives in the runtime dir, which must be under /run (no sandbox sees it).
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown $NOBODY:$NOBODY "$RT"
chmod 700 "$RT"
# Where ssh-agent puts its socket by default (/tmp/ssh-XXXXXXXXXX), which the sandbox shares.
AG=$(mktemp -d /tmp/ssh-XXXXXXXXXX)
at_exit_late "rm -rf '$AG'"
mkdir -p "$H/.ssh"
chown $NOBODY:$NOBODY "$AG" "$H/.ssh"
chmod 700 "$AG" "$H/.ssh"
# From / : the checkout (the cwd) may be a private dir that uid 65534 cannot stat (git stats its cwd).
u() { (cd / && as_nobody env -i HOME="$H" PATH=/usr/bin:/bin SSH_AUTH_SOCK="$AG/s" "$@"); }

AGENT_PID=$(u ssh-agent -s -a "$AG/s" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
at_exit "kill $AGENT_PID 2>/dev/null"
check "a real ssh-agent for the test" wait_until test -S "$AG/s"
for k in a b; do u ssh-keygen -q -t ed25519 -N '' -C "key-$k" -f "$H/.ssh/$k"; done
u ssh-add -q "$H/.ssh/a" "$H/.ssh/b" 2>/dev/null
FPA=$(ssh-keygen -lf "$H/.ssh/a.pub" | awk '{print $2}')
FPB=$(ssh-keygen -lf "$H/.ssh/b.pub" | awk '{print $2}')
check "control: the real agent lists both keys" test "$(u ssh-add -l | grep -c -e "$FPA" -e "$FPB")" = 2

# The keys as literals (git's key:: form): no key file is needed inside.
u git init -q "$WS"
u git -C "$WS" config user.name Test
u git -C "$WS" config user.email test@example.invalid
u git -C "$WS" config gpg.format ssh
u git -C "$WS" config user.signingkey "key::$(cat "$H/.ssh/a.pub")"
KEYB="key::$(cat "$H/.ssh/b.pub")"
mkdir -p "$H/.config/blaude"
echo "ssh-key key-a" >"$H/.config/blaude/policy"
chown -R $NOBODY:$NOBODY "$H/.config"
ASKPASS="$T_DIR/askpass"
printf '#!/bin/sh\necho pw\n' >"$ASKPASS"
chmod 755 "$ASKPASS"
# A raw SIGN_REQUEST for a public key file's key: prints the answer's type (5 failure, 14 signature).
cat >"$T_DIR/sign.py" <<'EOF'
import base64, os, socket, struct, sys
def s(b): return struct.pack(">I", len(b)) + b
blob = base64.b64decode(open(sys.argv[1]).read().split()[1])
c = socket.socket(socket.AF_UNIX); c.connect(os.environ["SSH_AUTH_SOCK"])
body = b"\x0d" + s(blob) + s(b"data") + b"\0\0\0\0"
c.sendall(s(body)); n = struct.unpack(">I", c.recv(4))[0]; print("answer", c.recv(n)[0])
EOF
chmod 644 "$T_DIR/sign.py"
cp "$H/.ssh/b.pub" "$T_DIR/b.pub"
chmod 644 "$T_DIR/b.pub"

SB_ENV=(XDG_RUNTIME_DIR="$RT" SSH_AUTH_SOCK="$AG/s")
# git push over ssh: a real sshd in a network namespace of the test's own, where the session runs
# too, on the host network mode (BLAUDE_NETNS=off: that namespace is its host network). It lets
# root in with key A only, and runs git-receive-pack for a bare repository.
u git init -q --bare "$H/remote.git"
chown -R root:root "$H/remote.git"
ssh-keygen -q -t ed25519 -N '' -f "$T_DIR/hostkey"
FPH=$(ssh-keygen -lf "$T_DIR/hostkey.pub" | awk '{print $2}')
cp "$H/.ssh/a.pub" "$T_DIR/authorized_keys"
mkdir -p /run/sshd
cat >"$T_DIR/sshd_config" <<EOF
ListenAddress 127.0.0.1:2222
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
SSHCMD="ssh -p 2222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
inside=$(cd "$WS" && unshare -n sh -c 'ip link set lo up && /usr/sbin/sshd -f "$1" -E "$2" && shift 2 && exec "$@"' sh \
  "$T_DIR/sshd_config" "$T_DIR/sshd.log" env -i HOME="$H" PATH=/usr/bin:/bin TERM=dumb "${SB_ENV[@]}" BLAUDE_NETNS=off \
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BLAUDE" --ssh-agent --exec sh -c '
  echo "sock=[$SSH_AUTH_SOCK]"
  ssh-add -l 2>&1 | sed "s/^/list: /"
  git commit -q --allow-empty -S -m "signed with A" 2>/dev/null && echo "commit A ok"
  git -c user.signingkey="$1" commit -q --allow-empty -S -m "signed with B" 2>/dev/null && echo "commit B ok"
  ssh-add -D >/dev/null 2>&1; echo "remove-all rc=$?"
  c=$(mktemp -d)/c; ssh-keygen -q -t ed25519 -N "" -C key-c -f "$c" && ssh-add "$c" >/dev/null 2>&1; echo "add rc=$?"; rm -rf "${c%/c}"
  SSH_ASKPASS="$2" SSH_ASKPASS_REQUIRE=force DISPLAY=:0 ssh-add -x >/dev/null 2>&1; echo "lock rc=$?"
  ssh-add -l >/dev/null 2>&1; echo "list after rc=$?"
  python3 "$3/sign.py" "$3/b.pub" 2>&1 | sed "s/^/raw B: /"
  ls -A ~/.ssh 2>/dev/null | sed "s/^/keyfile: /"
  SSH_AUTH_SOCK="$4/s" ssh-add -l >/dev/null 2>&1; echo "real agent rc=$?"
  GIT_SSH_COMMAND="$5" git push -q "ssh://root@127.0.0.1/$6" HEAD:refs/heads/main 2>&1 | sed "s/^/push: /"
  echo "push done"
  true' sh "$KEYB" "$ASKPASS" "$T_DIR" "$AG" "$SSHCMD" "$H/remote.git" </dev/null 2>"$T_DIR/sb.err" || true)
err=$(cat "$T_DIR/sb.err")
[ -n "${VERBOSE:-}" ] && { echo "$inside"; echo "$err"; }
check "SSH_AUTH_SOCK names blaude's agent inside" grep -q "^sock=\[/run/blaude/services/ssh-agent\]" <<<"$inside"
check "ssh-add -l lists key A" grep -q "^list: .*$FPA" <<<"$inside"
check "ssh-add -l does not list key B" not grep -q "$FPB" <<<"$inside"
check "a commit signed with A works inside" grep -q "^commit A ok" <<<"$inside"
check "signing with B fails inside" not grep -q "^commit B ok" <<<"$inside"
check "ssh-add -D is refused" grep -q "^remove-all rc=[1-9]" <<<"$inside"
check "adding a key is refused" grep -q "^add rc=[1-9]" <<<"$inside"
check "locking the agent is refused" grep -q "^lock rc=[1-9]" <<<"$inside"
check "the agent still answers after the refusals" grep -q "^list after rc=0" <<<"$inside"
check "no key file inside" not grep -q "^keyfile: " <<<"$inside"
check "a raw sign request with B gets SSH_AGENT_FAILURE" grep -q "^raw B: answer 5$" <<<"$inside"
check "the real agent's socket is out of reach inside" grep -q "^real agent rc=2" <<<"$inside"
check "git push over ssh with key A works inside" \
  test "$(git -C "$H/remote.git" rev-parse -q --verify refs/heads/main)" = "$(u git -C "$WS" rev-parse HEAD)"
check "... with no error" not grep -q "^push: " <<<"$inside"
check "the summary names the login: A's fingerprint, the user, the sshd's host key" \
  grep -qF "1 x $FPA (ssh login as root to host key $FPH)" <<<"$err"
check "A's commit verifies on the host" \
  u sh -c "echo 'test@example.invalid namespaces=\"git\" $(cat "$H/.ssh/a.pub")' >'$H/allowed' &&
           git -C '$WS' -c gpg.ssh.allowedSignersFile='$H/allowed' verify-commit HEAD 2>&1 | grep -q 'Good \"git\" signature'"
check "the summary names the signature: A's fingerprint, git's namespace" \
  grep -q "1 x $FPA (file signature, namespace git)" <<<"$err"
check "the summary names the refused signature with B" grep -q "sign with $FPB (not an allowed key)" <<<"$err"
for r in remove-all-identities add-identity lock; do
  check "the summary names the refused $r" grep -q "x refused $r$" <<<"$err"
done
check "the session's socket directory is gone after it" not sh -c "ls '$RT'/blaude/ 2>/dev/null | grep -q services-"

# Controls: the same operations through the real agent succeed.
check "control: signing with B through the real agent works" \
  u sh -c "echo x | ssh-keygen -Y sign -n git -f '$H/.ssh/b.pub' >/dev/null 2>&1"
check "control: the raw sign request with B gets a signature from the real agent" \
  grep -q "^answer 14$" <<<"$(u python3 "$T_DIR/sign.py" "$T_DIR/b.pub")"
check "control: adding a key to the real agent works" \
  u sh -c "ssh-keygen -q -t ed25519 -N '' -C key-c -f '$H/c' && ssh-add -q '$H/c' 2>/dev/null"
check "control: locking the real agent works" \
  u env SSH_ASKPASS="$ASKPASS" SSH_ASKPASS_REQUIRE=force DISPLAY=:0 ssh-add -x
u env SSH_ASKPASS="$ASKPASS" SSH_ASKPASS_REQUIRE=force DISPLAY=:0 ssh-add -X >/dev/null 2>&1
check "control: ssh-add -D on the real agent works" u ssh-add -D
# The default key: with --git and no key named, the one git's user.signingkey names, here as a
# key file (its public half alone is bound, at its path). No ssh-key line this time.
rm "$H/.config/blaude/policy"
u ssh-add -q "$H/.ssh/a" "$H/.ssh/b" 2>/dev/null  # the control above removed them
u git config --global user.signingkey "$H/.ssh/a"
u git config --global gpg.format ssh
u git -C "$WS" config --unset user.signingkey
inside=$(sb_nobody /usr/bin --git --ssh-agent -- '
  ssh-add -l 2>&1 | sed "s/^/list: /"
  git commit -q --allow-empty -S -m "signed with the default key" 2>&1 && echo "default commit ok"
  ls -A ~/.ssh 2>/dev/null | sed "s/^/keyfile: /"' || true)
[ -n "${VERBOSE:-}" ] && { echo "$inside"; cat "$T_DIR/sb.err"; }
check "--git --ssh-agent: the agent lists user.signingkey's key" grep -q "^list: .*$FPA" <<<"$inside"
check "... and no other" not grep -q "$FPB" <<<"$inside"
check "... and a signed commit works with it" grep -q "^default commit ok" <<<"$inside"
check "... with the public key file alone inside" test "$(grep "^keyfile: " <<<"$inside" | tr '\n' ' ')" = "keyfile: a.pub "

# Bad input: refused before anything starts, with a usage error.
bad() { (cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin "${SB_ENV[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$BLAUDE" "$@" --exec true </dev/null 2>&1; echo "rc=$?"); }
out=$(bad --ssh --ssh-agent)
check "--ssh with --ssh-agent is refused" grep -q "choose one" <<<"$out"
check "... as a usage error" grep -q "^rc=2$" <<<"$out"
out=$(bad --ssh-key SHA256:nope)
check "a malformed fingerprint is a usage error naming it" grep -q "SHA256:nope' is not a SHA256 fingerprint" <<<"$out"
echo "ssh-key key-b" >"$WS/.blaude"
out=$(bad --ssh-agent)
check "ssh-key in a project's policy is refused" grep -q "belong in your own policy" <<<"$out"
rm "$WS/.blaude"
# Without the flag: no agent inside at all.
inside=$(sb_nobody /usr/bin -- 'echo "sock=[$SSH_AUTH_SOCK]"; ls /run/blaude/services 2>&1 | head -1' || true)
check "control: without --ssh-agent there is no SSH_AUTH_SOCK inside" grep -q "^sock=\[\]" <<<"$inside"
finish
