// What the Seatbelt profile protects in the workspace, from the same scan and the same list of
// code-bearing git paths as the Linux backend (src/sandbox/workspace): every repository at any
// depth (config, hooks, core.hooksPath trees, include targets, worktree and submodule pointers,
// modules/**), and down to depth 3 the rc files, .env*, .vscode, .idea, .mcp.json, policy files.
#pragma once
#include <string>
#include <vector>

#include "sandbox/seatbelt/profile.hpp"
#include "sandbox/workspace/repo_scan.hpp"
#include "sandbox/workspace/workspace_walk.hpp"

namespace blaude::sandbox::seatbelt {

struct WorkspaceProtections {
  std::vector<Protected> protect;     // sorted by path, no duplicates
  std::vector<std::string> git_dirs;  // the project's own linked-worktree gitdir/common dir outside it
  std::vector<std::string> warnings;
};

// Pure over what the walk and the repository scan found (tests feed both). root: the project,
// or (is_project false) another dir the sandbox may write: there the same classes are protected,
// but no outside git dir is granted and xclaude's root .env names are not added.
WorkspaceProtections protections_from(const std::string& root, const workspace::WorkspaceWalk& walk,
                                      const workspace::GitScan& git, workspace::GitFs& fs, bool is_project = true);

// The host's: walks the project, reads the global git config, scans the repositories.
WorkspaceProtections scan_workspace(const std::string& project, const std::string& home,
                                    const std::string& xdg_config_home);

// The same for the other dirs the sandbox may write (-m DIR:rw, a policy's allow-write): a
// repository there gets its hooks and config protected too. Each root is walked with the same
// bounds as the project.
WorkspaceProtections scan_writable_roots(const std::vector<std::string>& roots, const std::string& home,
                                         const std::string& xdg_config_home);

}  // namespace blaude::sandbox::seatbelt
