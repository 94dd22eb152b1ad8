// One pass over the workspace at ANY depth, nothing pruned (node_modules, vendor and build hold
// vendored repositories too), no symlink followed: every `.git` (dir, file or symlink) and every
// bare-repository-shaped dir (HEAD + objects/ + refs/), for the repository scan; the dot-names near
// the top and the symlinks, for the other protections and the symlink warning. Bounded by a
// deadline and an entry cap: a walk cut short says so (`truncated`), and what it did not reach.
// The results do not depend on how many threads read the dirs (workspace_walk.cpp).
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "sandbox/workspace/repo_scan.hpp"

namespace blaude::sandbox::workspace {

struct WalkLimits {
  int name_depth = 3;   // dot-names reported down to this depth (1 = the root's own entries)
  int link_depth = 4;   // symlinks reported down to this depth
  size_t max_entries = 2'000'000;
  std::chrono::milliseconds budget{2000};
  // Threads reading dirs at once (the kernel's getdents is most of the walk's time); 0: one per
  // CPU this process may run on, at most 4 (asked: at most 16). A small tree is read by the
  // calling thread alone.
  int threads = 0;
};

struct WalkEntry {
  std::string rel;   // relative to the root
  unsigned type = 0; // S_IFMT bits (lstat)
};

struct WalkLink {
  std::string rel;
  std::string text;  // readlink
};

struct WorkspaceWalk {
  std::vector<FoundGit> git;       // host paths, sorted by path
  std::vector<FoundGit> git_walk_order;  // the same, in the walk's order (pre-order, names in byte order)
  std::vector<WalkEntry> dotnames; // entries whose name starts with '.', to name_depth (no .git),
                                   // and is_any_depth_name()'s at any depth
  std::vector<WalkLink> links;     // to link_depth
  size_t entries = 0;               // entries read (a leaf dir below the reported depths is not listed)
  size_t dirs = 0;
  bool truncated = false;
  std::string truncated_at;        // the dir being read when the walk stopped
  std::vector<std::string> unreadable;  // dirs the walk could not open (EACCES)
};

// root must be canonical.
WorkspaceWalk walk_workspace(const std::string& root, const WalkLimits& limits = {});

}  // namespace blaude::sandbox::workspace
