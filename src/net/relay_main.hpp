// `blaude __net-relay …  -- CMD …`: how bwrap starts the command in proxy mode. This runs inside
// the sandbox (blaude's binary, bind-mounted read-only at kSandboxExe): it binds the relay's
// listeners first (so CMD never races them), double-forks the relay (reparented to the
// sandbox's init, in its own session, non-dumpable so no sandboxed process can ptrace it or
// open its descriptors), then execs CMD, which keeps its pid, terminal and exit status.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "net/decision.hpp"

namespace blaude::net {

inline constexpr const char* kRelayCommand = "__net-relay";
inline constexpr const char* kSandboxDir = "/run/blaude";
inline constexpr const char* kSandboxExe = "/run/blaude/blaude";
inline constexpr const char* kSandboxSocket = "/run/blaude/proxy.sock";
inline constexpr uint16_t kProxyPort = 3128;

struct Forward {
  uint16_t port = 0;        // listened on inside, on each of `binds`
  std::string connect_to;   // "host:port" asked of the proxy
  std::vector<std::string> binds;  // "127.0.0.1", "::1"
};

struct RelaySpec {
  std::string socket = kSandboxSocket;
  uint16_t proxy_port = kProxyPort;
  std::vector<Forward> forwards;
  int control_fd = -1;
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

// Starts CMD in this process (execs it); returns only on failure, with the exit code.
using ExecCommand = std::function<int(std::vector<std::string>& command)>;
int exec_command_path(std::vector<std::string>& command);  // execvp; 127 not found, 126 else

// The wrapper itself. Returns only on failure (exit code); on success it has exec'd CMD through
// `exec` (the app passes one that runs blaude's exec shim in this process: one exec fewer).
int relay_main(const std::vector<std::string>& args, const ExecCommand& exec = exec_command_path);

}  // namespace blaude::net
