#!/usr/bin/env bash
# Proxy mode's surface, through the real blaude as uid 65534: usage errors for bad
# patterns and contradictions (nothing runs, nothing changes); --help, --print-policy and
# `blaude doctor` list the provider's default hosts and say which mode plain blaude uses;
# allow-domain lines in a project policy are trust-gated (a refused or untrusted policy opens
# nothing) and select proxy mode; no-default-domains in the user's policy drops the defaults and
# is refused in a project's; --dry-run shows the network namespace and the relay.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
net_world
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"

# --- usage errors: exit 2, the reason, and nothing ran ------------------------------------------
usage_case() {  # usage_case DESCRIPTION EXPECTED-FIRST-LINE ARGS...
  local d=$1 want=$2; shift 2
  set +e
  out=$(bl "$@" --exec touch ran 2>&1); rc=$?
  set -e
  check_eq "$d: exit 2" 2 "$rc"
  check_eq "$d: says why" "blaude: $want" "$(head -n 1 <<<"$out")"
  check "$d: nothing ran" not test -e "$T_DIR/proj/ran"
}
usage_case "a URL as pattern" '--allow-domain "https://example.com/": it is a URL, not a host (drop the scheme: write example.com)' \
  --allow-domain https://example.com/
usage_case "an unbracketed IPv6" '--allow-domain "::1:8080": an IPv6 address needs brackets (write [::1:8080], or [ADDRESS]:PORT for one port)' \
  --allow-domain ::1:8080
usage_case "--no-network with --allow-domain" \
  "--no-network and --allow-domain contradict each other: --no-network allows no destination at all (drop one)" \
  --no-network --allow-domain example.com
usage_case "a bad port" "--publish: '70000' is not a port (1 to 65535)" --publish 70000
usage_case "a publish on a forwarded port" \
  "--publish 9999 and --allow-domain localhost:9999 both want port 9999 inside the sandbox" \
  --allow-domain localhost:9999 --publish 9999
check "usage errors wrote no log" not test -e "$T_DIR/home/.local/state/blaude/blaude.log"

# --- --help, doctor, --print-policy: the defaults and the mode --------------------------------------
help=$(bl --help)
check "--help documents --allow-domain and --publish" grep -q -- "--allow-domain PATTERN" <<<"$help"
check "... and the default hosts here" grep -q "^Proxy mode's default hosts here (Anthropic API): api.anthropic.com:443" <<<"$help"
help_base=$(BL_ENV="ANTHROPIC_BASE_URL=https://gw.example:8443/v1" bl --help)
check "... which follow ANTHROPIC_BASE_URL" grep -q "^Proxy mode's default hosts here (ANTHROPIC_BASE_URL): gw.example:8443$" <<<"$help_base"
doc=$(bl doctor 2>&1 || true)
check "doctor: plain blaude uses the host network here" grep -q "^network: plain blaude uses the host's network here" <<<"$doc"
check "doctor: lists the default hosts" grep -q "^    api.anthropic.com:443  (Anthropic API)" <<<"$doc"

# --- a project policy with allow-domain: trust-gated, then proxy mode ----------------------------
printf 'allow-domain %s\n' "$W" >"$T_DIR/proj/.blaude"
chown 65534:65534 "$T_DIR/proj/.blaude"
pp=$(bl --print-policy 2>&1)
check "--print-policy lists the destination as a net grant" grep -Eq "^  net +$W +\($T_DIR/proj/.blaude:1\)" <<<"$pp"
check "... says plain blaude would use proxy mode" grep -q "^network: plain blaude uses proxy mode here ($T_DIR/proj/.blaude:1 allows destinations)" <<<"$pp"
set +e
untrusted=$(bl --exec curl -sS "http://$W/x" 2>&1); u_rc=$?
set -e
check_eq "an untrusted policy opens nothing (no terminal to ask: exit 1)" 1 "$u_rc"
check "... and says how to trust it" grep -q -- "--trust-policy" <<<"$untrusted"
set +e
trusted=$(bl --trust-policy --exec sh -c "curl -sS http://$W/policy; python3 -c 'import socket; socket.create_connection((\"$HOST_IP\", $WEB_PORT), 3)' 2>&1 | tail -n 1" 2>/dev/null)
set -e
check "trusted: the policy's destination works through the proxy" grep -q "^body:/policy$" <<<"$trusted"
check "... in proxy mode (a direct connect has no route)" grep -q "Network is unreachable" <<<"$trusted"
check "doctor now says proxy mode" grep -q "^network: plain blaude uses proxy mode here" <<<"$(bl doctor 2>&1 || true)"
rm -f "$T_DIR/proj/.blaude"

# --- no-default-domains: the user's to say, not a project's ----------------------------------------
mkdir -p "$T_DIR/home/.config/blaude"
printf 'no-default-domains\n' >"$T_DIR/home/.config/blaude/policy"
chown -R 65534:65534 "$T_DIR/home/.config"
pp=$(bl --print-policy 2>&1)
check "user policy: no-default-domains drops the defaults" \
  grep -q "^  proxy mode allows no default hosts (no-default-domains, $T_DIR/home/.config/blaude/policy:1)" <<<"$pp"
rm -f "$T_DIR/home/.config/blaude/policy"
printf 'no-default-domains\n' >"$T_DIR/proj/.blaude"
chown 65534:65534 "$T_DIR/proj/.blaude"
set +e
proj=$(bl --trust-policy --exec true 2>&1); p_rc=$?
set -e
check_eq "a project's no-default-domains is refused (exit 1)" 1 "$p_rc"
check "... saying whose line it is" grep -q "no-default-domains belongs in your own policy" <<<"$proj"
rm -f "$T_DIR/proj/.blaude"

# --- --dry-run shows the namespace, the mounts and the relay; changes nothing ----------------------
dry=$(bl --dry-run --allow-domain example.com --publish 8080 --exec true 2>/dev/null)
check "--dry-run: --unshare-net" grep -q -- "--unshare-net" <<<"$dry"
check "... blaude's binary for the relay, with its control channel (a descriptor, filled in at launch)" \
  grep -Eq -- "/run/blaude/blaude __net-relay --listen 3128 --control-fd '?@fd:net-control'? --publish 8080" <<<"$dry"
check "... and no socket of the proxy's bound in" not grep -qF "/proxy.sock" <<<"$dry"
check "... the published port, transparent capture's ports and DNS, then the exec shim and the command" \
  grep -q -- "--publish 8080 --capture 22 --capture 80 --capture 443 --dns 127.0.0.53 -- /run/blaude/blaude __exec true" <<<"$dry"
check_eq "... the capabilities the relay's set-up uses (it drops them)" 3 "$(grep -Ec -- "--cap-add CAP_(NET_ADMIN|NET_BIND_SERVICE|SETPCAP)" <<<"$dry")"
check "... and the sandbox's own resolv.conf" grep -Eq -- "--ro-bind-data [0-9]+ /etc/resolv.conf" <<<"$dry"
check "... the proxy's variables" grep -q "HTTPS_PROXY http://127.0.0.1:3128" <<<"$dry"
check "... and nothing to make on the host for it" not grep -q "blaude-net-" <<<"$dry"
finish
