#include "sandbox/workspace/git_config.hpp"

#include "common/git_config.hpp"

namespace blaude::sandbox::workspace {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

bool truthy(const GitConfigEntry& e) {
  if (!e.has_value) return true;
  std::string v;
  for (char c : e.value) v += lower(c);
  return v == "true" || v == "yes" || v == "on" || (!v.empty() && v != "0" && v.find_first_not_of("0123456789") == std::string::npos);
}

// Non-empty, and only what git allows in a section or key name (lower-cased by the parser).
bool key_word(const std::string& w) {
  for (char c : w)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  return !w.empty();
}

}  // namespace

std::vector<GitConfigEntry> parse_git_config(std::string_view text) {
  std::vector<GitConfigEntry> out;
  for (const auto& e : ::blaude::parse_git_config(text).entries) {
    const KeyParts k = split_key(e.key);
    // A key before any section header belongs to none; an empty name, or bytes git allows in no
    // key, are what git makes of a subsection cut at a NUL ("[i \"\0\"] x" lists as "i.",
    // "[i \"\xff\0\"] x" as "i.\xff"): none is a key the sandbox follows.
    if (!key_word(k.section) || !key_word(k.name)) continue;
    out.push_back({k.section, k.subsection, k.name, e.value.value_or(""), e.value.has_value()});
  }
  return out;
}

GitConfigFacts git_config_facts(const std::vector<GitConfigEntry>& entries) {
  GitConfigFacts f;
  for (const auto& e : entries) {
    if (e.section == "core" && e.subsection.empty() && e.key == "hookspath") {
      f.hooks_path = e.value;
      f.hooks_path_set = true;
    } else if (e.section == "core" && e.subsection.empty() && e.key == "worktree") {
      f.worktree = e.value;
    } else if (e.section == "extensions" && e.subsection.empty() && e.key == "worktreeconfig") {
      f.worktree_config = truthy(e);
    } else if ((e.section == "include" || e.section == "includeif") && e.key == "path" && !e.value.empty()) {
      f.includes.push_back(e.value);
    }
  }
  return f;
}

}  // namespace blaude::sandbox::workspace
