// Where git's redirections lead, from gitrepository-layout(5) and git-config(1) "includes":
// a `.git` file ("gitdir: PATH"), commondir, include.path/includeIf.*.path, core.hooksPath.
// Pure: text and paths in, absolute normalized paths out.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/git_config.hpp"

namespace blaude::audit {

// Paths here are absolute and lexical, as git resolves them: common/paths.hpp (normalize,
// join, dirname_of, is_under).

// A `.git` file: "gitdir: PATH" (relative to the file's directory); nullopt if not one.
std::optional<std::string> gitfile_target(std::string_view content, std::string_view file_dir);
// commondir: one line, a path relative to the gitdir.
std::string commondir_target(std::string_view content, std::string_view gitdir);

struct ConfigRefs {
  std::vector<std::string> includes;    // files included (absolute)
  std::vector<std::string> hook_dirs;   // core.hooksPath candidates (absolute)
};
// What a config file makes git read next. include paths: "~/" is the home dir, relative is
// relative to the including file. core.hooksPath: relative to where hooks run (the work tree
// for a non-bare repo, else the gitdir): both candidates are given.
ConfigRefs config_refs(const ParsedConfig& cfg, std::string_view config_path, std::string_view worktree,
                       std::string_view gitdir, std::string_view home);

bool ends_with(std::string_view s, std::string_view suffix);

}  // namespace blaude::audit
