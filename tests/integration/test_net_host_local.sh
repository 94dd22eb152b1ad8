#!/usr/bin/env bash
# Proxy mode and the host's own addresses. A service listening on all interfaces answers on every
# address of the host, not only on 127.0.0.1; with `--allow-domain '*'` the proxy must not reach
# it through the host's public (non-loopback, non-private) address. The test owns a network
# namespace (unshare -n, as root) whose interface holds 203.0.114.5 (a public address,
# outside every special-use range), starts a web server on 0.0.0.0 there and runs the real blaude
# as uid 65534 in that namespace. Attack: `*` to that address, and to its IPv4-mapped form, gets
# 403 naming "an address of this host" (any other public address `*` reaches: the unit tests).
# Controls: the server answers there, and the address's own rule reaches it through the proxy.
if [ -z "${BLAUDE_IN_NETNS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to own a network namespace"; exit 77; }
  exec unshare -n env BLAUDE_IN_NETNS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

# On lo (a dummy interface needs a kernel module a container may lack): an address is the host's
# whichever interface holds it.
ip link set lo up
ip addr add 203.0.114.5/32 dev lo scope global
net_prereqs
check_eq "the namespace's global address is the public-class one" "203.0.114.5" "$HOST_IP"
net_world
net_start WEB http 0.0.0.0
A="203.0.114.5:$WEB_PORT"

set +e
star=$(bl --allow-domain '*' --exec curl -s -w ' %{http_code}' "http://$A/star" 2>/dev/null)
v6=$(bl --allow-domain '*' --exec curl -s -w ' %{http_code}' "http://[::ffff:203.0.114.5]:$WEB_PORT/v6" 2>/dev/null)
named=$(bl --allow-domain "$A" --exec curl -s "http://$A/named" 2>/dev/null)
direct=$(curl -s "http://$A/direct")
set -e
check_eq "* does not reach the host's own public address (403, the class named)" \
  "blaude: $A is an address of this host and needs its own rule; allow with --allow-domain $A
 403" "$star"
check "... nor its IPv4-mapped form" grep -q "is an address of this host" <<<"$v6"
check_eq "control: the server answers on that address" "body:/direct" "$direct"
check_eq "control: the address's own rule reaches it through the proxy" "body:/named" "$named"
check "the refusals are logged" grep -q "net: refused GET $A" <(net_log)
finish
