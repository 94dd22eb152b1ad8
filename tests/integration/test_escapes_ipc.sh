#!/usr/bin/env bash
# Host IPC reachable from inside. Real blaude, real bwrap (0.8 and the overlay
# bwrap), as uid 65534. Each attack has a control that shows the test would notice a success:
# - an abstract unix socket of the host (the X server's @/tmp/.X11-unix/X0 is one) is unreachable
#   (Landlock scope; control: the same client without blaude's sandbox reaches it);
# - a bare socket FILE the seed lists (/tmp/dbus-XXXX) is shadowed (control: a socket file under
#   a name the seed does not list stays reachable, so the sandbox does see /tmp's sockets);
# - the user's tmux socket dir cannot be squatted (control: --allow-protected-writes);
# - a key in the user's session keyring is unreadable (control: the same bwrap without blaude).
# In a private /tmp (private_tmp.sh): its /tmp/dbus-* socket and FIFO, made and removed here,
# never reach the machine's /tmp, where other tests' sessions list the seed's names.
. "$(dirname "$0")/private_tmp.sh"
. "$(dirname "$0")/lib.sh"

need_sandbox
need_overlay_bwrap
command -v python3 >/dev/null || missing python3
command -v keyctl >/dev/null || missing "keyctl (keyutils)"
NOBODY=65534
H="$T_DIR/home"
WS="$T_DIR/ws"
mkdir -p "$H/.claude" "$WS"
chown -R $NOBODY:$NOBODY "$H" "$WS"
TAG="blaude-ipc-$$"

sb() {  # sb BWRAP_DIR [blaude options] -- SCRIPT
  local bw=$1 opts=()
  shift
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  (cd "$WS" && env -i HOME="$H" PATH="$bw:/usr/bin:/bin" TERM=dumb ${SB_ENV:-} \
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
    "$BLAUDE" "${opts[@]}" --exec sh -c "$1" </dev/null 2>"$T_DIR/sb.err")
}

# A unix socket server (abstract when the name starts with @) that answers HELLO; the client
# prints CONNECTED or REFUSED.
cat >"$T_DIR/srv.py" <<'EOF'
import os, socket, sys
name = sys.argv[1]
addr = b"\0" + name[1:].encode() if name.startswith("@") else name
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(addr)
if not name.startswith("@"): os.chmod(name, 0o777)
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); c.sendall(b"HELLO\n"); c.close()
EOF
cat >"$T_DIR/cli.py" <<'EOF'
import socket, sys
name = sys.argv[1]
addr = b"\0" + name[1:].encode() if name.startswith("@") else name
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(addr); print("CONNECTED" if s.recv(6) == b"HELLO\n" else "CONNECTED?")
except OSError as e:
    print("REFUSED", e.errno)
EOF
chmod 644 "$T_DIR/srv.py" "$T_DIR/cli.py"
serve() {  # serve NAME: a listener in the background, ready when this returns
  rm -f "$T_DIR/ready"
  /usr/bin/python3 "$T_DIR/srv.py" "$1" "$T_DIR/ready" &
  local pid=$!
  at_exit "kill $pid"
  wait_until test -e "$T_DIR/ready" || fail "listener $1 did not start"
}

ABS="@/tmp/.X11-unix/X$$-$TAG"   # shaped like the X server's abstract address
DBUS="/tmp/dbus-$TAG"            # dbus-launch's bare socket file
OTHER="/tmp/other-$TAG.sock"     # a socket file the seed does not list
serve "$ABS"
serve "$DBUS"
serve "$OTHER"
# Under seed names too: a FIFO (an IPC endpoint: shadowed) and a regular file (none: a test
# log like tmux-client-N.log; no shadow: each was a mount on every start).
FIFO="/tmp/dbus-$TAG.fifo"
LOGF="/tmp/tmux-$TAG.log"
mkfifo -m 666 "$FIFO"
echo "host log" >"$LOGF" && chmod 644 "$LOGF"
at_exit "rm -f '$DBUS' '$OTHER' '/tmp/$TAG.tmux.conf' '$FIFO' '$LOGF'"

check_eq "control: the abstract listener answers outside any sandbox" CONNECTED \
  "$(as_nobody /usr/bin/python3 "$T_DIR/cli.py" "$ABS")"
check_eq "control: plain bwrap (the default network namespace) reaches it too" CONNECTED \
  "$(as_nobody bwrap --unshare-user --unshare-pid --ro-bind / / --dev /dev --proc /proc python3 "$T_DIR/cli.py" "$ABS")"

for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  out=$(sb "$bw" -- "python3 $T_DIR/cli.py '$ABS'; python3 $T_DIR/cli.py '$DBUS'; python3 $T_DIR/cli.py '$OTHER'" || true)
  check_eq "$label: the host's abstract socket is unreachable" "REFUSED 1" "$(sed -n 1p <<<"$out")"
  check "$label: the bare /tmp/dbus-* socket file is shadowed" grep -q "^REFUSED" <<<"$(sed -n 2p <<<"$out")"
  check_eq "$label control: an unlisted /tmp socket is reachable (the sandbox sees /tmp)" CONNECTED "$(sed -n 3p <<<"$out")"
  kinds=$(sb "$bw" -- "stat -c %F '$FIFO'; cat '$LOGF'" || true)
  check_eq "$label: a FIFO under a seed name is shadowed (/dev/null)" "character special file" "$(sed -n 1p <<<"$kinds")"
  check_eq "$label control: a regular file under a seed name is not (its content shows)" "host log" "$(sed -n 2p <<<"$kinds")"
  check "$label: --dry-run says abstract sockets are scoped" grep -qi "abstract" <<<"$(sb "$bw" --dry-run -- true 2>&1; cat "$T_DIR/sb.err")"
done

# --- tmux squatting: no host server at launch; the sandbox starts one at the user's socket path
TMUXTMP="$T_DIR/tmuxtmp"
mkdir -p "$TMUXTMP" && chmod 1777 "$TMUXTMP"
SQUAT="$TMUXTMP/tmux-$NOBODY/default"
squat='
  mkdir -p '"$TMUXTMP/tmux-$NOBODY"' 2>/dev/null; chmod 700 '"$TMUXTMP/tmux-$NOBODY"' 2>/dev/null
  echo "set -g default-shell /bin/sh" >/tmp/'"$TAG"'.tmux.conf  # uid 65534'"'"'s login shell is nologin
  tmux -S '"$SQUAT"' -f /tmp/'"$TAG"'.tmux.conf new-session -d "sleep 30" && echo started >"$PWD/squat.state"
  i=0; while [ ! -e "$PWD/squat.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done'
host_tmux() { as_nobody env -i HOME="$H" PATH=/usr/bin:/bin TMUX_TMPDIR="$TMUXTMP" tmux ls 2>&1 || true; }
for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  for mode in attack control; do
    rm -rf "${TMUXTMP:?}"/* "$WS/squat.state" "$WS/squat.done"
    opt=()
    [ $mode = control ] && opt=(--allow-protected-writes)
    SB_ENV="TMUX_TMPDIR=$TMUXTMP" sb "$bw" "${opt[@]}" -- "$squat" &
    sbpid=$!
    # The session runs until squat.done: look from the host meanwhile.
    wait_until test -e "$WS/squat.state" || true
    seen=$(host_tmux)
    touch "$WS/squat.done"
    wait "$sbpid" || true
    check "$label $mode: the sandbox did start a tmux server" test -e "$WS/squat.state"
    if [ $mode = attack ]; then
      check "$label: the host's tmux does not reach a server the sandbox started" not grep -q "^0:" <<<"$seen"
      check "$label: the user's tmux dir exists, 0700, owned by the user" \
        test "$(stat -c '%a %u' "$TMUXTMP/tmux-$NOBODY")" = "700 $NOBODY"
    else
      check "$label control: without the shadow the host's tmux attaches to the sandbox's server" grep -q "^0:" <<<"$seen"
    fi
  done
done

# --- the session keyring: a key the user added on the host
keyed() {  # keyed CMD...: run CMD as the user in a session keyring holding a secret key
  as_nobody keyctl session - sh -c 'k=$(keyctl add user blaude-test HOSTSECRET @s) && echo $k >'"$WS/key"' && "$@"' sh "$@"
}
out=$(keyed env -i HOME="$H" PATH=/usr/bin:/bin bwrap --unshare-user --unshare-pid --ro-bind / / --dev /dev --proc /proc \
  sh -c 'keyctl print $(cat '"$WS/key"')' 2>&1 | tail -n 1 || true)
check_eq "control: plain bwrap inherits the user's session keyring" HOSTSECRET "$out"
for bw in /usr/bin "$NEW"; do
  label="bwrap $("$bw/bwrap" --version | awk '{print $2}')"
  out=$(cd "$WS" && keyed env -i HOME="$H" PATH="$bw:/usr/bin:/bin" TERM=dumb "$BLAUDE" --exec sh -c \
    'keyctl print $(cat '"$WS/key"') 2>&1' </dev/null 2>"$T_DIR/sb.err" || true)
  check "$label: the host key is not readable inside" not grep -q HOSTSECRET <<<"$out"
  check "$label: (the key's id did reach the sandbox: the refusal is the keyring's)" grep -q "Permission denied" <<<"$out"
done
finish
