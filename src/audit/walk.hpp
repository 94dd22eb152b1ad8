// The audit's walk over the host: every `.git` (dir, file or symlink) and every bare-repository
// shaped dir under the roots, at any depth, nothing pruned; for each repository the files git
// reads code-bearing configuration from (snapshot.hpp). Bounded by a deadline; a walk that
// stops early says where (Snapshot::complete, not_reached). Never follows a symlink while
// walking; follows git's own redirections (gitdir:, commondir, includes, hooksPath) to read.
#pragma once
#include <string>
#include <vector>

#include "audit/snapshot.hpp"

namespace blaude::audit {

struct WalkInput {
  std::vector<std::string> roots;  // absolute, canonical host dirs
  std::string home;                // for "~/" in include paths
  double seconds = 5.0;            // the deadline
  int max_depth = 256;             // directory levels below a root
};

Snapshot take_snapshot(const WalkInput& in);

}  // namespace blaude::audit
