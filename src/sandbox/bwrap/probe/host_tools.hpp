// Node tool managers beyond nvm (fnm, pnpm, corepack) and the packages linked into their global
// dirs: the host side. A few readdirs and stats, no recursive walk, no cache needed.
#pragma once
#include <string>

#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::sandbox::bwrap {

// Fills fnm_dir, fnm_node_bin, pnpm_home, corepack_home and linked_packages. Needs home, env
// and nvm_dir already set.
void probe_node_tools(HostFacts& facts);

// The package root a linked path belongs to: the nearest dir at or above `target` holding a
// package.json, never $HOME or above it. "" if none.
std::string find_package_root(const std::string& target, const std::string& home);

// Where a package root is bound: its node_modules (or node_modules/@scope) parent when it has
// one, so siblings linked next to it resolve too. Pure.
std::string linked_mount_for(const std::string& root);

}  // namespace blaude::sandbox::bwrap
