# Helpers for the network tests (source after lib.sh): servers on free ports, the host's own
# address, and blaude run as the unprivileged user in a project dir of the test.
NET_PY=/usr/bin/python3
NET_SERVERS="$BLAUDE_SRC/tests/integration/net_servers.py"

# The host's first global IPv4 address: reachable on the host, but only through the proxy from
# a sandbox in proxy mode (it is not loopback, so NO_PROXY does not cover it).
net_host_ip() { ip -4 -o addr show scope global 2>/dev/null | awk '{sub("/.*", "", $4); print $4; exit}'; }

# net_start NAME MODE ARGS...: starts net_servers.py MODE in the background; waits for its port
# (sets NAME_PORT) and stops it at exit by its pid.
net_start() {
  local name=$1 mode=$2; shift 2
  local pf="$T_DIR/$name.port"
  "$NET_PY" "$NET_SERVERS" "$mode" "$pf" "$@" >"$T_DIR/$name.log" 2>&1 &
  local pid=$!
  at_exit "kill $pid"
  wait_until test -s "$pf" || { echo "server $name did not start:" >&2; cat "$T_DIR/$name.log" >&2; return 1; }
  printf -v "${name}_PORT" '%s' "$(cat "$pf")"
}

# A user world for uid 65534: HOME and a project dir under the test dir.
net_world() {
  mkdir -p "$T_DIR/home" "$T_DIR/proj"
  chown 65534:65534 "$T_DIR/home" "$T_DIR/proj"
}

# bl ARGS...: the real blaude as uid 65534, in the project, with a minimal environment (plus
# any NAME=VALUE given in BL_ENV, space-separated). stdin is /dev/null (pipes mode).
bl() {
  # shellcheck disable=SC2086
  (cd "$T_DIR/proj" && as_nobody env -i HOME="$T_DIR/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    ${BL_ENV:-} "$BLAUDE" "$@" </dev/null)
}

# The unprivileged user's blaude log (decisions of the proxy are there).
net_log() { cat "$T_DIR/home/.local/state/blaude/blaude.log" 2>/dev/null; }

# Prerequisites: real bwrap that makes user + network namespaces as uid 65534, and a host address.
net_prereqs() {
  need_sandbox
  as_nobody bwrap --unshare-user --unshare-net --ro-bind / / true 2>"$T_DIR/netns.err" ||
    host_lacks "bwrap cannot create a network namespace as uid 65534: $(cat "$T_DIR/netns.err")"
  command -v curl >/dev/null || missing "curl is not installed"
  HOST_IP=$(net_host_ip)
  [ -n "$HOST_IP" ] || host_lacks "this host has no global IPv4 address to test against"
}
