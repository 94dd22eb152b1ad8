// git's config as the sandbox needs it: the few keys it must follow (where hooks live, whether
// worktree configs are read, which files are included), over the one git-faithful parser
// (common/git_config.hpp, shared with the audit). Pure: text in, entries out; fuzzed
// (tests/fuzz/fuzz_git_config.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace blaude::sandbox::workspace {

struct GitConfigEntry {
  std::string section;     // lower case ("core", "includeif")
  std::string subsection;  // as written, case kept ("gitdir:~/work/"); "" when none
  std::string key;         // lower case ("hookspath")
  std::string value;       // unquoted, escapes resolved; "" for a bare key (boolean true)
  bool has_value = false;
};

// Every entry git acts on, in file order: where git gives up on a file ("bad config line N")
// the entries stop, as git's reading does (it runs nothing past it); keys before any section
// header, or with an empty name (a subsection cut at a NUL), are left out. The file itself stays protected read-only whatever it holds.
std::vector<GitConfigEntry> parse_git_config(std::string_view text);

// What the sandbox needs of one config file.
struct GitConfigFacts {
  std::string hooks_path;         // the last core.hooksPath ("" when unset)
  bool hooks_path_set = false;
  bool worktree_config = false;   // extensions.worktreeConfig (last one wins)
  std::string worktree;           // core.worktree ("" when unset)
  std::vector<std::string> includes;  // include.path and every includeIf.*.path, any condition
};
GitConfigFacts git_config_facts(const std::vector<GitConfigEntry>& entries);

}  // namespace blaude::sandbox::workspace
