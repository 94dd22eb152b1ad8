#!/usr/bin/env bash
# --git binds only what gpg signing needs, found with gpgconf: the
# agent's restricted (extra) socket at the agent's path, and the public keyring. Real gpg-agent,
# real git, real blaude and bwrap, as uid 65534. Inside: a signed commit works; the agent's ssh
# socket (ssh-agent access without --ssh), the private keys and a secret-key export are out of
# reach. Controls: on the host the same agent has the ssh socket, the private keys and exports.
. "$(dirname "$0")/lib.sh"

need_sandbox
for t in gpg gpgconf gpg-agent git python3; do command -v $t >/dev/null || missing "$t"; done
NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/ws"
mkdir -p "$H/.claude" "$WS"
chown -R $NOBODY:$NOBODY "$H" "$WS"
u() { as_nobody env -i HOME="$H" PATH=/usr/bin:/bin "$@"; }

u gpg --batch --passphrase '' --quick-gen-key 'Blaude Test <test@example.invalid>' ed25519 sign never 2>/dev/null
FPR=$(u gpg --list-secret-keys --with-colons | awk -F: '/^fpr/ {print $10; exit}')
check "a signing key for the test" test -n "$FPR"
u gpg-connect-agent /bye >/dev/null 2>&1
at_exit "as_nobody env -i HOME='$H' PATH=/usr/bin:/bin gpgconf --kill gpg-agent"
SOCKDIR=$(u gpgconf --list-dirs socketdir)
HOMEDIR=$(u gpgconf --list-dirs homedir)
check "control: the host agent has an ssh socket" test -S "$(u gpgconf --list-dirs agent-ssh-socket)"
check "control: the host has private keys" test -d "$HOMEDIR/private-keys-v1.d"
check "control: on the host the key exports" grep -q "PRIVATE KEY BLOCK" <<<"$(u gpg --batch --pinentry-mode loopback --passphrase '' --export-secret-keys --armor 2>/dev/null)"

u git init -q "$WS"
u git -C "$WS" config user.name Test
u git -C "$WS" config user.email test@example.invalid
u git -C "$WS" config user.signingkey "$FPR"

cat >"$T_DIR/cli.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1]); print("CONNECTED")
except OSError as e:
    print("REFUSED", e.errno)
EOF
chmod 644 "$T_DIR/cli.py"

NEW=$("$BLAUDE_SRC/scripts/get-bwrap-overlay.sh" 2>"$T_DIR/get.err") || missing "the overlay bwrap: $(cat "$T_DIR/get.err")"
for bw in /usr/bin "$(dirname "$NEW")"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  inside=$(cd "$WS" && env -i HOME="$H" PATH="$bw:/usr/bin:/bin" TERM=dumb setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
    "$BLAUDE" --git --exec sh -c '
      git commit -q --allow-empty -S -m signed && echo "commit ok"
      git cat-file commit HEAD | grep -q "^gpgsig " && echo "signed ok"
      ls -a "'"$SOCKDIR"'" "'"$HOMEDIR"'" 2>&1; ls "'"$HOMEDIR"'"/private-keys-v1.d/ 2>/dev/null | sed "s/^/privkey: /"
      python3 '"$T_DIR"'/cli.py "'"$SOCKDIR"'/S.gpg-agent.ssh"
      gpg --batch --pinentry-mode loopback --passphrase "" --export-secret-keys --armor 2>&1 | head -3
      test -S "$(gpgconf --list-dirs agent-socket)" && echo "agent socket bound where gpg looks"' </dev/null 2>"$T_DIR/sb.err" || true)
  check "$label: a signed commit works inside" grep -q "signed ok" <<<"$inside"
  check "$label: gpg inside finds the agent where it was bound" grep -q "agent socket bound where gpg looks" <<<"$inside"
  check "$label: no S.gpg-agent.ssh inside" not grep -q "S.gpg-agent.ssh$" <<<"$(sed '/cli.py/d' <<<"$inside" | grep -v '^REFUSED')"
  check "$label: the ssh socket does not connect" grep -q "^REFUSED" <<<"$inside"
  check "$label: no private key file inside" not grep -q "^privkey: .*\.key" <<<"$inside"
  check "$label: no secret key export through the restricted socket" not grep -q "PRIVATE KEY BLOCK" <<<"$inside"
  dry=$(cd "$WS" && env -i HOME="$H" PATH="$bw:/usr/bin:/bin" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
    "$BLAUDE" --git --dry-run --exec true 2>&1 || true)
  check "$label: --dry-run binds the extra socket" grep -q "S.gpg-agent.extra" <<<"$dry"
  check "$label: --dry-run binds neither the ssh socket nor the socket dir" not grep -qE "S\.gpg-agent\.ssh|--bind '?$SOCKDIR'? " <<<"$dry"
done
finish
