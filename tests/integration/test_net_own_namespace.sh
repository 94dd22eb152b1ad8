#!/usr/bin/env bash
# The default mode where Landlock cannot scope abstract unix sockets (Linux < 6.12; forced here
# with BLAUDE_LANDLOCK_SCOPE=off): the sandbox gets a network namespace of its own, joined to
# the host's network by pasta (net/netns.hpp). Real blaude as uid 65534, a real Xvfb.
# - Attack: from inside, the X server's abstract socket @/tmp/.X11-unix/XN (keystroke injection
#   into the desktop) cannot be connected to. Controls: outside any sandbox the same client
#   completes the X11 handshake, and inside too with the namespace off (BLAUDE_NETNS=off: the
#   behaviour before, with its warning).
# - Nothing lost: a TCP service on the host's 127.0.0.1 and one on its ::1 (reached at the
#   sandbox's own loopback), the host's DNS resolver over UDP and outbound TCP to it, each with
#   its control outside.
# - pasta missing: the warning says to install it (and the socket is reachable, as before);
#   pasta failing: nothing runs, and blaude says why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
command -v pasta >/dev/null || missing "pasta (package passt)"
command -v Xvfb >/dev/null || missing "Xvfb"
[ -c /dev/net/tun ] || host_lacks "/dev/net/tun does not exist"
# udev makes it crw-rw-rw-; a machine without udev (a container, a CI image) may have it 0600.
# As root, the test makes it usable for its run and puts the mode back at exit.
TUN_MODE=$(stat -c %a /dev/net/tun)
if ! as_nobody sh -c ': <>/dev/net/tun' 2>/dev/null && [ "$(id -u)" = 0 ]; then
  at_exit "chmod $TUN_MODE /dev/net/tun"
  chmod 666 /dev/net/tun
fi
as_nobody sh -c ': <>/dev/net/tun' 2>/dev/null ||
  host_lacks "/dev/net/tun is not usable by uid 65534 (it is normally crw-rw-rw-)"
net_world
BL_ENV="BLAUDE_LANDLOCK_SCOPE=off"

# The X server: a free display, its number written once it accepts connections.
Xvfb -displayfd 3 -nolisten tcp 3>"$T_DIR/display" >"$T_DIR/xvfb.log" 2>&1 &
XPID=$!
at_exit "kill $XPID"
wait_until test -s "$T_DIR/display" || { cat "$T_DIR/xvfb.log"; fail "Xvfb did not start"; finish; exit; }
DISP=$(tr -d '\n' <"$T_DIR/display")

# An X11 connection set-up over the abstract socket: X11-OK when the server accepts it.
cat >"$T_DIR/x11.py" <<'EOF'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(b"\0/tmp/.X11-unix/X" + sys.argv[1].encode())
except OSError as e:
    print("REFUSED", e.errno); sys.exit()
s.sendall(struct.pack("<cxHHHHxx", b"l", 11, 0, 0, 0))
r = s.recv(8)
print("X11-OK" if r[:1] == b"\x01" else "X11-ANSWER %r" % r[:1])
EOF
# TCP: "ADDR PORT" → the first line the server answers to GET /probe, or the error.
cat >"$T_DIR/tcp.py" <<'EOF'
import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
    s.sendall(b"GET /probe HTTP/1.0\r\nHost: x\r\n\r\n")
    print(s.makefile().read().splitlines()[-1])
except OSError as e:
    print("FAILED", e)
EOF
# DNS: one query to the first nameserver of /etc/resolv.conf (as this side sees it) for the
# root's NS records; ANSWERED with any reply.
cat >"$T_DIR/dns.py" <<'EOF'
import socket, struct
ns = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")][0]
q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0) + b"\x00" + struct.pack(">HH", 2, 1)
s = socket.socket(socket.AF_INET6 if ":" in ns else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
try:
    s.sendto(q, (ns, 53)); r = s.recv(512)
    print("ANSWERED" if r[:2] == b"\x42\x42" else "GARBLED")
except OSError as e:
    print("NO ANSWER", ns, e)
EOF
chmod 644 "$T_DIR"/*.py

out=$(as_nobody /usr/bin/python3 "$T_DIR/x11.py" "$DISP")
check_eq "control: outside, the X server accepts a client on its abstract socket" X11-OK "$out"

inside=$(BL_ENV="$BL_ENV BLAUDE_NETNS=off" bl --exec /usr/bin/python3 "$T_DIR/x11.py" "$DISP" 2>"$T_DIR/off.err")
check_eq "control: with the namespace off (as before), the sandbox reaches the X server" X11-OK "$inside"
check "control: ... and blaude warns that it is reachable" grep -q "abstract unix sockets.*BLAUDE_NETNS=off" "$T_DIR/off.err"
check "control: ... and the layers line names the missing scope" grep -q "^blaude: layers: .*NO scope on abstract sockets" "$T_DIR/off.err"

inside=$(bl --exec /usr/bin/python3 "$T_DIR/x11.py" "$DISP" 2>"$T_DIR/on.err")
check_eq "attack: in its own namespace, the sandbox cannot connect to the X server's abstract socket" \
  "REFUSED 111" "$inside"
check "no warning about abstract sockets then" not grep -q "abstract" "$T_DIR/on.err"
bl --debug --exec true 2>"$T_DIR/debug.err" >/dev/null
check "--debug: the layers line says the namespace stands in for the scope" \
  grep -q "^blaude: layers: .*uts, net; abstract sockets: the sandbox's own network namespace;.*network: host's, through pasta" "$T_DIR/debug.err"
# blaude's pasta (its process is named passt.avx2 or passt: found by its options): there during
# a session (the control), gone after it.
pasta_running() { pgrep -u 65534 -f -- '--no-map-gw --tcp-ports none' >/dev/null; }
rm -f "$T_DIR/proj/started" "$T_DIR/proj/done"
bl --exec sh -c 'touch started; while [ ! -e done ]; do sleep 0.05; done' 2>/dev/null &
SESSION=$!
wait_until test -e "$T_DIR/proj/started" || true
check "control: during a session its pasta runs" pasta_running
touch "$T_DIR/proj/done"
wait "$SESSION" || true
check "the session left no pasta behind" not pasta_running

# --- nothing lost
net_start LO4 http 127.0.0.1
net_start LO6 http ::1
want="body:/probe"
check_eq "control: 127.0.0.1 answers outside" "$want" "$(as_nobody /usr/bin/python3 "$T_DIR/tcp.py" 127.0.0.1 "$LO4_PORT")"
check_eq "control: ::1 answers outside" "$want" "$(as_nobody /usr/bin/python3 "$T_DIR/tcp.py" ::1 "$LO6_PORT")"
# Outbound TCP beyond the host: to its resolver's port 53, the one off-host service every host has.
NS=$(awk '/^nameserver/ {print $2; exit}' /etc/resolv.conf)
script="python3 $T_DIR/tcp.py 127.0.0.1 $LO4_PORT; python3 $T_DIR/tcp.py ::1 $LO6_PORT; python3 $T_DIR/dns.py"
script="$script; python3 -c 'import socket; socket.create_connection((\"$NS\", 53), timeout=10); print(\"CONNECTED\")'"
out=$(bl --exec sh -c "$script" 2>"$T_DIR/lost.err")
check_eq "inside: the host's 127.0.0.1 service at the sandbox's 127.0.0.1" "$want" "$(sed -n 1p <<<"$out")"
check_eq "inside: the host's ::1 service at the sandbox's ::1" "$want" "$(sed -n 2p <<<"$out")"
dns_out=$(as_nobody /usr/bin/python3 "$T_DIR/dns.py")
if [ "$dns_out" = ANSWERED ]; then
  check_eq "inside: the host's DNS resolver answers (it does outside)" ANSWERED "$(sed -n 3p <<<"$out")"
else
  log "the host's resolver does not answer outside either ($dns_out): DNS not compared"
fi
if as_nobody /usr/bin/python3 -c "import socket; socket.create_connection(('$NS', 53), timeout=10)" 2>/dev/null; then
  check_eq "inside: outbound TCP to $NS:53 (it connects outside)" CONNECTED "$(sed -n 4p <<<"$out")"
else
  log "$NS does not take TCP on port 53 outside either: outbound TCP not compared"
fi
check_eq "inside: the command's own exit status passes through" 7 \
  "$(bl --exec sh -c 'exit 7' 2>/dev/null; echo $?)"

# --- pasta missing, pasta failing: a PATH of the tools blaude runs, with or without a pasta
mkdir -p "$T_DIR/bin-none" "$T_DIR/bin-bad"
for d in bin-none bin-bad; do
  for t in bwrap sh; do ln -sf "$(command -v $t)" "$T_DIR/$d/$t"; done
done
printf '#!/bin/sh\necho "pasta: cannot do this here" >&2\nexit 1\n' >"$T_DIR/bin-bad/pasta"
chmod 755 "$T_DIR/bin-bad/pasta"
chmod 755 "$T_DIR"/bin-*
blp() {  # blp PATHDIR ARGS...: bl with only PATHDIR on the host's PATH
  (cd "$T_DIR/proj" && as_nobody env -i HOME="$T_DIR/home" PATH="$1" LANG=C.UTF-8 BLAUDE_LANDLOCK_SCOPE=off \
    "$BLAUDE" "${@:2}" </dev/null)
}
out=$(blp "$T_DIR/bin-none" --exec /usr/bin/python3 "$T_DIR/x11.py" "$DISP" 2>"$T_DIR/none.err")
check "without pasta: blaude says to install it" grep -q "pasta is not installed.*apt install passt" "$T_DIR/none.err"
check_eq "without pasta: the host's network as before (the socket reachable, as the warning says)" X11-OK "$out"
rm -f "$T_DIR/proj/ran"
rc=0
blp "$T_DIR/bin-bad" --exec /usr/bin/touch "$T_DIR/proj/ran" 2>"$T_DIR/bad.err" || rc=$?
check_eq "pasta failing: blaude exits 1" 1 "$rc"
check "pasta failing: nothing ran" not test -e "$T_DIR/proj/ran"
check "pasta failing: blaude says why, with pasta's own words" \
  grep -q "network could not be set up: .*pasta: cannot do this here; nothing ran" "$T_DIR/bad.err"

# --- /dev/net/tun not usable by the user: the warning says how to fix it, and the session runs
if [ "$(id -u)" = 0 ]; then
  chmod 600 /dev/net/tun
  out=$(bl --exec /usr/bin/python3 "$T_DIR/x11.py" "$DISP" 2>"$T_DIR/notun.err")
  chmod 666 /dev/net/tun
  check "tun unusable: the warning names /dev/net/tun and the fix" \
    grep -q "pasta cannot run here.*chmod 666 /dev/net/tun" "$T_DIR/notun.err"
  check_eq "tun unusable: the host's network as before (the socket reachable, as the warning says)" X11-OK "$out"
fi
finish
