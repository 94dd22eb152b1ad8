// The workspace as a linked worktree (or a submodule), or holding ones of repositories
// elsewhere: git inside reads each `.git` file's host path (<common>/worktrees/<name>, or a
// submodule's gitdir), so that repository's git dir (the common dir) is bound there, writable:
// commits write its objects, refs, logs and this worktree's index and HEAD, and `git worktree
// add` its worktrees/<new>. It is one more writable alias for the protections (rw_binds): the
// scan's guards on the common dir (config and what it includes, hooks, every
// worktrees/*/{commondir,gitdir,config.worktree}, modules, git's operation state) land in it as
// they land in the workspace's own `.git`. Only the git dir is bound: nothing else of the main
// checkout's tree is shown.
#include <algorithm>
#include <set>

#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

// Whether `common` needs a bind of its own; a warning when it cannot have one.
bool bindable(Builder& b, const std::string& common) {
  // Already writable at its own path through a wider bind (a repository under the host /tmp, a
  // -m DIR:rw around it): the protections land there through that alias.
  if (source_at(b.ops, common) == common)
    for (const auto& [src, dst] : b.rw_binds)
      if (src == dst && is_under(common, src)) return false;
  // An earlier mount at or below it would be hidden by the bind (enforce_mount_order would
  // refuse to start): the old behaviour instead, said.
  for (const auto& st : steps_of(b.ops)) {
    if (!is_under(st.dst, common)) continue;
    b.p.warnings.push_back(common + " (the repository of a worktree here) is not bound: " + st.dst +
                           " is mounted inside it; git commands in the sandbox fail");
    return false;
  }
  return true;
}

}  // namespace

void add_worktree_git(Builder& b) {
  std::set<std::string> accepted, bound;
  for (const auto& g : b.f.ws_gits)
    if (!g.gitdir.empty()) accepted.insert(g.gitdir);
  for (const auto& g : b.f.ws_gits) {
    if (!g.refused.empty()) b.p.warnings.push_back(g.refused);
    if (g.common.empty() || bound.count(g.common)) continue;
    // A common dir inside another one bound here (a submodule of a repository whose worktree is
    // here too): that bind shows it.
    if (std::any_of(bound.begin(), bound.end(), [&](const std::string& c) { return is_under(g.common, c); })) continue;
    if (!bindable(b, g.common)) continue;
    b.rw(g.common, g.common);
    bound.insert(g.common);
    // The other worktrees' git dirs: read-only. A worktree here reads their HEADs and never
    // needs to write them (a `git branch -m` of a branch checked out there fails). Inside, their
    // work trees do not exist, so git counts them prunable: a `git worktree prune` or `git gc`
    // would delete their HEAD and index on the host.
    if (!b.req.allow_protected_writes)
      for (const auto& o : g.others)
        if (!accepted.count(o))
          b.guards.push_back({o, Guard::ReadOnly, "the git dir of another worktree of " + g.common});
    const std::string where = g.worktree == b.f.cwd ? "this workspace" : g.worktree;
    if (g.submodule)
      b.p.notes.push_back(where + " is a submodule whose git dir is " + g.common +
                          ": that git dir is writable in the sandbox at its own path, its hooks and config read-only");
    else
      b.p.notes.push_back(where + " is a linked worktree of " + g.common +
                          ": that git dir is writable in the sandbox at its own path, its hooks, config, worktree "
                          "pointers and the other worktrees' git dirs read-only");
  }
}

}  // namespace blaude::sandbox::bwrap::detail
