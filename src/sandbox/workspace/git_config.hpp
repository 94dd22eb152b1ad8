// A reader of git's config syntax (git-config(1) "CONFIGURATION FILE"), for the few keys the
// sandbox must follow: where hooks live, whether worktree configs are read, which files are
// included. Pure: text in, entries out; fuzzed (tests/fuzz/fuzz_git_config.cpp).
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

// Every entry, in file order. Malformed lines are skipped the way they cannot hurt: a bad
// section header ends the current section (later keys belong to none), so a key is never
// attributed to a section it was not written in.
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
