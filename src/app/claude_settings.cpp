#include "app/claude_settings.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "common/paths.hpp"
#include "common/shown.hpp"
#include "common/strict_json.hpp"

namespace blaude::app {

namespace {

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// A whole regular file (claude's files can be megabytes: a generous cap, still bounded).
std::optional<std::string> read_file(const std::string& path, bool nofollow) {
  return read_small_file(path, 64u << 20, nofollow ? Follow::No : Follow::Yes);
}

}  // namespace

std::vector<std::string> settings_files(const std::string& home, const std::string& config_dir_env,
                                        const std::string& workspace, bool tmp,
                                        std::vector<std::string> managed_d_files) {
  std::string config_dir = config_dir_env.empty() ? home + "/.claude" : config_dir_env;
  std::vector<std::string> out{config_dir + "/settings.json",
                               std::string(kManagedDir) + "/managed-settings.json"};
  if (config_dir != home + "/.claude") out.push_back(home + "/.claude/settings.json");
  std::sort(managed_d_files.begin(), managed_d_files.end());
  out.insert(out.end(), managed_d_files.begin(), managed_d_files.end());
  // A repository can switch bypass mode off too; under --tmp the workspace is never mounted.
  if (!tmp) {
    out.push_back(workspace + "/.claude/settings.json");
    out.push_back(workspace + "/.claude/settings.local.json");
  }
  return out;
}

bool blocks_bypass(std::string_view json_text) {
  // Lenient on purpose: this only decides whether to warn, so reading more than claude would
  // errs on the side of a warning. Bounded all the same: nothing deeper is parsed.
  if (strict_json_error(json_text).find("nested deeper") != std::string::npos) return false;
  auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false,
                                 /*ignore_comments=*/true);
  if (j.is_discarded() || !j.is_object()) return false;
  auto perms = j.find("permissions");
  if (perms == j.end() || !perms->is_object()) return false;
  auto key = perms->find("disableBypassPermissionsMode");
  return key != perms->end() && key->is_string() && key->get<std::string>() == "disable";
}

bool is_managed(std::string_view path) {
  std::string_view dir = kManagedDir;
  return path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/';
}

std::vector<std::string> bypass_warning(const std::string& path) {
  return {
      "Warning: " + path + " sets permissions.disableBypassPermissionsMode=\"disable\".",
      "  This blocks --dangerously-skip-permissions which blaude always passes.",
      is_managed(path) ? "  This is an enterprise-managed setting and can only be changed by your admin."
                       : "  Remove the key (or change its value) to restore bypass mode.",
  };
}

std::optional<std::string> find_bypass_blocker(const std::vector<std::string>& files) {
  for (const auto& f : files) {
    auto text = read_file(f, /*nofollow=*/false);
    if (text && blocks_bypass(*text)) return f;
  }
  return std::nullopt;
}

std::vector<std::string> list_json_files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name[0] != '.' && ends_with(name, ".json")) out.push_back(dir + "/" + name);
  }
  ::closedir(d);
  return out;
}

OnboardingMerge merge_onboarding(std::string_view existing) {
  // ordered_json keeps the user's key order: the file is claude's, we only add two flags. Read
  // strictly: a sandbox may have shaped it, and dump() below recurses on what was read.
  auto parsed = strict_json_parse(existing);
  if (!parsed || !parsed->is_object()) return {OnboardingMerge::Malformed, {}};
  auto& j = *parsed;
  bool changed = false;
  for (const char* key : {"hasCompletedOnboarding", "bypassPermissionsModeAccepted"}) {
    auto it = j.find(key);
    if (it == j.end() || *it != true) {
      j[key] = true;
      changed = true;
    }
  }
  if (!changed) return {OnboardingMerge::Unchanged, {}};
  return {OnboardingMerge::Updated, j.dump(2) + "\n"};
}

std::vector<std::string> onboarding_files(const std::string& home, const std::string& config_dir_env) {
  std::vector<std::string> out{home + "/.claude.json"};
  if (!config_dir_env.empty()) {
    std::string other = config_dir_env + "/.claude.json";
    if (other != out[0]) out.push_back(other);
  }
  return out;
}

std::vector<std::string> ensure_onboarding_file(const std::string& path) {
  auto warn = [&](const std::string& what, const std::string& hint) {
    return std::vector<std::string>{"Warning: " + path + ": " + what, "  " + hint};
  };
  struct stat st {};
  std::string content;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return warn("is a symlink; refusing to update it.",
                  "Replace it with a regular file to let blaude set the onboarding flags.");
    }
    // O_NOFOLLOW closes the window between the lstat and the open.
    auto text = read_file(path, /*nofollow=*/true);
    if (!text) {
      return warn("cannot be read as a regular file; onboarding flags not set.",
                  "claude may show its first-run screens.");
    }
    auto m = merge_onboarding(*text);
    if (m.kind == OnboardingMerge::Unchanged) return {};
    if (m.kind == OnboardingMerge::Malformed) {
      return warn("is not a JSON object (malformed?); left untouched.",
                  "claude may prompt for onboarding until it is fixed or removed.");
    }
    content = std::move(m.text);
  } else if (errno == ENOENT) {
    content = kFreshOnboarding;
    std::string dir = dirname_of(path);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return warn(std::string("cannot create its directory: ") + std::strerror(errno),
                  "claude may show its first-run screens.");
    }
  } else {
    return warn(std::string("cannot be inspected: ") + std::strerror(errno),
                "claude may show its first-run screens.");
  }

  if (std::string why = atomic_replace(path, content, 0600); !why.empty())
    return warn("could not be updated: " + why, "claude may show its first-run screens.");
  return {};
}

}  // namespace blaude::app

namespace blaude::app {

std::string claude_project_key(std::string_view dir) {
  if (dir.size() > 200) return {};
  std::string k(dir);
  for (char& c : k)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '-';
  return k;
}

std::vector<std::string> seed_history_notice(const std::string& claude_config_dir, const std::string& cwd,
                                             const std::string& seed) {
  const std::string old_key = claude_project_key(seed), new_key = claude_project_key(cwd);
  if (old_key.empty() || new_key.empty() || old_key == new_key || claude_config_dir.empty()) return {};
  const std::string projects = claude_config_dir + "/projects/";
  struct stat st;
  if (::lstat((projects + old_key).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {};
  if (::lstat((projects + new_key).c_str(), &st) == 0 || errno != ENOENT) return {};
  return {"blaude: the project is at its own path in the sandbox now (" + shown(cwd) + "); Claude Code's "
          "conversations held at " + shown(seed) + " stay under that name (" + shown(projects + old_key) +
          ", shared by every project named " + shown(basename_of(seed)) + ").",
          "  To continue them: blaude --workspace-path=seed -c (or --resume). Nothing was moved."};
}

}  // namespace blaude::app
