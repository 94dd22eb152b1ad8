#!/usr/bin/env bash
# Proxy mode's proxy cannot be reached from another sandbox. Session B (the default mode, which
# shares the host's network namespace and /tmp, with no rule of its own) starts first; session
# A then runs in proxy mode allowing one web server. While A runs, B tries every unix socket it
# can name: each listening path and abstract name of the host's network namespace
# (/proc/net/unix) and every socket file under /tmp, /var/tmp, /run, /dev/shm and its HOME, and
# asks each for A's destination as a proxy client would.
# Attack: nothing B can name leads to A's proxy (no 200 from A's server), and on the host A's
# blaude holds no listening socket at all (the relay reaches the proxy through a socketpair it
# inherits). A itself reaches the server through its proxy.
# Controls: A exposes its own proxy port at a path in the shared /tmp (a forwarder inside A, the
# way a proxy socket in a shared directory would be): B's same search finds it and gets the
# server's 200 through A's proxy and A's allowlist. And the host-side listing shows a listener
# the test runs as the same user, with its pid, so the listing would show one of A's blaude.
# Real blaude and bwrap as uid 65534; A's HOME is outside /tmp (a user's home is not in /tmp).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
command -v ss >/dev/null || missing "ss is not installed"
net_world
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"
HOME_A=$(mktemp -d /var/tmp/blaude-rendezvous.XXXXXX)
chmod 755 "$HOME_A"
chown 65534:65534 "$HOME_A"
at_exit_late "rm -rf '$HOME_A'"
mkdir -p "$T_DIR/projb" "$T_DIR/shared"
chown 65534:65534 "$T_DIR/projb" "$T_DIR/shared"
cat >"$T_DIR/projb/look.py" <<PY
import os, socket, stat
names = []
with open("/proc/net/unix") as f:
    next(f)
    for line in f:
        parts = line.split()
        # Flags 00010000: a listening socket; the path (or @abstract name) is the 8th field.
        if len(parts) >= 8 and int(parts[3], 16) & 0x10000:
            names.append(parts[7])
print("listening", len(names))
# A socket bound in another network namespace (a sandbox's) is not in this /proc/net/unix, but
# its path still connects: every socket file B can see, too.
for top in ("/tmp", "/var/tmp", "/run", "/dev/shm", os.environ.get("HOME", "/nonexistent")):
    for d, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            try:
                if stat.S_ISSOCK(os.lstat(p).st_mode) and p not in names:
                    names.append(p)
            except OSError:
                pass
print("names", len(names))
for n in names:
    addr = "\0" + n[1:] if n.startswith("@") else n
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(1)
        s.connect(addr)
        s.sendall(b"GET http://$W/through HTTP/1.1\r\nHost: $W\r\n\r\n")
        print("answer", n, s.recv(4096).split(b"\r\n")[0].decode(errors="replace"))
    except OSError as e:
        print("error", n, type(e).__name__)
PY
# The control's forwarder, inside A: a unix listener in the shared /tmp → A's proxy port.
cat >"$T_DIR/proj/fwd.py" <<'PY'
import os, socket, sys, threading
path = sys.argv[1]
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
os.chmod(path, 0o777)
srv.listen(8)
open("fwd-up", "w").close()
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    finally:
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass
while True:
    c, _ = srv.accept()
    u = socket.create_connection(("127.0.0.1", 3128))
    threading.Thread(target=pipe, args=(c, u), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c), daemon=True).start()
PY
chmod 644 "$T_DIR/projb/look.py" "$T_DIR/proj/fwd.py"

# run_pair [FORWARDER_PATH]: B starts first (an earlier session: the shadows blaude lays over
# /tmp's sockets at a start cannot know of what comes later) and waits; A starts, reaches the
# server itself, and (for the control) starts the forwarder; B looks while A runs, and the host's
# listening unix and TCP sockets are listed with their processes. B's output in $OUT, A's own
# fetch in $SELF, the listing in $LISTEN, A's blaude pid in $APID.
run_pair() {
  rm -f "$T_DIR/proj/a-up" "$T_DIR/proj/b-done" "$T_DIR/proj/fwd-up" "$T_DIR/proj/self" \
    "$T_DIR/projb/go" "$T_DIR/projb/b-up" "$T_DIR/projb/out"
  (cd "$T_DIR/projb" && as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin "$BLAUDE" --exec sh -c \
    'touch b-up; i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; python3 look.py >out' \
    </dev/null >/dev/null 2>"$T_DIR/b.err") &
  local b=$!
  wait_until test -e "$T_DIR/projb/b-up"
  local fwd=""
  [ -n "${1:-}" ] && fwd="python3 fwd.py '$1' & i=0; while [ ! -e fwd-up ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done;"
  (cd "$T_DIR/proj" && as_nobody env -i HOME="$HOME_A" PATH=/usr/bin:/bin "$BLAUDE" --allow-domain "$W" --exec sh -c \
    "curl -sS --max-time 10 http://$W/self >self 2>&1; $fwd touch a-up; i=0; while [ ! -e b-done ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done" \
    </dev/null >/dev/null 2>"$T_DIR/a.err") &
  local a=$!
  wait_until test -e "$T_DIR/proj/a-up"
  APID=$(pgrep -u 65534 -f -- "--allow-domain $W --exec sh -c" | head -n 1 || true)
  LISTEN=$(ss -xlpH 2>/dev/null; ss -tlpH 2>/dev/null)
  touch "$T_DIR/projb/go"
  wait $b || true
  OUT=$(cat "$T_DIR/projb/out" 2>/dev/null)
  SELF=$(cat "$T_DIR/proj/self" 2>/dev/null)
  touch "$T_DIR/proj/b-done"
  wait $a || true
}

# A listener of the same user on the host, for the listing's control.
# It ends when the test does (a stop file), not by a kill of a pid that may be setpriv's.
as_nobody "$NET_PY" -c "import os,socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); open(sys.argv[1]+'.up','w').close()
while not os.path.exists(sys.argv[1]+'.stop') and time.sleep(0.2) is None: pass" "$T_DIR/shared/host.sock" \
  </dev/null >/dev/null 2>&1 &
at_exit "touch '$T_DIR/shared/host.sock.stop'; wait $!"
wait_until test -e "$T_DIR/shared/host.sock.up"

run_pair
log "attack: $(grep -c . <<<"$OUT") lines; A's blaude pid ${APID:-none}"
check "B could read the host's listening sockets" grep -Eq '^listening [1-9]' <<<"$OUT"
check "A reached the server through its own proxy" grep -q "body:/self" <<<"$SELF"
check "B reaches A's server through no socket it can name" \
  sh -c '! printf "%s\n" "$1" | grep -q "^answer .* HTTP/1.1 200 OK$"' sh "$OUT"
check "A's blaude was found on the host" test -n "${APID:-}"
# But its control socket for `blaude net log/allow` when the user has a runtime dir: under /run,
# which B's sandbox replaces with a tmpfs (B sees its name in /proc/net/unix and tries it above).
check "... and holds no listening socket, unix or TCP, but its control socket in a runtime dir under /run" \
  sh -c '! printf "%s\n" "$1" | grep "pid=$2," | grep -vq "^u_str  *LISTEN .* /run/user/65534/blaude/net-$2\.sock "' \
  sh "$LISTEN" "${APID:-x}"
check "control: the same listing shows the test's own listener of that user, with its pid" \
  sh -c 'printf "%s\n" "$1" | grep -F "$2" | grep -Eq "pid=[0-9]+,"' sh "$LISTEN" "$T_DIR/shared/host.sock"

FWD="$T_DIR/shared/proxy.sock"  # the shared /tmp: where B can reach it
run_pair "$FWD"
log "control: $(grep "$FWD" <<<"$OUT" || echo "nothing at $FWD")"
check "control: B finds A's proxy at a path in the shared /tmp and reaches the server through it" \
  grep -qx "answer $FWD HTTP/1.1 200 OK" <<<"$OUT"
finish
