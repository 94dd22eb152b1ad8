// The gitlinks (mode 160000 entries: nested repositories) a git index names. The host's `git
// status` enters each populated gitlink and reads that repository's config, so the watcher
// during the session (app/live_audit.hpp) checks exactly these paths as soon as an index
// changes, whatever the size of the tree around them. Pure; the index is the agent's, so it is
// parsed as hostile input: bounded, no recursion, every length checked.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::audit {

struct IndexGitlinks {
  std::vector<std::string> paths;  // relative to the worktree, as git stores them
  // "" when every entry was read. Otherwise why not (git itself rejects such an index or the
  // limits were reached): the caller cannot rely on `paths` being all of them.
  std::string error;
  // A split index (core.splitIndex): the hex name of the shared index that holds the other
  // entries (`sharedindex.<hex>` in the gitdir), "" for a whole index.
  std::string shared;
};

// An index larger than this is not read (a repository of a million files has a ~100 MiB one).
inline constexpr size_t kMaxIndex = size_t(256) << 20;

// Index versions 2, 3 and 4 (4: path prefix compression), SHA-1 or SHA-256 object names
// (`hash_len` 20 or 32; an index does not say which, the repository's config does). Stops after
// `max_gitlinks` gitlinks (error set). The trailing checksum is not checked (git may be told to
// skip it); the extensions are walked for the split index's link, and must be well formed.
IndexGitlinks index_gitlinks(std::string_view data, size_t hash_len = 20, size_t max_gitlinks = 1024);

// Whether git, entering the gitlink `path` from its work tree, stays in that tree: relative, no
// empty, `.` or `..` component, no `.git` component (any case). git's own verify_path refuses
// to write any other, but reads and enters one it finds.
bool gitlink_path_ok(std::string_view path);

}  // namespace blaude::audit
