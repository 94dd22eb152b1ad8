// Where git reads code-bearing configuration from, for every repository in the workspace at any
// depth. The set follows git's own documentation, not a list of past attacks:
//  gitrepository-layout: a gitdir G (a `.git` dir, the target of a `.git` file or symlink, a bare
//    repository, a submodule's gitdir under modules/, a linked worktree's dir under worktrees/)
//    and its common dir C (G/commondir, else G). C/config, C/hooks, C/modules/** and
//    C/worktrees/*/{commondir,gitdir,config.worktree} are read from C; G/config.worktree from G.
//  git-config "includes": include.path and includeIf.*.path, relative to the including file,
//    recursively; all conditions count (a condition the agent can make true is no guard).
//  core.hooksPath: relative to the worktree root (bare: the gitdir); hook scripts run their
//    siblings (husky v9: `.husky/_/<hook>` runs `.husky/<hook>`), so the whole top-level dir of
//    the worktree that holds the hooks is protected, not just the hooks dir.
//  extensions.worktreeConfig: G/config.worktree is read only when set.
//  What the runners read (common/git_runners.hpp): each gitdir's rebase-merge/, rebase-apply/ and
//    sequencer/ (git runs what they list at --continue), and the config of the hook managers
//    (pre-commit, husky, lefthook, simple-git-hooks, overcommit) that the hooks name, in the work
//    tree the hooks run in. Read-only when present; when missing nothing is mounted (an empty
//    placeholder would be an operation in progress, or a config): the audit moves a new one aside.
// Everything else of a gitdir (objects, refs, logs, index, HEAD, lock files, info/) stays writable:
// agents must be able to commit.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::workspace {

using sandbox::Identity;

// What the analysis reads of the host. The real one (host_git_fs) never follows a symlink at the
// last component unless asked (realpath); tests give a fake.
class GitFs {
public:
  virtual ~GitFs() = default;
  virtual Identity lstat(const std::string& path) = 0;  // type 0: missing
  virtual std::optional<std::string> read(const std::string& path) = 0;  // a regular file, bounded
  virtual std::string realpath(const std::string& path) = 0;  // "" when broken
  virtual std::vector<std::string> list(const std::string& dir) = 0;  // names, no . and ..
};
GitFs& host_git_fs();

// A `.git` (or a bare repository) the workspace walk found.
struct FoundGit {
  enum Kind { Dir, File, Symlink, Bare } kind;
  std::string path;  // host path of the `.git` entry, or of the bare repository
};

enum class Guard { ReadOnly, EmptyDir };

struct HostProtection {
  std::string path;  // host path (normalized)
  Guard guard = Guard::ReadOnly;
  std::string why;   // "config of packages/app/.git", shown by --dry-run
};

struct RepoInfo {
  std::string gitdir, commondir, worktree;  // host paths; worktree "" for bare repositories
  std::string via;                          // ".git dir", ".git file", "bare", "submodule", ...
};

struct GitScan {
  std::vector<RepoInfo> repos;
  std::vector<HostProtection> protect;  // sorted by path, no duplicates
  std::vector<std::string> warnings;    // what mounts cannot cover (for the start-up report)
};

// The host's own config files that apply to every repository (system, global, XDG), as read.
struct GlobalGitConfig {
  std::vector<std::string> hooks_paths;  // every core.hooksPath value, in order
  std::vector<std::string> files;        // the files, incl. their includes (host paths)
};
GlobalGitConfig read_global_git_config(GitFs& fs, const std::string& home, const std::string& xdg_config_home);

GitScan scan_repos(GitFs& fs, const std::vector<FoundGit>& found, const GlobalGitConfig& global,
                   const std::string& home);

}  // namespace blaude::sandbox::workspace
