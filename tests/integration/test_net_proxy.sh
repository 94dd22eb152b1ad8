#!/usr/bin/env bash
# Proxy mode with the real blaude and the real bwrap as uid 65534: allowed HTTP and
# HTTPS (CONNECT) with plain curl, against servers this test starts on the host; and what must
# fail, each with its reason and a control showing the same thing works without proxy mode:
# a destination that is not allowed (403 naming the host and the flag; CONNECT and SOCKS5 get
# their protocol's refusal), a direct connection around the proxy (no route), a name that
# resolves to loopback or a link-local literal, UDP and raw DNS. The host's NO_PROXY does not
# send traffic around the proxy, and the refusals end in one summary line after the session.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
cp "$BLAUDE_SRC/tests/integration/net_probe.py" "$T_DIR/proj/probe.py"

# Servers on the host: two HTTP (one allowed, one not) and one HTTPS with a certificate for the
# host's address, all on every address (so loopback and $HOST_IP both reach them).
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$HOST_IP" -addext "subjectAltName=IP:$HOST_IP" \
  -keyout "$T_DIR/key.pem" -out "$T_DIR/proj/ca.pem" >/dev/null 2>&1
net_start WEB http 0.0.0.0
net_start OTHER http 0.0.0.0
net_start TLS https 0.0.0.0 "$T_DIR/proj/ca.pem" "$T_DIR/key.pem"
chmod 644 "$T_DIR/proj/ca.pem"
W="$HOST_IP:$WEB_PORT" O="$HOST_IP:$OTHER_PORT" S="$HOST_IP:$TLS_PORT"
ALLOW=(--allow-domain "$W" --allow-domain "$S")
log "host $HOST_IP: web $WEB_PORT, other $OTHER_PORT, tls $TLS_PORT"

# --- allowed destinations, with plain curl (it reads http_proxy/HTTPS_PROXY) --------------------
set +e
out=$(bl "${ALLOW[@]}" --exec sh -c "curl -sS http://$W/hello; curl -sS --cacert ca.pem https://$S/tls; \
  curl -sS --proxy socks5h://127.0.0.1:3128 http://$W/socks" 2>"$T_DIR/allowed.err"); rc=$?
set -e
check_eq "allowed HTTP, HTTPS (CONNECT) and SOCKS5 work from inside" "body:/hello
body:/tls
body:/socks" "$out"
check_eq "... and the session ends 0, nothing refused, nothing on stderr" "0:" "$rc:$(cat "$T_DIR/allowed.err")"
check "... the proxy logged the HTTP decision" grep -q "net: allowed GET $W " <(net_log)
check "... and the CONNECT one" grep -q "net: allowed CONNECT $S " <(net_log)
check "... and the SOCKS5 one" grep -q "net: allowed SOCKS5 $W " <(net_log)

# --- bulk bytes through both hops (relay and proxy splice them in the kernel): intact each way ---
# 32 MiB down (plain HTTP and a CONNECT tunnel) and up (a POST body, whose first bytes ride with
# the request head), far more than the pumps' pipes and the sockets' buffers hold at once.
# Control: the same download without proxy mode has the hash computed here, so a mismatch in
# proxy mode would be the tunnel's.
N=33554432
want=$(python3 -c 'import hashlib, random, sys; n = int(sys.argv[1]); print(hashlib.sha256(random.Random(n).randbytes(n)).hexdigest())' $N)
set +e
bulk=$(bl "${ALLOW[@]}" --exec sh -c "curl -sS http://$W/bytes/$N | sha256sum | cut -d' ' -f1; \
  curl -sS --cacert ca.pem https://$S/bytes/$N | sha256sum | cut -d' ' -f1; \
  head -c $N /dev/urandom > up.bin; sha256sum < up.bin | cut -d' ' -f1; \
  curl -sS --data-binary @up.bin http://$W/sha256; curl -sS --cacert ca.pem --data-binary @up.bin https://$S/sha256; \
  rm -f up.bin" 2>"$T_DIR/bulk.err")
ctl_bulk=$(bl --exec sh -c "curl -sS --noproxy '*' http://$W/bytes/$N | sha256sum | cut -d' ' -f1" 2>&1)
set -e
line() { sed -n "$1p" <<<"$bulk"; }
check_eq "32 MiB down through the proxy (HTTP) arrive intact" "$want" "$(line 1)"
check_eq "... and through a CONNECT tunnel (TLS)" "$want" "$(line 2)"
check "... 32 MiB up (HTTP POST) arrive intact" test -n "$(line 3)" -a "$(line 3)" = "$(line 4)"
check_eq "... and up through the CONNECT tunnel" "$(line 3)" "$(line 5)"
check_eq "control: the same download without proxy mode has the same hash" "$want" "$ctl_bulk"

# --- a destination that is not allowed -----------------------------------------------------------
set +e
refused=$(bl "${ALLOW[@]}" --exec curl -s -w '%{http_code}' "http://$O/x" 2>/dev/null)
https=$(bl "${ALLOW[@]}" --exec sh -c "curl -sS --cacert ca.pem https://$O/x 2>&1; echo rc=\$?" 2>/dev/null)
socks=$(bl "${ALLOW[@]}" --exec sh -c "curl -sS --proxy socks5h://127.0.0.1:3128 http://$O/x 2>&1; echo rc=\$?" 2>/dev/null)
ctl=$(bl --exec curl -sS "http://$O/x" 2>&1)
set -e
check_eq "not allowed: plain HTTP gets 403, with a one-line body naming the host and the flag" \
  "blaude: $O is not allowed; allow with --allow-domain $O
403" "$refused"
check "... CONNECT is refused with 403" grep -q "CONNECT tunnel failed, response 403" <<<"$https"
check "... SOCKS5 gets its refusal (not allowed by ruleset)" grep -Eq "rc=97" <<<"$socks"
check "... logged with the reason" grep -q "net: refused CONNECT $O: $O is not allowed" <(net_log)
check_eq "control: the same request without proxy mode reaches it" "body:/x" "$ctl"

# --- the summary line after the session ------------------------------------------------------------
set +e
bl "${ALLOW[@]}" --exec sh -c "curl -s -o /dev/null http://$O/a; curl -s -o /dev/null http://$O/b; \
  curl -s -o /dev/null http://10.0.0.5:22/; curl -s -o /dev/null http://$W/ok" >/dev/null 2>"$T_DIR/sum.err"
set -e
check_eq "one summary line on stderr after the session" \
  "blaude: refused 3 connections: $O (2), 10.0.0.5:22; allow with --allow-domain" "$(cat "$T_DIR/sum.err")"

# --- around the proxy: no route --------------------------------------------------------------------
set +e
direct=$(bl "${ALLOW[@]}" --exec python3 probe.py tcp "$HOST_IP" "$WEB_PORT" 2>&1)
noproxy=$(bl "${ALLOW[@]}" --exec sh -c "curl -sS --noproxy '*' http://$W/ 2>&1; echo rc=\$?" 2>&1)
loop=$(bl "${ALLOW[@]}" --exec python3 probe.py tcp 127.0.0.1 "$OTHER_PORT" 2>&1)
ctl_direct=$(bl --exec python3 probe.py tcp "$HOST_IP" "$WEB_PORT" 2>&1)
ctl_loop=$(bl --exec python3 probe.py tcp 127.0.0.1 "$OTHER_PORT" 2>&1)
set -e
check_eq "a direct TCP connection to the host finds no route" ENETUNREACH "$direct"
check "... curl --noproxy '*' fails to connect (exit 7)" grep -q "rc=7" <<<"$noproxy"
check_eq "... the host's loopback is not the sandbox's" ECONNREFUSED "$loop"
check_eq "control: without proxy mode the same connect works" connected "$ctl_direct"
check_eq "control: ... and so does the host's loopback" connected "$ctl_loop"

# --- names and literals that resolve to refused addresses -----------------------------------------
set +e
lo=$(bl --allow-domain '*' --exec curl -s --noproxy '' -w ' %{http_code}' "http://localhost:$WEB_PORT/" 2>/dev/null)
ll=$(bl --allow-domain '*' --exec curl -s --noproxy '' -w ' %{http_code}' "http://169.254.169.254/latest/meta-data/" 2>/dev/null)
ok_lo=$(bl --allow-domain "localhost:$WEB_PORT" --exec curl -s --noproxy '' "http://localhost:$WEB_PORT/named" 2>/dev/null)
set -e
check_eq "* does not reach a name that resolves to loopback (403, reason named)" \
  "blaude: localhost resolves to 127.0.0.1, a loopback address, which needs a rule for localhost; allow with --allow-domain localhost:$WEB_PORT
 403" "$lo"
check_eq "* does not reach the cloud metadata address" \
  "blaude: 169.254.169.254:80 is a cloud metadata address and needs its own rule; allow with --allow-domain 169.254.169.254:80
 403" "$ll"
check_eq "control: the name allowed explicitly reaches the host's loopback" "body:/named" "$ok_lo"

# --- UDP and raw DNS -------------------------------------------------------------------------------
net_start UDP udp "$HOST_IP" "$T_DIR/udp.got"
NS=$(awk '/^nameserver/ {print $2; exit}' /etc/resolv.conf)
set +e
udp=$(bl "${ALLOW[@]}" --exec python3 probe.py udp "$HOST_IP" "$UDP_PORT" from-proxy-mode 2>&1)
dns=$(bl "${ALLOW[@]}" --exec python3 probe.py dns "$NS" 2>&1)
getent=$(bl "${ALLOW[@]}" --exec sh -c 'getent hosts deb.debian.org; echo rc=$?' 2>&1)
ctl_udp=$(bl --exec python3 probe.py udp "$HOST_IP" "$UDP_PORT" from-default-mode 2>&1)
ctl_dns=$(bl --exec python3 probe.py dns "$NS" 2>&1)
ctl_getent=$(bl --exec sh -c 'getent hosts deb.debian.org >/dev/null; echo rc=$?' 2>&1)
set -e
wait_until grep -q from-default-mode "$T_DIR/udp.got" || true
check_eq "UDP to the host: no route" ENETUNREACH "$udp"
check_eq "raw DNS to the host's resolver ($NS): no route" ENETUNREACH "$dns"
check "... names resolve inside only to transparent capture's synthetic range (the host's resolver is never asked)" \
  grep -Eq "^198\.1[89]\.[0-9]+\.[0-9]+ +deb\.debian\.org" <<<"$getent"
check_eq "control: without proxy mode the datagram is sent" sent "$ctl_udp"
check "control: ... and arrives, while proxy mode's never did" \
  sh -c "grep -q from-default-mode '$T_DIR/udp.got' && ! grep -q from-proxy-mode '$T_DIR/udp.got'"
check_eq "control: ... the resolver answers" answered "$ctl_dns"
check_eq "control: ... and names resolve" "rc=0" "$ctl_getent"

# --- the host's NO_PROXY cannot send allowed traffic around the proxy ------------------------------
set +e
np=$(BL_ENV="NO_PROXY=$HOST_IP no_proxy=$HOST_IP" bl "${ALLOW[@]}" --exec sh -c \
  "echo \"\$NO_PROXY|\$no_proxy|\$http_proxy|\$ALL_PROXY\"; curl -sS http://$W/np" 2>&1)
set -e
check_eq "inside, NO_PROXY is blaude's and the allowed request still goes through the proxy" \
  "localhost,127.0.0.1,::1|localhost,127.0.0.1,::1|http://127.0.0.1:3128|socks5h://127.0.0.1:3128
body:/np" "$np"

finish
