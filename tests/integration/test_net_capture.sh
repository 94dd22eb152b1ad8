#!/usr/bin/env bash
# Proxy mode's transparent capture: programs that ignore HTTP(S)_PROXY obey the allowlist. The
# test owns a network namespace (its loopback holds the destinations) and a mount namespace whose
# /etc/hosts names them (allowed.test, other.test, git.test → 127.0.0.1: hosts-file names, which
# an exact rule may follow to loopback); the real blaude runs as uid 65534 there. One session
# checks: names resolve inside to the synthetic range (the relay answers DNS; the sandbox's own
# /etc/hosts names only localhost); a raw client (curl --noproxy '*', bash's /dev/tcp) reaches
# an allowed name:port; ssh reaches an allowed name on port 22 (a banner exchange with a TCP
# server on :22: no sshd here; test_net_capture_ssh has a real one, and git over it); a name
# that is not allowed, on the same server and port, is refused and named in the log and the
# exit summary (its control: the allowed name, same server and port); an IP literal has no
# route; the proxy-aware path (CONNECT) still works; and no process in the sandbox keeps a
# capability of the set-up. A port no rule names is not captured (the connection is refused by
# the kernel, unseen); `blaude net allow name:PORT` from another terminal captures it from then
# on, in the same session.
if [ -z "${BLAUDE_IN_NETNS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root to own a network and a mount namespace"; exit 77; }
  exec unshare -n -m env BLAUDE_IN_NETNS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

ip link set lo up
ip addr add 203.0.114.5/32 dev lo scope global
printf '127.0.0.1 localhost\n127.0.0.1 allowed.test other.test git.test\n' >"$T_DIR/hosts"
mount --bind "$T_DIR/hosts" /etc/hosts
net_prereqs
command -v ssh >/dev/null || missing "ssh (openssh-client) is not installed"
net_world
net_start WEB http 127.0.0.1
net_start LATE http 127.0.0.1
P=$WEB_PORT Q=$LATE_PORT
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown 65534:65534 "$RT"
chmod 700 "$RT"

# An ssh server's first move, on port 22: its banner; the client's banner is written to a file.
"$NET_PY" -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 22)); s.listen(4); open(sys.argv[1] + ".ready", "w").close()
while True:
    c, _ = s.accept(); c.sendall(b"SSH-2.0-blaude_capture_test\r\n")
    line = c.makefile("rb").readline(); open(sys.argv[1], "ab").write(line); c.close()
' "$T_DIR/ssh.seen" >"$T_DIR/ssh.log" 2>&1 &
at_exit "kill $!"
wait_until test -e "$T_DIR/ssh.seen.ready"

set +e
BL_ENV="XDG_RUNTIME_DIR=$RT" bl --allow-domain "allowed.test:$P" --allow-domain git.test:22 --exec bash -c "
  echo dns=\$(getent ahostsv4 allowed.test | awk 'NR==1{print \$1}')
  echo hosts=\$(grep -c . /etc/hosts) resolv=\$(grep nameserver /etc/resolv.conf)
  echo raw=\$(curl -sS --noproxy '*' http://allowed.test:$P/raw)
  exec 3<>/dev/tcp/allowed.test/$P && printf 'GET /devtcp HTTP/1.0\r\n\r\n' >&3 && echo devtcp=\$(tail -n1 <&3)
  curl -sS --noproxy '*' http://other.test:$P/refused 2>/dev/null; echo refused=\$?
  curl -sS --noproxy '*' --connect-timeout 5 http://203.0.114.5:$P/literal 2>/dev/null; echo literal=\$?
  echo connect=\$(curl -sS -p http://allowed.test:$P/connect)
  ssh -v -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o ConnectTimeout=5 git@git.test true 2>&1 | grep -o 'remote software version [a-z_]*' | sed 's/^/ssh=/'
  echo caps=\$(cat /proc/[0-9]*/status 2>/dev/null | awk '/^Cap(Inh|Prm|Eff|Amb)/ && \$2 != \"0000000000000000\"' | wc -l)
  echo bnd=\$(cat /proc/[0-9]*/status | awk '/^Name/ {n = \$2} /^CapBnd/ && \$2 != \"0000000000000000\" {print n}' | sort -u)
  curl -sS --noproxy '*' http://allowed.test:$Q/early 2>/dev/null; echo early=\$?
  echo waiting-for-allow
  for _ in \$(seq 100); do [ -e allowed.flag ] && break; sleep 0.1; done
  # The relay hears of the port on its control channel, beside the answer to net allow: retried, bounded.
  for _ in \$(seq 50); do late=\$(curl -sS --noproxy '*' http://allowed.test:$Q/late 2>/dev/null) && break; sleep 0.1; done
  echo late=\$late
" >"$T_DIR/out" 2>"$T_DIR/err" &
SESSION=$!
wait_until grep -q waiting-for-allow "$T_DIR/out"
allow=$(as_nobody env -i HOME="$T_DIR/home" PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$RT" "$BLAUDE" net allow "allowed.test:$Q" 2>&1)
touch "$T_DIR/proj/allowed.flag"
wait "$SESSION"; rc=$?
out=$(cat "$T_DIR/out")
set -e
val() { sed -n "s/^$1=//p" <<<"$out"; }
log "session rc=$rc"; cat "$T_DIR/err" >&2; printf "%s\n" "$out"
check "a name resolves inside to the synthetic range 198.18.0.0/15" grep -Eq '^198\.1[89]\.' <<<"$(val dns)"
check_eq "... the sandbox's hosts file names localhost only, its resolv.conf the relay" \
  "3 resolv=nameserver 127.0.0.53" "$(val hosts)"
check_eq "a raw client (curl --noproxy '*') reaches the allowed name:port" "body:/raw" "$(val raw)"
check_eq "... and bash's /dev/tcp" "body:/devtcp" "$(val devtcp)"
check_eq "ssh to the allowed name on port 22 exchanges banners through capture" \
  "remote software version blaude_capture_test" "$(val ssh)"
check "... the server read the ssh client's banner" grep -q '^SSH-2.0-OpenSSH' "$T_DIR/ssh.seen"
check "a name that is not allowed (same server and port) is closed unanswered (curl 52 or 56)" grep -Eqx '52|56' <<<"$(val refused)"
check_eq "an IP literal has no route (curl: couldn't connect)" "7" "$(val literal)"
check_eq "control: the proxy-aware path (CONNECT) still works" "body:/connect" "$(val connect)"
check_eq "no process in the sandbox keeps a capability" "0" "$(val caps)"
# bwrap's own pid 1 (its reaper, never an exec) keeps them in its bounding set only.
check_eq "... nor one in its bounding set, but bwrap's reaper" "bwrap" "$(val bnd)"
check "the captured connections are the proxy's decisions, by name" grep -q "net: allowed CONNECT allowed.test:$P " <(net_log)
check "... ssh's too" grep -q "net: allowed CONNECT git.test:22 " <(net_log)
check "... and the refusal, with the name" grep -q "net: refused CONNECT other.test:$P: other.test:$P is not allowed" <(net_log)
check_eq "a port no rule names is not captured (refused by the kernel, unseen)" "7" "$(val early)"
check "blaude net allow name:PORT from another terminal is answered" grep -q "allowed allowed.test:$Q" <<<"$allow"
check_eq "... and the same session captures that port from then on" "body:/late" "$(val late)"
check "the exit summary names the refused name:port" grep -q "refused 1 connection: other.test:$P" "$T_DIR/err"
finish
