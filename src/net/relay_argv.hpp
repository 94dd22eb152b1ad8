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
  std::vector<std::string> command;
};

// Allowed loopback destinations with a port (localhost:3000, 127.0.0.1:8080, [::1]:9000):
// reachable inside at the same address, through the proxy. Pure.
std::vector<Forward> loopback_forwards(const Policy& policy);

// The argv bwrap runs: {kSandboxExe, kRelayCommand, options..., "--", command...}. Pure.
std::vector<std::string> relay_argv(const RelaySpec& spec);
// Its inverse (after kRelayCommand). Pure.
std::variant<RelaySpec, std::string> parse_relay_args(const std::vector<std::string>& args);

}  // namespace blaude::net
