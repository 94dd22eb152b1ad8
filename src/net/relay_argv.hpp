// `blaude __net-relay …  -- CMD …`: the relay's command line in proxy mode, which the host
// writes into bwrap's argv (relay_argv) and the relay parses inside the sandbox
// (inside/relay_main.hpp, which says what runs there).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "net/decision.hpp"

namespace blaude::net {

inline constexpr const char* kRelayCommand = "__net-relay";
inline constexpr const char* kSandboxDir = "/run/blaude";
inline constexpr const char* kSandboxExe = "/run/blaude/blaude";
inline constexpr uint16_t kProxyPort = 3128;

struct Forward {
  uint16_t port = 0;        // listened on inside, on each of `binds`
  std::string connect_to;   // "host:port" asked of the proxy
  std::vector<std::string> binds;  // "127.0.0.1", "::1"
};

struct RelaySpec {
  uint16_t proxy_port = kProxyPort;
  std::vector<Forward> forwards;
  int control_fd = -1;        // the control channel to blaude (fdpass.hpp); required
  std::string control_token;  // relay_argv writes this instead of control_fd when set
  std::vector<uint16_t> publish;
  // Transparent capture (dns.hpp): the ports captured on the synthetic addresses, and where the
  // relay answers DNS (kCaptureDns). Both empty: no capture.
  std::vector<uint16_t> capture;
  std::string dns;
  std::vector<std::string> command;
};

// Where the relay answers the sandbox's DNS (port 53), named by its resolv.conf.
inline constexpr const char* kCaptureDns = "127.0.0.53";
// The ports captured whatever the rules say (ssh, HTTP, HTTPS).
inline constexpr uint16_t kCaptureAlways[] = {22, 80, 443};
// The ports transparent capture listens on: kCaptureAlways and every port a rule names, less
// those taken inside by the proxy port, a forwarded loopback port or a --publish port. Sorted. Pure.
std::vector<uint16_t> capture_ports(const Policy& policy, const std::vector<uint16_t>& publish);

// Allowed loopback destinations with a port (localhost:3000, 127.0.0.1:8080, [::1]:9000):
// reachable inside at the same address, through the proxy. Pure.
std::vector<Forward> loopback_forwards(const Policy& policy);

// The argv bwrap runs: {kSandboxExe, kRelayCommand, options..., "--", command...}. Pure.
std::vector<std::string> relay_argv(const RelaySpec& spec);
// Its inverse (after kRelayCommand). Pure.
std::variant<RelaySpec, std::string> parse_relay_args(const std::vector<std::string>& args);

}  // namespace blaude::net
