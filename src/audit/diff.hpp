// The audit's decision: compare the snapshot taken before the session with the one taken after
// it, and say what to make inert and how. Pure.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/git_config.hpp"
#include "audit/claude_files.hpp"
#include "audit/snapshot.hpp"
#include "common/unique_fd.hpp"

namespace blaude::audit {

struct AuditContext {
  std::vector<std::string> roots;  // the walked roots; a pointer leading outside them is suspect
  std::string stamp;               // UTC, e.g. "20251201T101500Z", names the moved-aside copies
};

enum class Act {
  None,       // report only
  MoveAside,  // rename path to aside
  Rewrite,    // rename path to aside, then write path without the new dangerous entries
};

struct Finding {
  std::string path;
  std::string repo;
  Role role = Role::Config;
  std::vector<std::string> details;  // one line each: what is new and why it matters
  Act act = Act::None;
  std::string aside;        // where the original goes (path + ".blaude-audit-" + stamp)
  std::string before_text;  // Rewrite: the file's content before the session ("" if new)
  std::string why_report_only;  // Act::None: why nothing was done
  // Claude Code's files (claude_files.hpp), always Act::Rewrite: which kind of file, and its text
  // at the start (nullopt: there was none). The rewrite is claude_clean_text's.
  std::optional<ClaudeFile> claude = std::nullopt;
  std::optional<std::string> claude_before = std::nullopt;
  // Claude's files: hostile as a whole (not strict JSON, too large, not a regular file, a symlink
  // the start did not have): moved aside and the start's text written back, nothing of it read.
  bool whole = false;
  // Where the entry is: a dir reached from a dir held since before the session without crossing a
  // symlink, and the entry's name in it. Set: used as it is (no path is resolved again).
  std::shared_ptr<UniqueFd> held_dir;
  std::string held_name;
};

std::vector<Finding> compare(const Snapshot& before, const Snapshot& after, const AuditContext& ctx);

// `after` without the dangerous entries `before` did not have (a multiset difference on
// key and value: the user's own settings stay). Entries past a syntax error are dropped, as git
// would not read them either. `removed` gets one line per entry dropped.
std::string sanitize_config(std::string_view before, std::string_view after, std::vector<std::string>* removed);

// One line for a config entry: `core.fsmonitor = "touch x"`.
std::string describe_entry(const ConfigEntry& e);

}  // namespace blaude::audit
