// The bubblewrap plan: SandboxRequest + HostFacts + the environment policy's result → the bwrap
// argv and the host preparations it needs. Pure: no syscalls, so every mount rule is
// unit-tested over synthetic hosts.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/env_policy.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/request.hpp"

namespace blaude::sandbox::bwrap {

// Bad input the user must fix (a -m path that does not exist, $HOME as workspace, ...).
// plan() decides before anything is changed, so when it throws this the host is untouched; the
// app layer reports "blaude: <what>" and the hint, and exits 1.
struct PlanError : std::runtime_error {
  std::string hint;
  PlanError(const std::string& what, std::string h) : std::runtime_error(what), hint(std::move(h)) {}
};

// Throws PlanError. The argv starts with facts.bwrap (the app layer refuses to go on without a
// bwrap, --dry-run included; a synthetic host with none gets the word "bwrap"). `env` is the
// sandbox's whole environment (filter_env): bwrap clears its own and sets exactly these.
LaunchPlan plan(const SandboxRequest& req, const HostFacts& facts, const EnvList& env);

// PATH inside the sandbox; depends on what plan() mounts (/opt/host-bin, the nvm node, ...).
std::string sandbox_path(const HostFacts& facts);

// The uid/gid the sandbox runs as (root maps to 1000: claude refuses to skip permissions as root).
uid_t sandbox_uid(const HostFacts& facts);
gid_t sandbox_gid(const HostFacts& facts);

// The seed's WSL warning (lines) when the kernel strings name Microsoft and the workspace is
// under /mnt; empty otherwise. Pure: the strings are /proc/sys/kernel/osrelease and /proc/version.
std::vector<std::string> wsl_warning(const std::string& osrelease, const std::string& proc_version,
                                     const std::string& cwd);

// /workspaces/<name> for a workspace dir (unsafe characters become '_'): the workspace in the seed's
// layout, a link to it in the host layout.
std::string workspace_dest(const std::string& cwd);

}  // namespace blaude::sandbox::bwrap
