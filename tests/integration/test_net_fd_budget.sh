#!/usr/bin/env bash
# Proxy mode's descriptor budget, through the real blaude as uid 65534: 300 CONNECT tunnels held
# open at once, each then used. At a soft and hard RLIMIT_NOFILE of 1024 (a desktop's default,
# which blaude cannot raise past the hard limit), the proxy must cap its connections at what
# 1024 descriptors hold and answer the rest 503, never cut a tunnel it established, and say at
# exit how many it turned away. With a soft limit of 1024 under a higher hard one (blaude raises
# its own toward it) all 300 work: the control that the flood is real and that the cap comes
# from the limit. Also: the
# sandbox's command gets the limit blaude had, not the raised one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
cp "$BLAUDE_SRC/tests/integration/net_flood.py" "$T_DIR/proj/flood.py"
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"

# bl_limit SOFT:HARD ARGS...: bl under that descriptor limit.
bl_limit() {
  local l=$1; shift
  (cd "$T_DIR/proj" && prlimit --nofile="$l" setpriv --reuid=65534 --regid=65534 --clear-groups \
    env -i HOME="$T_DIR/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "$BLAUDE" "$@" </dev/null)
}
set +e
low=$(bl_limit 1024:1024 --allow-domain "$W" --exec python3 flood.py tunnels 300 "$W" 2>"$T_DIR/low.err")
HARD=$(ulimit -Hn)  # what this machine allows; raising past it needs CAP_SYS_RESOURCE
[ "$HARD" = unlimited ] || [ "$HARD" -ge 2048 ] || host_lacks "a hard descriptor limit above 2048 for the control (ulimit -Hn: $HARD)"
high=$(bl_limit "1024:$HARD" --allow-domain "$W" --exec python3 flood.py tunnels 300 "$W" 2>"$T_DIR/high.err")
inside=$(bl_limit "1024:$HARD" --allow-domain "$W" --exec sh -c 'ulimit -Sn; ulimit -Hn' 2>/dev/null)
set -e
log "1024:1024: $low; 1024:$HARD: $high"
# Past the cap, answers (up to 64); the relay inside takes 160 at once, the rest are closed (other=).
check "soft 1024: no established tunnel was cut" grep -Eq "broken=0 " <<<"$low"
check "... the ones past the cap were answered 503" grep -Eq "turned=[1-9][0-9]* " <<<"$low"
ok=$(sed -E 's/^ok=([0-9]+).*/\1/' <<<"$low")
check_eq "... and the cap worked: what 1024 descriptors hold" 128 "${ok:-0}"
check "... the exit says how many were turned away" grep -Eq "the proxy turned away [0-9]+ connections at its limit" "$T_DIR/low.err"
check "... the log names the cap and the limit" grep -q "net: up to 128 connections at once (1024 descriptors)" <(net_log)
check_eq "control: with a hard limit to raise to, all 300 work" "ok=300 turned=0 broken=0 other=0" "$high"
check "control: ... and nothing is said at exit" sh -c "! grep -q 'turned away' '$T_DIR/high.err'"
check_eq "the command inside has the limit blaude was given, not the raised one" "1024
$HARD" "$inside"
finish
