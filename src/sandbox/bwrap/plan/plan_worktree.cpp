// The workspace as a linked worktree: git inside reads the `.git` file's host path
// (<common>/worktrees/<name>), so the repository's git dir (the common dir) is bound there,
// writable: commits write its objects, refs, logs and this worktree's index and HEAD. It is one
// more writable alias for the protections (rw_binds): the scan's guards on the common dir
// (config and what it includes, hooks, every worktrees/*/{commondir,gitdir,config.worktree},
// modules, git's operation state) land in it as they land in the workspace's own `.git`. Only
// the git dir is bound: nothing else of the main checkout's tree is shown.
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap::detail {

void add_worktree_git(Builder& b) {
  const WorktreeGit& g = b.f.ws_git;
  if (!g.refused.empty()) b.p.warnings.push_back(g.refused);
  if (g.common.empty()) return;
  // Already writable at its own path through a wider bind (a repository under the host /tmp, a
  // -m DIR:rw around it): the protections land there through that alias.
  if (source_at(b.ops, g.common) == g.common)
    for (const auto& [src, dst] : b.rw_binds)
      if (src == dst && is_under(g.common, src)) return;
  // An earlier mount at or below it would be hidden by the bind (enforce_mount_order would
  // refuse to start): the old behaviour instead, said.
  for (const auto& st : steps_of(b.ops)) {
    if (!is_under(st.dst, g.common)) continue;
    b.p.warnings.push_back(g.common + " (the repository of this worktree) is not bound: " + st.dst +
                           " is mounted inside it; git commands in the sandbox fail");
    return;
  }
  b.rw(g.common, g.common);
  // The other worktrees' git dirs: read-only. This worktree's git reads their HEADs and never
  // needs to write them (a `git branch -m` of a branch checked out there fails). Inside, their
  // work trees do not exist, so git counts them prunable: a `git worktree prune` or `git gc`
  // would delete their HEAD and index on the host.
  if (!b.req.allow_protected_writes)
    for (const auto& o : g.others) b.guards.push_back({o, Guard::ReadOnly, "the git dir of another worktree of " + g.common});
  b.p.notes.push_back("this workspace is a linked worktree of " + g.common +
                      ": that git dir is writable in the sandbox at its own path, its hooks, config, worktree "
                      "pointers and the other worktrees' git dirs read-only");
}

}  // namespace blaude::sandbox::bwrap::detail
