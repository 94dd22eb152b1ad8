// Claude Code's own settings as a way out (issue 11): the programs that the user's and the
// project's settings name run on the host whenever claude starts there, so rewriting one of
// those scripts from inside runs code later without touching any settings. The probe lists the
// ones that exist; the planner keeps them read-only (plan.cpp add_claude_dirs). New or changed
// settings are the post-session audit's (audit/claude_files.hpp).
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/claude_keys.hpp"
#include "common/file_io.hpp"
#include "sandbox/bwrap/host_facts.hpp"
#include "sandbox/bwrap/scan.hpp"

namespace blaude::sandbox::bwrap {

void probe_claude_code(HostFacts& f, const std::string& config_dir, const std::string& workspace) {
  for (const char* d : {"/hooks", "/plugins", "/local"}) {
    const std::string p = config_dir + d;
    f.paths.emplace(p, probe_path(p));
    if (!f.at(p).real.empty()) identify(f.ws.ids, f.at(p).real);
  }
  for (const auto& file : claude_settings_files(config_dir, workspace)) {
    auto text = read_small_file(file, 4u << 20);
    if (!text) continue;
    for (const auto& p : claude_settings_scripts(*text, f.home, workspace)) {
      // Through a link, the file it leads to: what claude runs, and what a mount protects.
      char buf[PATH_MAX];
      struct stat st;
      if (!::realpath(p.c_str(), buf) || ::lstat(buf, &st) != 0 || !S_ISREG(st.st_mode)) continue;
      const std::string real = buf;
      if (std::find(f.claude_scripts.begin(), f.claude_scripts.end(), real) != f.claude_scripts.end()) continue;
      f.claude_scripts.push_back(real);
      identify(f.ws.ids, real);
    }
  }
}

}  // namespace blaude::sandbox::bwrap
