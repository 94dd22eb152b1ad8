// The planner's test matrix: a synthetic host with everything plan() has a rule for, the ways a
// host can nest its tool and config dirs (variants), and the option combinations (combos). The
// mount-order test plans over all of it; the golden test records what every plan is.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fake_host.hpp"
#include "sandbox/request.hpp"

namespace blaude::testing::matrix {

using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;

// A host with everything the planner has a rule for; `home` may lie under /tmp.
inline HostFacts rich_host(const std::string& home, const std::string& cwd) {
  HostFacts f;
  f.user = "u";
  f.home = f.home_real = home;
  f.cwd = cwd;
  f.bwrap = "/usr/bin/bwrap";
  for (auto [d, t] : {std::pair{"/bin", "usr/bin"}, {"/sbin", "usr/sbin"}, {"/lib", "usr/lib"}})
    put_link(f, d, t, std::string("/") + t, Kind::Dir);
  put(f, "/lib64", Kind::Dir);
  put(f, "/tmp", Kind::Dir);
  f.tmp_socket_dirs = {"/tmp/.X11-unix", "/tmp/tmux-1000"};
  for (const auto& d : f.tmp_socket_dirs) put(f, d, Kind::Dir);
  for (const char* d : {".claude", ".config", ".npm", ".local/bin", ".local/share/pipx", ".local/share/uv/tools",
                        ".cache/uv", ".yarn", ".cargo/bin", "go/bin", ".local/share/claude", ".agents", ".bun",
                        ".bun/install/cache", ".ssh", ".aws", ".local/share/keyrings", ".notebooklm-mcp",
                        "arxiv-storage", ".gnupg"})
    put(f, home + "/" + d, Kind::Dir);
  for (const char* p : {".claude.json", ".gitconfig", ".git-credentials", ".local/bin/claude"})
    put(f, home + "/" + p, Kind::File);
  f.opt_tool_dirs = {"/opt/vendor/bin"};
  put(f, "/opt/vendor/bin", Kind::Dir);
  put(f, "/run/user/1000/gnupg", Kind::Dir);
  put(f, "/run/user/1000/ssh.sock", Kind::Socket);
  put(f, "/run/user/1000/bus", Kind::Socket);
  f.env["SSH_AUTH_SOCK"] = "/run/user/1000/ssh.sock";
  f.env["GNUPGHOME"] = home + "/.gnupg";
  f.nvm_dir = home + "/.nvm";
  f.fnm_dir = home + "/.local/share/fnm";
  f.pnpm_home = home + "/.local/share/pnpm";
  f.corepack_home = home + "/.cache/node/corepack";
  for (const auto& d : {f.nvm_dir, f.fnm_dir, f.pnpm_home, f.corepack_home}) put(f, d, Kind::Dir);
  // A git workspace with protected names.
  put(f, cwd, Kind::Dir);
  f.ws.git.protect.push_back({cwd + "/.git/config", Guard::ReadOnly, "config"});
  f.ws.git.protect.push_back({cwd + "/.git/hooks", Guard::ReadOnly, "hooks"});
  f.ws.hits.emplace_back(".vscode", PathFact{Kind::Dir, Kind::Dir, cwd + "/.vscode", ""});
  f.ws.hits.emplace_back(".bashrc", PathFact{Kind::File, Kind::File, cwd + "/.bashrc", ""});
  for (std::string p : {cwd + "/.git/config", cwd + "/.git/hooks", cwd + "/.vscode", cwd + "/.bashrc"})
    for (; p.size() > 1; p = p.substr(0, std::max<size_t>(1, p.rfind('/')))) f.ws.ids.emplace(p, Identity{1, 2, 0040000});
  return f;
}

// Ways a host can place tool and config dirs inside each other (XDG layouts, env overrides).
using Variant = std::function<void(HostFacts&)>;
inline std::vector<std::pair<std::string, Variant>> variants() {
  auto cfg = [](HostFacts& f, const std::string& rel) { return f.home + "/.config/" + rel; };
  return {
      {"plain", [](HostFacts&) {}},
      {"nvm under ~/.config", [=](HostFacts& f) { f.nvm_dir = cfg(f, "nvm"); put(f, f.nvm_dir, Kind::Dir); }},
      {"fnm under ~/.config", [=](HostFacts& f) { f.fnm_dir = cfg(f, "fnm"); put(f, f.fnm_dir, Kind::Dir); }},
      {"pnpm under ~/.config", [=](HostFacts& f) { f.pnpm_home = cfg(f, "pnpm"); put(f, f.pnpm_home, Kind::Dir); }},
      {"corepack under ~/.config",
       [=](HostFacts& f) { f.corepack_home = cfg(f, "corepack"); put(f, f.corepack_home, Kind::Dir); }},
      {"all tools under ~/.config",
       [=](HostFacts& f) {
         f.nvm_dir = cfg(f, "nvm");
         f.fnm_dir = cfg(f, "fnm");
         f.pnpm_home = cfg(f, "pnpm");
         f.corepack_home = cfg(f, "corepack");
         for (const auto& d : {f.nvm_dir, f.fnm_dir, f.pnpm_home, f.corepack_home}) put(f, d, Kind::Dir);
       }},
      {"CLAUDE_CONFIG_DIR under ~/.config",
       [=](HostFacts& f) { f.env["CLAUDE_CONFIG_DIR"] = cfg(f, "claude"); put(f, cfg(f, "claude"), Kind::Dir); }},
      {"~/.config/git is a dir", [=](HostFacts& f) { put(f, cfg(f, "git"), Kind::Dir); }},
      {"~/.config/git is a link", [=](HostFacts& f) { put_link(f, cfg(f, "git"), "../dots/git", f.home + "/dots/git", Kind::Dir); }},
      {"env dirs under ~/.config and /tmp",
       [=](HostFacts& f) {
         f.env["CLAUDE_PLUGIN_DATA"] = cfg(f, "plugdata");
         put(f, cfg(f, "plugdata"), Kind::Dir);
         f.env["CLAUDE_LOGS_DIR"] = "/tmp/claude-logs";
         put(f, "/tmp/claude-logs", Kind::Dir);
         f.env["CLAUDE_CODE_TMPDIR"] = "/tmp/ctmp";
         put(f, "/tmp/ctmp", Kind::Dir);
       }},
      {"linked package in nvm",
       [](HostFacts& f) {
         LinkedPackage p;
         p.label = "nvm";
         p.root = "/srv/dev/mcp";
         p.mount = "/srv/dev/mcp";
         p.token_cache = PathFact{Kind::File, Kind::File, "/srv/dev/mcp/.token-cache.json", ""};
         f.linked_packages.push_back(p);
         put(f, "/srv/dev/mcp", Kind::Dir);
       }},
      {"managed dir", [](HostFacts& f) { f.managed_dirs.push_back({"/srv/managed/bin", true}); }},
  };
}

struct Combo {
  std::string name;
  std::function<void(SandboxRequest&)> set;
};

inline std::vector<Combo> combos() {
  return {
      {"defaults", [](SandboxRequest&) {}},
      {"--allow-protected-writes", [](SandboxRequest& o) { o.allow_protected_writes = true; }},
      {"--clear-tmp", [](SandboxRequest& o) { o.clear_tmp = true; }},
      {"--tmp", [](SandboxRequest& o) { o.tmp = true; }},
      {"--git --ssh --aws --keyring", [](SandboxRequest& o) { o.git = o.ssh = o.aws = o.keyring = true; }},
      {"--no-network --clear-tmp --git", [](SandboxRequest& o) { o.no_network = o.clear_tmp = o.git = true; }},
  };
}

}  // namespace blaude::testing::matrix
