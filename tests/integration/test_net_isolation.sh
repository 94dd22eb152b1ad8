#!/usr/bin/env bash
# Proxy mode's network namespace, with the real blaude and bwrap as uid 65534:
#  - no unix socket of the host is reachable through it: an abstract listener, the real X
#    server's @/tmp/.X11-unix/X<n> (xdpyinfo) and a real D-Bus bus on unix:abstract= (dbus-send).
#    Inside they fail with ECONNREFUSED: the name does not exist in this namespace. Controls:
#    the same clients with --no-sandbox connect, and in the default mode the connect either works
#    or is refused by Landlock's scoping (EPERM), never "no such name": that is the namespace.
#  - the relay: a sandboxed process cannot read its memory maps or descriptors; killing it loses
#    only the sandbox's own network (the session goes on, blaude ends normally).
#  - nothing of the proxy's is made on the host's disk (the relay reaches it through a socketpair).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
cp "$BLAUDE_SRC/tests/integration/net_probe.py" "$T_DIR/proj/probe.py"
for t in Xvfb xdpyinfo dbus-daemon dbus-send ss; do command -v $t >/dev/null || missing "$t is not installed"; done
ALLOW=(--allow-domain example.com)

# --- an abstract listener of the test's own ---------------------------------------------------
ABS="blaude-net-test-$$-$RANDOM"
"$NET_PY" "$NET_SERVERS" abstract "$ABS" "$T_DIR/abs.log" &
at_exit "kill $!"
wait_until test -e "$T_DIR/abs.log.ready"
set +e
in_proxy=$(bl "${ALLOW[@]}" --exec python3 probe.py abstract "$ABS" 2>&1)
ctl_host=$(bl --no-sandbox --exec python3 probe.py abstract "$ABS" 2>/dev/null)
in_default=$(bl --exec python3 probe.py abstract "$ABS" 2>&1)
set -e
check_eq "proxy mode: a host abstract socket is not there (no such name in this namespace)" ECONNREFUSED "$in_proxy"
check_eq "control: --no-sandbox connects to it" connected "$ctl_host"
log "default mode: $in_default"
check "control: the default mode connects, or Landlock refuses it; it is never missing there" \
  grep -Eqx "connected|EPERM" <<<"$in_default"

# --- the real X server's abstract socket --------------------------------------------------------
Xvfb -displayfd 5 -nolisten tcp -screen 0 320x240x24 5>"$T_DIR/xdisplay" >/dev/null 2>&1 &
at_exit "kill $!"
wait_until test -s "$T_DIR/xdisplay"
DISP=":$(cat "$T_DIR/xdisplay")"
set +e
x_proxy=$(bl "${ALLOW[@]}" --env DISPLAY="$DISP" --exec sh -c "xdpyinfo >/dev/null 2>&1; echo rc=\$?; \
  python3 probe.py abstract /tmp/.X11-unix/X${DISP#:}" 2>&1)
x_host=$(BL_ENV="DISPLAY=$DISP" bl --no-sandbox --exec sh -c 'xdpyinfo | grep -c "^screen #"' 2>/dev/null)
set -e
check_eq "proxy mode: the X server is unreachable (xdpyinfo fails; its abstract socket is not there)" \
  "rc=1
ECONNREFUSED" "$x_proxy"
check_eq "control: --no-sandbox, xdpyinfo talks to it" 1 "$x_host"

# --- a real D-Bus bus on an abstract address -----------------------------------------------------
DBUS_ADDR="unix:abstract=/tmp/blaude-net-dbus-$$-$RANDOM"
as_nobody dbus-daemon --session --nofork --address="$DBUS_ADDR" --print-address=1 >"$T_DIR/dbus.addr" 2>"$T_DIR/dbus.err" &
at_exit "kill $!"
wait_until test -s "$T_DIR/dbus.addr"
LIST="dbus-send --bus=$DBUS_ADDR --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListNames"
set +e
d_proxy=$(bl "${ALLOW[@]}" --exec sh -c "$LIST >/dev/null 2>\$HOME/err; echo rc=\$?; grep -o 'Connection refused' \$HOME/err" 2>&1)
d_host=$(bl --no-sandbox --exec sh -c "$LIST | grep -c org.freedesktop.DBus" 2>/dev/null)
set -e
check_eq "proxy mode: the D-Bus bus on unix:abstract= is unreachable" "rc=1
Connection refused" "$d_proxy"
check "control: --no-sandbox, dbus-send lists its names" test "${d_host:-0}" -ge 1

# --- the relay: private, and killing it loses only the sandbox's own network ------------------------
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"
cat >"$T_DIR/proj/kill-relay.sh" <<SH
curl -sS http://$W/before
relay=\$(for p in /proc/[0-9]*; do tr '\0' ' ' <\$p/cmdline 2>/dev/null | grep -q '^/run/blaude/blaude __net-relay' && echo \${p#/proc/}; done | head -n 1)
[ -n "\$relay" ] && echo relay-found
cat /proc/\$relay/maps >/dev/null 2>&1 && echo relay-maps-readable || echo relay-maps-denied
ls /proc/\$relay/fd >/dev/null 2>&1 && echo relay-fds-readable || echo relay-fds-denied
cat /proc/\$\$/maps >/dev/null 2>&1 && echo own-maps-readable
kill -9 \$relay && echo relay-killed
n=0  # bounded: a relay that outlives the kill fails the check below instead of hanging the test
while [ \$n -lt 1000 ] && [ -e /proc/\$relay/cmdline ] && tr '\0' ' ' </proc/\$relay/cmdline | grep -q __net-relay; do n=\$((n + 1)); sleep 0.01; done
curl -sS http://$W/after >/dev/null 2>&1 || echo after-kill-no-network
echo session-goes-on
SH
set +e
kr=$(bl --allow-domain "$W" --exec sh kill-relay.sh 2>"$T_DIR/kill.err"); kr_rc=$?
set -e
check_eq "the relay: its maps and fds are closed to the sandbox; killing it ends only the network" "body:/before
relay-found
relay-maps-denied
relay-fds-denied
own-maps-readable
relay-killed
after-kill-no-network
session-goes-on" "$kr"
check_eq "... and blaude ends with the command's status" 0 "$kr_rc"

# --- nothing on the host's disk --------------------------------------------------------------------
check "the proxy served the relay's control channel" grep -q "net: proxy serving the relay's control channel" <(net_log)
check "... and made no socket or directory in blaude's state dir (where it was without XDG_RUNTIME_DIR)" \
  test -z "$(find "$T_DIR/home/.local/state/blaude" -mindepth 1 \( -type s -o -name 'blaude-net-*' \) 2>/dev/null)"

finish
