// Proxy mode as data, for the planner: what bwrap gets (its own network namespace, and blaude's
// binary bind-mounted read-only at a fixed path; the relay reaches the proxy only through the
// control channel it inherits, never a path), which variables point clients at the relay, and
// the relay wrapper put in front of the command. Pure.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "net/decision.hpp"
#include "net/relay_argv.hpp"

namespace blaude::net {

// The variables set in proxy mode (they replace the host's values):
// HTTP_PROXY HTTPS_PROXY http_proxy https_proxy → http://127.0.0.1:PORT,
// ALL_PROXY all_proxy → socks5h://127.0.0.1:PORT (names resolved by the proxy, on the host),
// NO_PROXY no_proxy → localhost,127.0.0.1,::1: only the sandbox's own loopback skips the proxy,
// so a host NO_PROXY can never send allowed traffic around it (it would find no route anyway).
std::vector<std::pair<std::string, std::string>> proxy_env(uint16_t port = kProxyPort);

// Names of the proxy variables a host may set under other spellings; dropped in proxy mode.
const std::vector<std::string>& replaced_env_names();

struct ModeInputs {
  Policy policy;                 // everything allowed (command line, policies, defaults)
  std::vector<uint16_t> publish; // --publish ports
  std::string host_exe;          // blaude's own binary on the host
  // The relay's end of the control channel in the command's argv: a token the launcher replaces
  // with the descriptor's number (it exists only once the launch is prepared).
  std::string control_token = "@fd:net-control";
  // Transparent capture (dns.hpp): bwrap gives the relay CAP_NET_ADMIN, CAP_NET_BIND_SERVICE and
  // CAP_SETPCAP for its set-up (it drops them all before anything else runs). Off where bwrap is
  // setuid (it refuses --cap-add there).
  bool capture = true;
};

// The sandbox's /etc/resolv.conf and /etc/hosts under capture: the relay's DNS, and only the
// loopback names (every other name is answered by the relay, so it is judged by name). Pure.
std::string capture_resolv_conf();
std::string capture_hosts();

struct ModePlan {
  std::vector<std::string> bwrap_args;  // after the other mounts
  std::vector<std::pair<std::string, std::string>> data;  // the --ro-bind-data tokens' contents
  std::vector<std::pair<std::string, std::string>> env;
  RelaySpec relay;                      // relay.command is filled by wrap()
  std::vector<std::string> wrap(const std::vector<std::string>& command) const;
};

ModePlan plan_mode(const ModeInputs& in);

// Usage problems that only the combination shows: a --publish port that is also a forwarded
// loopback port or the proxy port. "" when fine.
std::string check_ports(const Policy& policy, const std::vector<uint16_t>& publish);

}  // namespace blaude::net
