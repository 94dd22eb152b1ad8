// The host-side walks behind HostFacts: one lstat-only pass over the workspace (depth 4, no
// symlink is ever followed into), git dirs and their submodule gitdirs, a path's PathFact.
#pragma once
#include <string>

#include "sandbox/bwrap/host_facts.hpp"

namespace blaude::sandbox::bwrap {

PathFact probe_path(const std::string& path);
// root must be canonical.
WorkspaceScan scan_workspace(const std::string& root);
// core.hooksPath from git config text ("" if unset). Pure; exposed for tests.
std::string parse_hooks_path(const std::string& config_text);

}  // namespace blaude::sandbox::bwrap
