// The audit's walk over the host: every `.git` (dir, file or symlink) and every bare-repository
// shaped dir under the roots, at any depth, nothing pruned; for each repository the files git
// reads code-bearing configuration from (snapshot.hpp); and Claude Code's project names. Bounded by a deadline; a walk that
// stops early says where (Snapshot::complete, not_reached). Never follows a symlink while
// walking; follows git's own redirections (gitdir:, commondir, includes, hooksPath) to read.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "audit/snapshot.hpp"

namespace blaude::audit {

struct WalkInput {
  std::vector<std::string> roots;  // absolute, canonical host dirs
  std::string home;                // for "~/" in include paths
  double seconds = 5.0;            // the deadline
  int max_depth = 256;             // directory levels below a root
  // After the walk, the names-only pass below where it stopped (Snapshot::unchecked), for at
  // most this long; 0: none.
  double sweep_seconds = 0;
  // Read every repository's index and judge the nested repositories it names
  // (Snapshot::bad_indexes). Off for the walk before the session: git never writes such an index,
  // so only what the session left is judged, and the start does not pay for reading them.
  bool read_indexes = false;
  // With read_indexes: an index whose stat key (Snapshot::index_stats) is the same as here was
  // judged at the start (git never writes a bad one; the user's are not the agent's) and is not
  // read again. Not owned; null: every index is read.
  const std::map<std::string, std::string>* known_indexes = nullptr;
  // What the walk digests in all (hook files, git's operation state), whatever the files: past
  // it a file is identified by size, inode and ctime, as one over 16 MiB always is. The files
  // are the agent's to choose (a hooksPath may name a dir it filled), and the walk's one deadline
  // must be spent reaching every repository, not hashing. A file digested before the session
  // and identified after it counts as changed (moved aside, with its undo line).
  uint64_t digest_budget = uint64_t(64) << 20;
};

// What an earlier walk of `root` (the sandbox probe's, moments before) found: every `.git` entry
// and bare-repository-shaped dir below it, in the walk's own order (a pre-order walk, each dir's
// entries in byte order, as this walker goes too). The snapshot before the session starts from
// these instead of walking the same tree a second time.
struct PriorWalk {
  enum Kind { GitDir, GitFile, GitLink, Bare };
  struct Found {
    Kind kind;
    std::string path;  // the `.git` entry, or the bare repository dir
  };
  std::string root;  // canonical; must equal one of WalkInput::roots to be used
  std::vector<Found> found;
  std::vector<std::string> unreadable;  // dirs it could not open (EACCES), relative to root
  std::map<std::string, std::string> claude_names;  // Snapshot::claude_names below root
  size_t dirs = 0;
};

// How Snapshot::claude_names identifies an entry: "dev:ino".
std::string file_identity(unsigned long long dev, unsigned long long ino);

// `prior`: complete walks of some roots (truncated ones must not be passed); a root without one
// is walked.
Snapshot take_snapshot(const WalkInput& in, const std::vector<PriorWalk>& prior = {});

}  // namespace blaude::audit
