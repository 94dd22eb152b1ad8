// git's configuration file syntax, read the way git's own parser (config.c) reads it, and
// written back canonically. Pure: text in, entries out. The one parser: the post-session audit
// (audit/) and the sandbox's workspace scan (sandbox/workspace/git_config.hpp, a view of these
// entries) both read git's files through it, so they never disagree on what a file says.
//
// Why our own parser: both must see exactly the keys git will act on, including the
// corners an attacker would use (a key on the section's line, legacy `[a.b]` headers,
// backslash-newline continuations, CRLF, a BOM). Where git would stop ("bad config line N"),
// we stop too and say so: git runs nothing from such a file, so the entries before the error
// are all it can act on; the audit still treats the file as suspect (fail closed), and the
// sandbox protects it read-only whatever it holds.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blaude {

struct ConfigEntry {
  // git's canonical name: section and key lowercased, a quoted subsection as written
  // ("filter.Evil.clean"), a legacy [a.b] subsection lowercased.
  std::string key;
  std::optional<std::string> value;  // nullopt: a bare key (boolean true)
  int line = 0;                      // 1-based line where the key starts
  bool operator==(const ConfigEntry& o) const { return key == o.key && value == o.value; }
};

struct ParsedConfig {
  std::vector<ConfigEntry> entries;  // in file order; up to the error when there is one
  int error_line = 0;                // 0: git reads the whole file; else where git gives up
};

ParsedConfig parse_git_config(std::string_view text);

struct KeyParts {
  std::string section;     // before the first dot
  std::string subsection;  // between the first and the last dot ("" when none)
  std::string name;        // after the last dot
  bool has_subsection = false;
};
// The way git splits a key: at the first and the last dot. A key with no dot (one that came
// before any section header) has an empty section.
KeyParts split_key(std::string_view key);

// Entries as a config file git reads back to the same entries (same keys, values, order).
// Entries that cannot be written faithfully (no section, a newline in a subsection) are left
// out; `dropped` counts them.
std::string write_git_config(const std::vector<ConfigEntry>& entries, int* dropped = nullptr);

}  // namespace blaude
