// The workspace scan bwrap protects from, shared with the Seatbelt backend (sandbox/workspace/):
// its names, brought into this namespace so the planner reads as before the move.
#pragma once
#include "sandbox/workspace/git_config.hpp"
#include "sandbox/workspace/names.hpp"
#include "sandbox/workspace/repo_scan.hpp"
#include "sandbox/workspace/workspace_walk.hpp"

namespace blaude::sandbox::bwrap {

using workspace::FoundGit;
using workspace::GitFs;
using workspace::GitScan;
using workspace::GlobalGitConfig;
using workspace::Guard;
using workspace::HostProtection;
using workspace::RepoInfo;
using workspace::host_git_fs;
using workspace::read_global_git_config;
using workspace::scan_repos;

using workspace::GitConfigEntry;
using workspace::GitConfigFacts;
using workspace::git_config_facts;
using workspace::parse_git_config;

using workspace::WalkEntry;
using workspace::WalkLimits;
using workspace::WalkLink;
using workspace::WorkspaceWalk;
using workspace::walk_workspace;

using workspace::is_env_file_name;
using workspace::is_protected_dir_name;
using workspace::protected_file_names;

}  // namespace blaude::sandbox::bwrap
