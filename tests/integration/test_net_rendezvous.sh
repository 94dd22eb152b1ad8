#!/usr/bin/env bash
# Proxy mode's socket is not where another sandbox can reach it. Session B (the default mode,
# which shares the host's /tmp, with no rule of its own) starts first; session A then runs in
# proxy mode allowing one web server; while it runs, B looks for any proxy socket it can see and
# asks it for A's destination. Attack: B finds none and gets nothing through. Control: A's socket put under /tmp
# (XDG_STATE_HOME there, the place it had when XDG_RUNTIME_DIR was unset): B finds it and
# reaches the server through A's proxy and A's allowlist, so the attack's check would see it.
# Real blaude and bwrap as uid 65534; A's HOME is outside /tmp (a user's home is not in /tmp).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"
HOME_A=$(mktemp -d /var/tmp/blaude-rendezvous.XXXXXX)
chmod 755 "$HOME_A"
chown 65534:65534 "$HOME_A"
at_exit_late "rm -rf '$HOME_A'"
mkdir -p "$T_DIR/projb"
chown 65534:65534 "$T_DIR/projb"
cat >"$T_DIR/projb/look.py" <<PY
import os, socket, sys
found = []
for top in ("/tmp", "/var/tmp", "/run", os.environ.get("HOME", "/nonexistent")):
    for d, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            try:
                import stat
                if stat.S_ISSOCK(os.lstat(p).st_mode) and f == "proxy.sock":
                    found.append(p)
            except OSError:
                pass
print("found", len(found))
for p in found:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(p)
        s.sendall(b"GET http://$W/through HTTP/1.1\r\nHost: $W\r\n\r\n")
        print("answer", s.recv(4096).split(b"\r\n")[0].decode())
    except OSError as e:
        print("error", e)
PY
chmod 644 "$T_DIR/projb/look.py"

# run_pair STATE_HOME_FOR_A: B starts first (an earlier session: the shadows blaude lays over
# /tmp's sockets at a start cannot know of a proxy that comes later) and waits; A starts; B looks
# while A runs. B's output in $OUT.
run_pair() {
  rm -f "$T_DIR/proj/a-up" "$T_DIR/proj/b-done" "$T_DIR/projb/go" "$T_DIR/projb/b-up" "$T_DIR/projb/out"
  (cd "$T_DIR/projb" && as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin "$BLAUDE" --exec sh -c \
    'touch b-up; i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; python3 look.py >out' \
    </dev/null >/dev/null 2>"$T_DIR/b.err") &
  local b=$!
  wait_until test -e "$T_DIR/projb/b-up"
  (cd "$T_DIR/proj" && setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$HOME_A" \
    PATH=/usr/bin:/bin ${1:+XDG_STATE_HOME="$1"} "$BLAUDE" --allow-domain "$W" --exec sh -c \
    'touch a-up; i=0; while [ ! -e b-done ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done' \
    </dev/null >/dev/null 2>"$T_DIR/a.err") &
  local a=$!
  wait_until test -e "$T_DIR/proj/a-up"
  touch "$T_DIR/projb/go"
  wait $b || true
  OUT=$(cat "$T_DIR/projb/out" 2>/dev/null)
  touch "$T_DIR/proj/b-done"
  wait $a || true
}

run_pair ""
log "attack: $OUT"
check "A's proxy ran (its socket is in A's state dir, outside /tmp)" test -d "$HOME_A/.local/state/blaude"
# B may find other tests' proxies (their homes are under /tmp); none of those allows A's server.
check "B, sharing the host's /tmp, gets through to A's server through no proxy" \
  sh -c '! printf "%s\n" "$1" | grep -qx "answer HTTP/1.1 200 OK"' sh "$OUT"

CTL="$T_DIR/ctl-state"  # under /tmp: where B can look
mkdir -p "$CTL"
chown 65534:65534 "$CTL"
run_pair "$CTL"
log "control: $OUT"
check "control: with A's socket under /tmp, B finds it and reaches the server through A's proxy" \
  grep -qx "answer HTTP/1.1 200 OK" <<<"$OUT"
finish
