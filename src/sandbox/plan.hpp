// The bubblewrap plan: Options + HostFacts + what other modules computed → the bwrap argv.
// Pure: no syscalls, so every mount rule is unit-tested over synthetic hosts.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/options.hpp"
#include "sandbox/grant.hpp"
#include "sandbox/host_facts.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox {

struct PlanInputs {
  // The sandbox environment from the env policy (filter_env), in order. Emitted as --clearenv
  // then --setenv K V each (under --keep-env: no --clearenv, the pairs still override).
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> unset_env;  // --unsetenv NAME after the pairs (matters with keep_env)
  std::vector<std::string> command;    // what runs inside, e.g. {"claude", "--dangerously-..."}
  Grants grants;                       // project policy: applied before the protected paths
};

// Bad input the user must fix (a -m path that does not exist, $HOME as workspace, ...).
// main prints "blaude: <what>" and the hint, exits 1, and nothing has changed on the host.
struct PlanError : std::runtime_error {
  std::string hint;
  PlanError(const std::string& what, std::string h) : std::runtime_error(what), hint(std::move(h)) {}
};

// Throws PlanError. The argv starts with facts.bwrap (or "bwrap" when unknown, for --dry-run).
LaunchPlan plan(const cli::Options& opts, const HostFacts& facts, const PlanInputs& in);

// PATH inside the sandbox; depends on what plan() mounts (/opt/host-bin, the nvm node, ...).
std::string sandbox_path(const HostFacts& facts);

// The uid/gid the sandbox runs as (root maps to 1000: claude refuses to skip permissions as root).
uid_t sandbox_uid(const HostFacts& facts);
gid_t sandbox_gid(const HostFacts& facts);

// Claude's config dir ($CLAUDE_CONFIG_DIR or ~/.claude), bound read-write.
std::string claude_config_dir(const HostFacts& facts);
// The D-Bus session socket --keyring binds (from DBUS_SESSION_BUS_ADDRESS, else /run/user/UID/bus).
std::string dbus_socket_path(const HostFacts& facts);

// /workspaces/<name> for a workspace dir (unsafe characters become '_').
std::string workspace_dest(const std::string& cwd);

}  // namespace blaude::sandbox
