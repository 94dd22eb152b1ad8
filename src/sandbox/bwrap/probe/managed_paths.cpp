#include "sandbox/bwrap/probe/managed_paths.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/claude_keys.hpp"
#include "common/file_io.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

using nlohmann::json;

bool root_owned(const std::string& path, bool want_dir, uid_t owner) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) return false;
  return st.st_uid == owner && (st.st_mode & 022) == 0;
}

}  // namespace

std::vector<std::string> managed_commands(const json& doc) { return claude_setting_commands(doc); }

std::vector<std::string> managed_command_paths(const std::string& command) { return claude_command_paths(command); }

std::string managed_dir_for(const std::string& exe) {
  std::string d = dirname_of(exe);
  if (std::count(d.begin(), d.end(), '/') < 2) return {};
  for (const char* visible : {"/usr", "/etc", "/bin", "/sbin"})
    if (is_under(d, visible)) return {};
  if (d.rfind("/lib", 0) == 0) return {};  // /lib, /lib32, /lib64, /libx32 and below
  return d;
}

std::vector<ManagedDir> probe_managed_dirs(const std::string& etc_dir, std::vector<std::string>& warnings,
                                           uid_t owner) {
  std::vector<std::string> files;
  if (root_owned(etc_dir + "/managed-settings.json", false, owner)) files.push_back(etc_dir + "/managed-settings.json");
  if (DIR* d = ::opendir((etc_dir + "/managed-settings.d").c_str())) {
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) names.push_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      if (root_owned(etc_dir + "/managed-settings.d/" + n, false, owner)) files.push_back(etc_dir + "/managed-settings.d/" + n);
  }
  std::vector<ManagedDir> out;
  for (const auto& file : files) {
    json doc = json::parse(read_small_file(file, 4u << 20).value_or(""), nullptr, false);
    if (doc.is_discarded()) {
      warnings.push_back("cannot parse " + file + "; its helper programs are not mounted");
      continue;
    }
    for (const auto& cmd : managed_commands(doc)) {
      for (const auto& exe : managed_command_paths(cmd)) {
        struct stat st;
        std::string dir = managed_dir_for(exe);
        if (dir.empty() || ::stat(exe.c_str(), &st) != 0) continue;
        if (std::any_of(out.begin(), out.end(), [&](const ManagedDir& m) { return m.path == dir; })) continue;
        out.push_back({dir, root_owned(dir, true, owner)});
      }
    }
  }
  return out;
}

}  // namespace blaude::sandbox::bwrap
