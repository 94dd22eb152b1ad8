#include "sandbox/policy/print.hpp"

#include <algorithm>

namespace blaude::sandbox::policy {

namespace {

std::string pad(std::string_view s, size_t w) {
  std::string r(s);
  if (r.size() < w) r.append(w - r.size(), ' ');
  return r;
}

bool contains(const Grants& gs, const Grant& g) {
  return std::any_of(gs.begin(), gs.end(),
                     [&](const Grant& o) { return o.access == g.access && o.path == g.path; });
}

}  // namespace

std::string format_grants(const Grants& grants) {
  if (grants.empty()) return "  (no extra grants)\n";
  size_t w = 0;
  for (const auto& g : grants) w = std::max(w, g.path.size());
  std::string out;
  for (const auto& g : grants)
    out += "  " + pad(access_name(g.access), 6) + " " + pad(g.path, w) + "  (" + g.origin + ")\n";
  return out;
}

GrantDiff diff_grants(const Grants& before, const Grants& after) {
  GrantDiff d;
  for (const auto& g : after)
    if (!contains(before, g)) d.added.push_back(g);
  for (const auto& g : before)
    if (!contains(after, g)) d.removed.push_back(g);
  return d;
}

std::string format_diff(const GrantDiff& diff) {
  if (diff.empty()) return "  (no change in grants)\n";
  std::string out;
  for (const auto& g : diff.added)
    out += "  + " + pad(access_name(g.access), 6) + " " + g.path + "\n";
  for (const auto& g : diff.removed)
    out += "  - " + pad(access_name(g.access), 6) + " " + g.path + "\n";
  return out;
}

std::string session_guards_summary() {
  return "  after the session: git repositories under the workspace and writable mounts are audited;\n"
         "    new git settings, hooks and pointers that would run code on this machine are moved aside;\n"
         "    Claude Code's settings (~/.claude/settings*.json, ~/.claude.json, .claude/settings*.json)\n"
         "    keep only changes to keys known to be inert (the model, the theme, counters); every other\n"
         "    key goes back to its value at the start; a new .claude or .mcp.json at any depth, or a new\n"
         "    ~/.claude/CLAUDE.md, is moved aside\n"
         "  Claude Code's hooks, commands, skills, agents, rules, output styles, CLAUDE.md and the scripts\n"
         "    its settings name, with their dirs: read-only, present or not; its plugins: discarded\n"
         "  host IPC: a fresh kernel keyring; abstract unix sockets and signals scoped to the sandbox\n"
         "    where the kernel has Landlock 6+ (else a warning at start); /tmp's X11, tmux, ssh, dbus\n"
         "    sockets shadowed\n";
}

std::string protected_summary() {
  return "  writes always denied, in every git repository at any depth: the files git reads hooks and\n"
         "    config from (config, hooks, core.hooksPath, included files, worktree and submodule pointers)\n"
         "  at any depth, Claude Code's project files: .claude and .mcp.json (read-only; a new one is moved\n"
         "    aside after the session)\n"
         "  and down to 3 levels: .env*, shell rc files, .vscode, .idea, .blaude, .xclaude\n";
}

}  // namespace blaude::sandbox::policy
