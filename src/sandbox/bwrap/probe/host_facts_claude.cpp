// Claude Code's own settings as a way out: the programs that the user's and the
// project's settings name run on the host whenever claude starts there, so rewriting one of
// those scripts from inside runs code later without touching any settings. The probe lists the
// ones that exist; the planner keeps them read-only (plan/plan.cpp add_claude_dirs). New or changed
// settings are the post-session audit's (audit/claude_files.hpp).
#include "common/claude_keys.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/bwrap/probe/scan.hpp"

namespace blaude::sandbox::bwrap {

void probe_claude_code(HostFacts& f, const std::string& config_dir, const std::string& workspace) {
  for (const char* d : {"/hooks", "/plugins", "/local"}) {
    const std::string p = config_dir + d;
    f.paths.emplace(p, probe_path(p));
    if (!f.at(p).real.empty()) identify(f.ws.ids, f.at(p).real);
  }
  f.claude_scripts = claude_settings_programs(config_dir, workspace, f.home);
  for (const auto& s : f.claude_scripts) identify(f.ws.ids, s);
}

}  // namespace blaude::sandbox::bwrap
