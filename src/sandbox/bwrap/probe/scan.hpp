// The host-side walks behind HostFacts: one pass over the workspace at any depth (no symlink is
// ever followed into), the repositories in it and where git reads code-bearing config from, the
// identity of every path a protection mounts, a path's PathFact.
#pragma once
#include <string>

#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::sandbox::bwrap {

PathFact probe_path(const std::string& path);
// root must be canonical.
// home and xdg_config_home: where the host's global git config lives.
// Records the lstat identity of `path` and of every dir above it (type 0 when missing), once
// each: what the protect layout checks a guard against.
void identify(std::map<std::string, Identity>& ids, std::string path);

// walk_threads: WalkLimits::threads (0: automatic; BLAUDE_WALK_THREADS=1 measures the one-thread walk).
WorkspaceScan scan_workspace(const std::string& root, const std::string& home, const std::string& xdg_config_home,
                             int walk_threads = 0);

}  // namespace blaude::sandbox::bwrap
