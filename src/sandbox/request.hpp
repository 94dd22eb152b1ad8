// What a sandbox backend (bwrap, Seatbelt) is asked to run, decided by the app layer from the
// command line, the policy files and the environment policy. Backends read this and their own
// host facts, nothing else: they never see the command line.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/grant.hpp"

namespace blaude::sandbox {

struct Mount {
  std::string path;  // as given (absolute, or relative to the working directory)
  bool rw = false;
};

// Proxy mode, decided by the app layer: what bwrap adds after its mounts (an own
// network namespace and blaude's binary for the relay, read-only at a fixed path; the relay
// reaches the proxy through a descriptor it inherits) and the relay wrapper the command starts
// under. Absent: the host's network, or none
// with --no-network.
struct NetworkProxy {
  std::vector<std::string> bwrap_args;
  std::vector<std::string> command_prefix;  // ends with "--"; the command follows it
  std::vector<std::pair<std::string, std::string>> data = {};  // token → content, for bwrap_args' --ro-bind-data
};
// blaude's own binary inside the sandbox (bind-mounted read-only), which starts the command as
// `kSandboxSelf __exec CMD ARGS...` so that a missing or unrunnable CMD exits 127/126 as it
// does outside (inside/exec_shim.hpp). The net relay uses the same path.
inline constexpr const char* kSandboxSelf = "/run/blaude/blaude";
inline constexpr const char* kExecShim = "__exec";
// The same shim as a program of its own (src/shim_main.cpp, kShimName, installed beside blaude
// or in PREFIX/libexec/blaude): linked statically where the libc allows, so its start inside the
// sandbox loads no libc and applies no relocations, ~1 ms less per sandboxed start on a VM whose
// page faults are dear. bwrap starts it as `kSandboxShim kShimVerb CMD ARGS...`. The
// number after '@' is the protocol: the argv, the environment and the mount-checks file the shim
// reads (mount_checks.hpp; mount_checks_test.cpp holds protocol 1's record byte for byte). Bump it
// in both verbs whenever any of them changes: a blaude-exec from another build then refuses to run
// anything (fails closed) instead of misreading the checks. Where no blaude-exec is found, blaude's
// own binary is the shim, as before.
inline constexpr const char* kSandboxShim = "/run/blaude/exec";
inline constexpr const char* kShimName = "blaude-exec";
inline constexpr const char* kShimVerb = "__exec@1";
inline constexpr const char* kShimVerbOnPty = "__exec-pty@1";

struct SandboxRequest {
  std::vector<std::string> command;  // argv inside, e.g. {"claude", "--dangerously-..."}
  Grants grants;                     // project + user policy, already trust-gated and resolved
  std::vector<Mount> mounts;         // -m/--mount, in order

  bool git = false;       // git config, GPG agent, GH_TOKEN/GITHUB_TOKEN
  bool ssh = false;       // ~/.ssh and the agent socket
  bool aws = false;       // ~/.aws
  bool keyring = false;   // the D-Bus session bus and ~/.local/share/keyrings
  bool no_network = false;
  // Namespaces inside the sandbox (Claude Code's /sandbox, Chromium's, bwrap's): the syscall
  // filter allows user namespaces, setns and the mount calls.
  bool nested_sandbox = false;
  std::optional<NetworkProxy> proxy;
  // Host services (the signing-only ssh-agent): the bind of the session's socket directory,
  // added after the mounts as proxy mode's arguments are. Empty: none.
  std::vector<std::string> services_bwrap_args;
  bool tmp = false;        // no workspace: run in /tmp
  bool clear_tmp = false;  // an empty tmpfs /tmp instead of the host's
  bool allow_protected_writes = false;
  // The seed's layout: the workspace at /workspaces/<dir> only (the working directory there, its
  // host path not mounted). Otherwise (the default) at its own host path, /workspaces/<dir> a
  // symlink to it.
  bool seed_workspace = false;

  // The program that runs: command[0] ("claude", "claudechic", the --exec word).
  const std::string& program() const {
    static const std::string none;
    return command.empty() ? none : command.front();
  }
};

}  // namespace blaude::sandbox
