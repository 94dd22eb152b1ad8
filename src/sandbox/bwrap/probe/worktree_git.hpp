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
  std::string gitdir;   // <common>/worktrees/<name>, canonical; "" when not accepted
  std::string common;   // the repository's git dir (the common dir), canonical
  std::string refused;  // why a `.git` file was not followed (a warning), "" otherwise
  // The other linked worktrees' git dirs (<common>/worktrees/*, real dirs, sorted): nothing this
  // worktree's git needs to write.
  std::vector<std::string> others = {};
};

// Reads `<cwd>/.git`. Nothing (all empty) when it is no regular file (a `.git` dir, none, a
// symlink: what the workspace bind already covers, or not git's linked-worktree form).
// `home`, `home_real`: refused when the common dir is $HOME, a parent of it, or holds or lies in
// a secrets dir there. `uid`: the gitdir and the common dir must be the user's.
WorktreeGit probe_worktree_git(const std::string& cwd, uid_t uid, const std::string& home,
                               const std::string& home_real);

}  // namespace blaude::sandbox::bwrap
