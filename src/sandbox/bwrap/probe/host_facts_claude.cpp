// Claude Code's own settings as a way out: the programs that the user's and the
// project's settings name run on the host whenever claude starts there, so rewriting one of
// those scripts from inside runs code later without touching any settings. The probe lists the
// ones that exist; the planner keeps them read-only (plan/plan.cpp add_claude_dirs). New or changed
// settings are the post-session audit's (audit/claude_files.hpp).
#include "common/claude_keys.hpp"
#include "common/paths.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/bwrap/probe/scan.hpp"

namespace blaude::sandbox::bwrap {

void probe_claude_code(HostFacts& f, const std::string& config_dir, const std::string& workspace) {
  for (const auto& e : claude_code_entries()) {
    const std::string p = config_dir + "/" + e.name;
    f.paths.emplace(p, probe_path(p));
    if (!f.at(p).real.empty()) identify(f.ws.ids, f.at(p).real);
  }
  // The parent of the empty dirs that stand for missing ones (plan.cpp add_claude_code_guards).
  if (const PathFact cd = probe_path(config_dir); cd.kind == Kind::Dir && !cd.real.empty()) identify(f.ws.ids, cd.real);
  f.claude_scripts = claude_settings_programs(config_dir, workspace, f.home);
  // Each script and its dir (plan.cpp add_claude_code_guards keeps both read-only).
  for (const auto& s : f.claude_scripts) {
    identify(f.ws.ids, s);
    identify(f.ws.ids, dirname_of(s));
  }
}

}  // namespace blaude::sandbox::bwrap
