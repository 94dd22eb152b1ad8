#include "audit/git_paths.hpp"

#include "common/paths.hpp"

namespace blaude::audit {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

namespace {

std::string_view trim_newlines(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

// git's read_gitfile_gently: exactly "gitdir: ", trailing CR/LF dropped.
std::optional<std::string> gitfile_target(std::string_view content, std::string_view file_dir) {
  static constexpr std::string_view kPrefix = "gitdir: ";
  if (content.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string_view dir = trim_newlines(content.substr(kPrefix.size()));
  if (dir.empty()) return std::nullopt;
  return join(file_dir, dir);
}

std::string commondir_target(std::string_view content, std::string_view gitdir) {
  return join(gitdir, trim_newlines(content));
}

namespace {

std::string expand_home(std::string_view p, std::string_view home) {
  if (p == "~") return std::string(home);
  if (p.substr(0, 2) == "~/") return std::string(home) + std::string(p.substr(1));
  return std::string(p);
}

}  // namespace

ConfigRefs config_refs(const ParsedConfig& cfg, std::string_view config_path, std::string_view worktree,
                       std::string_view gitdir, std::string_view home) {
  ConfigRefs r;
  const std::string dir = dirname_of(config_path);
  for (const auto& e : cfg.entries) {
    if (!e.value || e.value->empty()) continue;
    const KeyParts k = split_key(e.key);
    const bool include = (k.section == "include" && !k.has_subsection && k.name == "path") ||
                         (k.section == "includeif" && k.has_subsection && k.name == "path");
    if (include) {
      // Every include counts, whatever its condition: the condition may hold on the host.
      const std::string p = expand_home(*e.value, home);
      if (p.front() != '~') r.includes.push_back(join(dir, p));
    } else if (e.key == "core.hookspath") {
      const std::string p = expand_home(*e.value, home);
      if (p.front() == '~') continue;
      if (p.front() == '/') {
        r.hook_dirs.push_back(normalize(p));
        continue;
      }
      if (!worktree.empty()) r.hook_dirs.push_back(join(worktree, p));
      r.hook_dirs.push_back(join(gitdir, p));
    }
  }
  return r;
}

}  // namespace blaude::audit
