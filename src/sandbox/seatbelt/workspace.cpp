#include "sandbox/seatbelt/workspace.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "common/paths.hpp"
#include "sandbox/workspace/names.hpp"

namespace blaude::sandbox::seatbelt {

namespace ws = blaude::sandbox::workspace;

namespace {

// xclaude's own list: these stay uncreatable at the project root even when missing. Other
// .env* names (.env.example) can be created; existing ones anywhere to depth 3 are protected.
const char* const kRootEnvNames[] = {".env", ".env.local", ".env.development", ".env.staging", ".env.test",
                                     ".env.production"};

}  // namespace

WorkspaceProtections protections_from(const std::string& project, const ws::WorkspaceWalk& walk,
                                      const ws::GitScan& git, ws::GitFs& fs, bool is_project) {
  WorkspaceProtections out;
  std::map<std::string, Protected> prot;
  auto add = [&](const std::string& path, bool tree, const std::string& why) {
    auto [it, fresh] = prot.emplace(path, Protected{path, tree, why});
    if (!fresh) it->second.tree = it->second.tree || tree;
  };
  for (const auto& p : git.protect) {
    bool dir = p.guard == ws::Guard::EmptyDir || fs.lstat(p.path).type == S_IFDIR;
    add(p.path, dir, p.why);
  }
  for (const auto& e : walk.dotnames) {
    const std::string name = basename_of(e.rel);
    const std::string path = project + "/" + e.rel;
    const bool is_dir = e.type == S_IFDIR, is_link = e.type == S_IFLNK;
    bool file_name = std::find(ws::protected_file_names().begin(), ws::protected_file_names().end(), name) !=
                         ws::protected_file_names().end() ||
                     ws::is_env_file_name(name);
    if (ws::is_protected_dir_name(name) && (is_dir || is_link)) {
      add(path, true, name + (name == ".claude" ? " (Claude Code runs what it names)" : " (editor settings run on the host)"));
    } else if (file_name && !is_dir) {
      add(path, false, name + " (runs on the host, or holds secrets)");
    } else {
      continue;
    }
    if (is_link) {
      // Writing through the link lands on its target, which Seatbelt checks: protect that too
      // when it is in the project (the link itself is covered by the literal above).
      std::string real = fs.realpath(path);
      if (!real.empty() && is_under(real, project) && real != project) add(real, is_dir || ws::is_protected_dir_name(name), "target of " + path);
    }
  }
  if (is_project) {
    for (const char* n : kRootEnvNames) add(project + "/" + n, false, std::string(n) + " at the project root");
    // Claude Code's project files where claude is started most: uncreatable there too (deeper,
    // a new one is the audit's).
    add(project + "/.claude", true, ".claude at the project root (Claude Code runs what it names)");
    add(project + "/.mcp.json", false, ".mcp.json at the project root (claude -p starts its servers)");
  }
  for (auto& [path, p] : prot) out.protect.push_back(std::move(p));

  // The project's own worktree pointer: a linked worktree commits into a gitdir and a common
  // dir outside the project (git worktree add). Nested pointers get no such grant: a cloned
  // repository cannot open another repository on the disk by carrying a .git file.
  for (const auto& r : git.repos) {
    if (!is_project || r.worktree != project) continue;
    for (const std::string* d : {&r.gitdir, &r.commondir})
      if (!d->empty() && !is_under(*d, project) &&
          std::find(out.git_dirs.begin(), out.git_dirs.end(), *d) == out.git_dirs.end())
        out.git_dirs.push_back(*d);
  }
  out.warnings = git.warnings;
  if (walk.truncated)
    out.warnings.push_back("the workspace scan stopped at " + walk.truncated_at + " after " +
                           std::to_string(walk.entries) +
                           " entries: repositories below it are not protected this session");
  for (const auto& u : walk.unreadable)
    out.warnings.push_back(project + "/" + u + " could not be read: repositories in it are not protected");
  return out;
}

WorkspaceProtections scan_workspace(const std::string& project, const std::string& home,
                                    const std::string& xdg_config_home) {
  ws::WorkspaceWalk walk = ws::walk_workspace(project);
  ws::GitFs& fs = ws::host_git_fs();
  ws::GlobalGitConfig global = ws::read_global_git_config(fs, home, xdg_config_home);
  ws::GitScan git = ws::scan_repos(fs, walk.git, global, home);
  return protections_from(project, walk, git, fs);
}

WorkspaceProtections scan_writable_roots(const std::vector<std::string>& roots, const std::string& home,
                                         const std::string& xdg_config_home) {
  WorkspaceProtections out;
  ws::GitFs& fs = ws::host_git_fs();
  const ws::GlobalGitConfig global = ws::read_global_git_config(fs, home, xdg_config_home);
  for (const auto& root : roots) {
    ws::WorkspaceWalk walk = ws::walk_workspace(root);
    auto w = protections_from(root, walk, ws::scan_repos(fs, walk.git, global, home), fs, false);
    out.protect.insert(out.protect.end(), w.protect.begin(), w.protect.end());
    out.warnings.insert(out.warnings.end(), w.warnings.begin(), w.warnings.end());
  }
  return out;
}

}  // namespace blaude::sandbox::seatbelt
