// The workspace as a linked worktree: where its repository lives on the host (probe side).
// Its `.git` file names `<common>/worktrees/<name>` by host path; the planner binds the common
// dir there (plan/plan_worktree.cpp) so that git works inside. That file is workspace content an
// earlier session (or anyone who could write the tree) chose: it is read strictly and followed
// only when git's own back-pointer and the repository's shape and owner agree with it.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace blaude::sandbox::bwrap {

struct WorktreeGit {
  std::string worktree;  // the dir whose `.git` file was read
  std::string gitdir;    // <common>/worktrees/<name> (or a submodule's gitdir), canonical; "" when not accepted
  std::string common;    // the repository's git dir (the common dir; a submodule's: its gitdir), canonical
  bool submodule = false;  // a submodule's gitdir under <superproject's git dir>/modules/
  std::string refused;  // why a `.git` file was not followed (a warning), "" otherwise
  // The other linked worktrees' git dirs (<common>/worktrees/*, real dirs, sorted): nothing this
  // worktree's git needs to write.
  std::vector<std::string> others = {};
};

// Reads `<cwd>/.git`. Nothing (all empty) when it is no regular file (a `.git` dir, none, a
// symlink: what the workspace bind already covers). Followed in two of git's forms, each only
// when the repository's own back-pointer names this directory: a linked worktree
// (<common>/worktrees/<name>, whose `gitdir` file names <cwd>/.git and whose `commondir` leads to
// <common>) and a submodule (a gitdir below a `modules` dir, whose config's core.worktree is
// <cwd>; it has no commondir).
// `home`, `home_real`: refused when the common dir is $HOME, a parent of it, or holds or lies in
// a secrets dir there. `uid`: the gitdir and the common dir must be the user's.
WorktreeGit probe_worktree_git(const std::string& cwd, uid_t uid, const std::string& home,
                               const std::string& home_real);

// The workspace's own `.git` file, then those of its direct subdirectories (a dir that holds
// worktrees of repositories elsewhere: `git worktree add ~/work/x` for several repositories),
// at most kMaxNestedGit of them, the first kMaxNestedEntries names read. A nested one whose
// repository lies in the workspace is nothing to bind (the workspace bind shows it): left out,
// without a warning. Refused nested ones give their warning as the workspace's own does.
constexpr size_t kMaxNestedGit = 16;
constexpr size_t kMaxNestedEntries = 4096;
std::vector<WorktreeGit> probe_workspace_gits(const std::string& cwd, uid_t uid, const std::string& home,
                                              const std::string& home_real);

}  // namespace blaude::sandbox::bwrap
