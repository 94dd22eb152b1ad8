// The bwrap mount table, in the order bwrap must apply it (a later mount covers an earlier one).
#include "sandbox/bwrap/plan/plan.hpp"

#include <algorithm>
#include <string_view>

#include "sandbox/bwrap/plan/mount_order.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"
#include "common/claude_keys.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

using detail::Builder;
using detail::Fallback;

namespace detail {

void Builder::rw(const std::string& src, const std::string& dst) {
  add(OpKind::Bind, src, dst);
  const std::string& real = f.at(src).real;
  rw_binds.emplace_back(real.empty() ? src : real, dst);
}

std::string Builder::landing(const std::string& path) {
  const std::string shown = source_at(ops, path);
  if (shown.empty()) return path;
  const PathFact& pf = f.at(shown);
  if (pf.lkind != Kind::Symlink) return path;
  if (pf.real.empty()) {
    p.warnings.push_back(path + " is a broken symlink; it is not mounted");
    return {};
  }
  if (is_under(f.home_real, pf.real) || is_under(f.home, pf.real)) {
    p.warnings.push_back(path + " is a symlink to your home directory or a parent of it; it is not mounted");
    return {};
  }
  p.notes.push_back(path + " is a symlink to " + pf.real + "; mounting that");
  return pf.real;
}

void Builder::overlay_or(const std::string& path_in, Fallback fb, const std::string& why) {
  if (!is_dir(path_in)) return;
  const std::string path = landing(path_in);
  if (path.empty()) return;
  const size_t from = ops.size();
  if (req.allow_protected_writes) {
    rw(path);
  } else if (f.overlay) {
    overlay(path, path);
    protects_since(from, "writes discarded", why);
  } else if (fb == Fallback::Bind && f.ipc.own_overlay) {
    // bwrap < 0.9: blaude mounts the overlay itself before bwrap starts (probe/confine.hpp); bwrap
    // binds what it shows.
    add(OpKind::Bind, path, path);
    p.confine.overlays.push_back(path);
    protects_since(from, "writes discarded", why, ProtectForm::OwnOverlay);
  } else if (fb == Fallback::Tmpfs) {
    tmpfs(path);
    protects_since(from, "hidden (empty tmpfs)", why);
  } else if (fb == Fallback::RoBind) {
    ro(path);
    protects_since(from, "read-only", why);
  } else {
    rw(path);
    host_writable.push_back(path);
    protects_since(from, "writable", why, ProtectForm::HostWritable);
  }
}

}  // namespace detail

uid_t sandbox_uid(const HostFacts& f) { return f.uid == 0 ? 1000 : f.uid; }
gid_t sandbox_gid(const HostFacts& f) { return f.uid == 0 ? 1000 : f.gid; }

std::string workspace_dest(const std::string& cwd) {
  std::string name = basename_of(cwd);
  for (char& c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (name.empty() || name == "." || name == "..") name = "workspace";
  return "/workspaces/" + name;
}

std::string sandbox_path(const HostFacts& f) {
  const std::string& h = f.home;
  std::vector<std::string> dirs = {h + "/.local/bin", h + "/go/bin", h + "/.cargo/bin",
                                   h + "/.bun/bin",   "/opt/host-bin", "/opt/host-cargo-bin",
                                   "/opt/host-go-bin"};
  // Only a node that plan() mounts: nvm's or fnm's own tree (NVM_BIN may point anywhere).
  std::string nvm = !f.nvm_node_bin.empty() && is_under(f.nvm_node_bin, f.nvm_dir) ? f.nvm_node_bin : "";
  std::string fnm = !f.fnm_node_bin.empty() && is_under(f.fnm_node_bin, f.fnm_dir) &&
                            f.at(f.fnm_dir).kind == Kind::Dir
                        ? f.fnm_node_bin
                        : "";
  // The node the user's shell selected comes first: fnm's when its multishell is active, else
  // nvm's when NVM_BIN is set; the other one (or both) after the base dirs.
  auto front = [&](const std::string& d) { dirs.insert(dirs.begin(), d); };
  auto back = [&](const std::string& d) {
    if (!d.empty()) dirs.push_back(d);
  };
  if (!fnm.empty() && !f.env_or("FNM_MULTISHELL_PATH").empty()) {
    front(fnm);
    back(nvm);
  } else if (!nvm.empty() && !f.env_or("NVM_BIN").empty()) {
    front(nvm);
    back(fnm);
  } else {
    back(fnm);
    back(nvm);
  }
  if (f.at(f.fnm_dir).kind == Kind::Dir && f.at(f.fnm_dir + "/fnm").kind == Kind::File) dirs.push_back(f.fnm_dir);
  if (f.at(f.pnpm_home).kind == Kind::Dir) {
    if (f.at(f.pnpm_home + "/bin").kind == Kind::Dir) dirs.push_back(f.pnpm_home + "/bin");
    // pnpm's standalone install keeps pnpm and the global bins in PNPM_HOME itself.
    if (f.at(f.pnpm_home + "/pnpm").kind == Kind::File) dirs.push_back(f.pnpm_home);
  }
  if (f.at(h + "/.yarn/bin").kind == Kind::Dir) dirs.push_back(h + "/.yarn/bin");
  for (const char* d : {"/usr/local/bin", "/usr/bin", "/bin", "/sbin", "/usr/sbin"}) dirs.push_back(d);
  // The dir where the user's PATH found the program (plan() makes it reachable there), first:
  // `claude` inside resolves to the same claude, also for claude's own subprocesses. Only a
  // dir not listed already, so the order of the usual dirs (nvm's node first, ...) stays.
  size_t at = 0;
  for (const ExeFact* e : {&f.exe, &f.claude}) {
    if (!e->from_path || e->found.empty()) continue;
    std::string d = dirname_of(e->found);
    if (d.find(':') == std::string::npos && std::find(dirs.begin(), dirs.end(), d) == dirs.end())
      dirs.insert(dirs.begin() + long(at++), d);
  }
  std::string out;
  for (const auto& d : dirs) {
    if (!out.empty()) out += ':';
    out += d;
  }
  return out;
}

namespace {

void add_namespaces(Builder& b) {
  for (std::vector<std::string> o : {std::vector<std::string>{"--unshare-user"},
                                     {"--uid", std::to_string(sandbox_uid(b.f))},
                                     {"--gid", std::to_string(sandbox_gid(b.f))},
                                     {"--unshare-pid"}, {"--unshare-ipc"}, {"--unshare-uts"},
                                     {"--hostname", "blaude"}, {"--unshare-cgroup-try"},
                                     {"--cap-drop", "ALL"}, {"--die-with-parent"}})
    b.option(std::move(o));
  // With a pty between us and the user, TIOCSTI can only reach that pty. Without one the
  // sandbox would share the user's terminal, so it gets its own session.
  if (!b.f.stdio_tty) b.option({"--new-session"});
  if (b.req.no_network) b.option({"--unshare-net"});
  b.p.syscalls = {b.f.syscall_filter, b.req.nested_sandbox,
                  b.f.syscall_filter && !b.req.nested_sandbox && kUsernsByShim};
}

void add_system(Builder& b) {
  b.ro("/usr");
  // Merged-/usr hosts have /bin → usr/bin: recreate the link instead of a second copy.
  for (const char* d : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    const PathFact& pf = b.f.at(d);
    if (pf.lkind == Kind::Symlink && !pf.link.empty()) {
      b.add(OpKind::Symlink, pf.link, d);
    } else if (pf.lkind == Kind::Dir) {
      b.ro(d);
    }
  }
  b.ro("/etc");
  if (b.is_dir("/usr/share/pyenv/shims")) b.tmpfs("/usr/share/pyenv/shims");
  // Where the protect helper runs, it makes /dev on a plain tmpfs (InnerKind::Dev): bwrap's --dev
  // costs ~0.7 ms of every start. Elsewhere bwrap's own --dev.
  b.inner_dev = b.f.inner_mounts;
  b.add(b.inner_dev ? OpKind::Tmpfs : OpKind::Dev, "", "/dev");
  b.add(OpKind::Proc, "", "/proc");
}

void add_tmp_and_run(Builder& b) {
  if (b.req.clear_tmp) {
    b.tmpfs("/tmp");
  } else {
    b.rw("/tmp");
    detail::add_tmp_ipc(b);
  }
  const std::string uid = std::to_string(sandbox_uid(b.f));
  for (const std::string& d : {std::string("/var"), std::string("/run"), "/run/user/" + uid}) b.tmpfs(d);
}

// /etc/resolv.conf is often a link into /run (systemd-resolved), which is a tmpfs here. Bind
// the content at the link's final target so absolute and relative links both resolve.
void add_resolv(Builder& b) {
  const PathFact& rc = b.f.at("/etc/resolv.conf");
  if (rc.lkind != Kind::Symlink) return;
  if (rc.real.empty() || b.f.resolv_content.empty()) {
    b.p.warnings.push_back("/etc/resolv.conf is a dangling symlink; DNS may not work in the sandbox");
    return;
  }
  for (const char* visible : {"/etc", "/usr"})
    if (is_under(rc.real, visible)) return;
  b.dir(dirname_of(rc.real));
  b.add(OpKind::Data, "@fd:resolv", rc.real);
  b.p.data_fds.push_back({"@fd:resolv", b.f.resolv_content});
}

void add_home(Builder& b) {
  const std::string& h = b.f.home;
  b.tmpfs(h);
  // Leaves only: bwrap makes a --dir's missing parents (0755, as --dir itself), and on bwrap 0.9+
  // every --dir walks its path from / one component at a time (each op costs start-up).
  for (const char* d : {".local/bin", ".local/share", ".local/lib", ".cache", "go/bin", "go/pkg", ".cargo/bin",
                        ".cargo/registry"})
    b.dir(b.home(d));
  // After the $HOME tmpfs, or the tmpfs would hide it; a missing one under the host /tmp is
  // left for claude to create (a --tmpfs there would create it on the host).
  std::string ct = b.f.env_or("CLAUDE_CODE_TMPDIR");
  if (!ct.empty() && ct.front() == '/') {
    ct = normalize(ct);
    bool host_tmp = !b.req.clear_tmp && is_under(ct, "/tmp");
    if (ct != "/tmp" && (!host_tmp || b.is_dir(ct))) b.tmpfs(ct);
  }
  if (b.is_dir(b.home(".npm"))) {
    b.overlay_or(b.home(".npm"), Fallback::Bind, "npm's cache and its global packages");
  } else {
    b.dir(b.home(".npm/_cacache"));  // and .npm
  }
}

void add_tools(Builder& b) {
  b.dir("/opt");
  if (b.is_dir(b.home(".local/bin"))) b.ro(b.home(".local/bin"), "/opt/host-bin");
  for (const auto& d : b.f.opt_tool_dirs) b.ro(d);
  if (b.f.at(b.home(".local/bin/claude")).kind == Kind::File) b.ro(b.home(".local/bin/claude"));
  for (const char* d : {".local/share/pipx", ".local/share/uv/tools", ".local/share/uv/python"})
    b.overlay_or(b.home(d), Fallback::RoBind, "tools the host runs");
  b.overlay_or(b.home(".cache/uv"), Fallback::Bind, "uv's cache (the host's environments link into it)");
  b.overlay_or(b.f.nvm_dir, Fallback::RoBind, "nvm's Node.js installs");
  b.overlay_or(b.f.fnm_dir, Fallback::RoBind, "fnm's Node.js installs");
  b.overlay_or(b.f.pnpm_home, Fallback::RoBind, "pnpm's home");
  b.overlay_or(b.f.corepack_home, Fallback::RoBind, "corepack's package managers");
  b.overlay_or(b.home(".yarn"), Fallback::RoBind, "yarn's home");
  if (b.is_dir(b.home(".cargo/bin"))) b.ro(b.home(".cargo/bin"), "/opt/host-cargo-bin");
  if (b.is_dir(b.home("go/bin"))) b.ro(b.home("go/bin"), "/opt/host-go-bin");
  if (b.is_dir(b.home(".local/share/claude"))) b.ro(b.home(".local/share/claude"));
  if (b.is_file(b.home(".claude.json"))) b.rw(b.home(".claude.json"));
  if (b.is_dir(b.home(".agents"))) b.ro(b.home(".agents"));
  // The seed creates both on every launch: notebooklm-mcp keeps its login there, and a first
  // login inside the sandbox must outlive the session.
  for (const char* d : {".notebooklm-mcp", ".notebooklm-mcp-cli"})
    detail::persistent_dir(b, b.home(d), "notebooklm-mcp keeps its login there");
}


// ~/.config before the tool dirs: nvm, fnm, pnpm or corepack may live inside it
// (NVM_DIR=$XDG_CONFIG_HOME/nvm), and a later ~/.config mount would hide their read-only
// binds, leaving them host-writable in the fallback.
void add_config(Builder& b) {
  const std::string cfg = b.home(".config");
  b.overlay_or(cfg, Fallback::Bind, "your programs' settings (many run code)");
  const bool writable = std::find(b.host_writable.begin(), b.host_writable.end(), cfg) != b.host_writable.end();
  if (!b.req.allow_protected_writes && b.is_dir(cfg)) {
    // Git settings there run on the host at the next git call: read-only even without overlays.
    // Judged by lstat: a dotfile manager's symlink (stow: git -> ../dotfiles/git) cannot be
    // mounted on (bwrap 0.10+ refuses a symlink destination, 0.8 follows it into the tmpfs
    // $HOME and fails), and its target is not bound either (a link planted in a host-writable
    // ~/.config would otherwise expose whatever it names). Inside, the link leads where the
    // sandbox's own mounts do: usually nowhere, as $HOME is a tmpfs.
    const std::string git = cfg + "/git";
    const PathFact& g = b.f.at(git);
    if (g.lkind == Kind::Symlink) {
      if (b.f.overlay || b.f.ipc.own_overlay)
        b.p.notes.push_back(git + " is a symlink; it is not mounted (replacing it in the sandbox is discarded)");
      else
        b.p.warnings.push_back(git + " is a symlink in the host-writable " + cfg +
                               "; it cannot be made read-only without overlays (bubblewrap 0.9+)");
    } else if (g.lkind == Kind::Missing) {
      const size_t from = b.ops.size();
      b.tmpfs(git);
      b.add(OpKind::RemountRo, "", git);
      b.protects_since(from, "empty, read-only", "git's settings (git on the host reads them)");
    } else {
      const size_t from = b.ops.size();
      b.ro(git);
      b.protects_since(from, "read-only", "git's settings (git on the host reads them)");
    }
  }
  if (writable && !b.req.allow_protected_writes) detail::add_config_fallback_pins(b, cfg);
  if (!writable && !b.req.allow_protected_writes && (b.f.overlay || b.f.ipc.own_overlay) && b.is_dir(cfg)) {
    const PathFact& c = b.f.at(cfg);
    detail::add_config_unmapped(b, c.lkind == Kind::Symlink ? c.real : cfg);
  }
}

// What in claude's writable dir makes the next claude on the host run code or follow
// instructions (common/claude_keys.hpp claude_code_entries: hooks, commands, skills, agents,
// workflows, routines, rules, output styles, plugins, a local install, CLAUDE.md, scheduled
// tasks), and the scripts the user's and the project's settings name with their directories:
// read-only guards of the protect layout, at every alias through which they are writable (a
// workspace script is covered too). Installed plugins are a write-discarding overlay like
// ~/.config (claude updates its plugin store at every start), read-only where no overlay can be
// made. A missing dir is an empty read-only one (the launcher creates it, as for a missing
// .git/hooks), the plugin store an empty tmpfs. A missing file cannot be mounted on: the audit
// moves a new one aside (app/audit.cpp). The settings files themselves stay writable (claude keeps the model and
// other choices there): the audit keeps only changes to inert keys.
void add_claude_code_guards(Builder& b, const std::string& cd) {
  std::vector<std::string> covered;
  const bool overlays = b.f.overlay || b.f.ipc.own_overlay;
  for (const auto& e : claude_code_entries()) {
    const std::string path = cd + "/" + e.name;
    const PathFact& pf = b.f.at(path);
    const std::string why = std::string("Claude Code's ") + e.name + " (the next claude on the host reads it)";
    if (std::string_view(e.name) == "plugins" && pf.kind == Kind::Dir) {
      if (overlays) {
        b.overlay_or(path, Fallback::Bind, why);
      } else {
        const size_t from = b.ops.size();
        b.ro(path);
        b.protects_since(from, "read-only", why);
      }
      if (!pf.real.empty()) covered.push_back(pf.real);
    } else if (pf.kind == (e.dir ? Kind::Dir : Kind::File) && !pf.real.empty()) {
      b.claude_guards.push_back({pf.real, Guard::ReadOnly, why});
      covered.push_back(pf.real);
    } else if (pf.lkind == Kind::Missing) {
      // A missing dir: an empty read-only one at every alias, as for a missing .git/hooks; the
      // plugin store a writable tmpfs (claude creates it at start), gone at the end.
      const std::string& parent = b.f.at(cd).real;
      // Files, and a local install that is not there (nothing runs it then: the user's alias to
      // it comes with the install), are left to the audit.
      if (!e.dir || std::string_view(e.name) == "local") continue;
      // (The empty dir's parent must have its identity from the probe: the helper pins it.)
      if (std::string_view(e.name) == "plugins" || parent.empty() || !b.f.ws.ids.count(parent)) {
        // Where the config dir is mounted: its target when it is a symlink (Builder::landing).
        const size_t from = b.ops.size();
        b.tmpfs((parent.empty() ? cd : parent) + "/" + e.name);
        b.protects_since(from, "tmpfs, gone at exit", why);
      } else {
        b.claude_guards.push_back({parent + "/" + e.name, Guard::EmptyDir, why});
      }
    } else {
      b.p.warnings.push_back(path + " is not a " + (e.dir ? "directory" : "regular file") +
                             " (or a link to one); it is left as it is: remove it if you did not put it there");
    }
  }
  std::vector<std::string> roots = {cd, b.f.home, b.f.home_real, b.f.cwd, "/tmp", "/var/tmp", "/dev/shm", "/run"};
  for (const auto& m : b.req.mounts)
    if (!m.path.empty()) roots.push_back(normalize(m.path.front() == '/' ? m.path : b.f.cwd + "/" + m.path));
  for (const auto& s : b.f.claude_scripts) {
    if (std::any_of(covered.begin(), covered.end(), [&](const std::string& c) { return is_under(s, c); })) continue;
    b.claude_guards.push_back({s, Guard::ReadOnly, "a program Claude Code's settings name"});
    // Its directory too: an interpreter loads modules from beside the script (a json.py next to
    // a Python hook), a shell script sources its neighbours. Not where that dir is one the
    // session must write (the config dir, home, the workspace or above).
    const std::string dir = dirname_of(s);
    const bool wide =
        std::any_of(roots.begin(), roots.end(), [&](const std::string& r) { return !r.empty() && is_under(r, dir); });
    if (wide) {
      b.p.notes.push_back(s + ": its directory stays writable (the session works there); files beside it can change what it runs");
    } else if (std::find(covered.begin(), covered.end(), dir) == covered.end()) {
      b.claude_guards.push_back({dir, Guard::ReadOnly, "the directory of a program Claude Code's settings name"});
      covered.push_back(dir);
    }
  }
}

// Claude's own dirs, writable: after ~/.config, so a CLAUDE_CONFIG_DIR inside it is not
// covered by the overlay.
void add_claude_dirs(Builder& b) {
  const std::string cd = claude_config_dir(b.f);
  if (b.is_dir(cd)) {
    b.rw(cd);
  } else if (b.f.at(cd).lkind == Kind::Missing && b.is_dir(dirname_of(cd))) {
    // claude writes its settings there; without it nothing of a session persists.
    b.p.preparations.push_back({HostPrep::Kind::MakeDir, cd, 0700, "", true, "claude's settings persist there"});
    b.rw(cd);
  } else {
    b.p.warnings.push_back(cd + " does not exist; claude's settings will not persist this session");
  }
  if (!b.req.allow_protected_writes) add_claude_code_guards(b, cd);
  if (b.is_dir(b.home("arxiv-storage"))) b.rw(b.home("arxiv-storage"));
  // claude-mem's memory store: created, as the seed does, when the plugin is installed.
  if (b.f.claude_mem_plugin) {
    detail::persistent_dir(b, b.home(".claude-mem"), "the claude-mem plugin keeps its memory there");
  } else if (b.is_dir(b.home(".claude-mem"))) {
    b.rw(b.home(".claude-mem"));
  }
  if (b.is_dir(b.home(".bun"))) {
    b.overlay_or(b.home(".bun"), Fallback::RoBind, "bun's installs");
    if (!b.f.overlay && !b.req.allow_protected_writes && b.is_dir(b.home(".bun/install/cache")))
      b.tmpfs(b.home(".bun/install/cache"));
  }
}

void add_opt_ins(Builder& b) {
  const auto& f = b.f;
  if (b.req.git) {
    for (const char* n : {".gitconfig", ".git-credentials"})
      if (b.is_file(b.home(n))) b.ro(b.home(n));
    detail::add_gpg(b);
  }
  if (b.req.ssh) {
    if (b.is_dir(b.home(".ssh"))) b.ro(b.home(".ssh"));
    // The agent's own dir when it is a dedicated one (ssh-agent's /tmp/ssh-XXXX): an agent
    // restarted or rotated onto the same path during the session stays reachable. Else the
    // socket alone: its parent may be all of $XDG_RUNTIME_DIR (D-Bus, systemd, Wayland).
    std::string sock = f.env_or("SSH_AUTH_SOCK");
    if (!sock.empty() && f.at(sock).kind == Kind::Socket) {
      if (!f.ssh_agent_dir.empty()) {
        b.rw(f.ssh_agent_dir);
      } else {
        b.rw(sock);
      }
    } else {
      b.p.warnings.push_back("--ssh: SSH_AUTH_SOCK is not a socket; no agent forwarding");
    }
  }
  if (b.req.aws && b.is_dir(b.home(".aws"))) b.ro(b.home(".aws"));
  if (b.req.keyring) {
    std::string addr = f.env_or("DBUS_SESSION_BUS_ADDRESS");
    std::string sock = dbus_socket_path(f);
    if (addr.find("unix:path=") == std::string::npos && addr.find("unix:abstract=") != std::string::npos) {
      b.p.warnings.push_back("--keyring: D-Bus uses an abstract socket, which the sandbox cannot reach");
    }
    if (f.at(sock).kind == Kind::Socket) b.rw(sock);
    if (b.is_dir(b.home(".local/share/keyrings"))) b.rw(b.home(".local/share/keyrings"));
  }
}

void add_mounts(Builder& b) {
  for (size_t i = 0; i < b.req.mounts.size() && i < b.f.mounts.size(); ++i) {
    const auto& m = b.req.mounts[i];
    const std::string& path = b.f.mount_paths[i];
    const PathFact& pf = b.f.mounts[i];
    if (pf.lkind == Kind::Missing)
      throw PlanError("mount path does not exist: " + m.path, "Check the path given to -m/--mount.");
    if (pf.real.empty())
      throw PlanError("mount path is a broken symlink: " + m.path,
                      "Point -m at the link's target, or fix the link.");
    const std::string& r = pf.real;
    if (!b.req.allow_protected_writes && is_under(b.f.home_real, r))
      throw PlanError("refusing to mount your home directory or a parent of it: " + m.path,
                      "Mount a subdirectory instead, or use --allow-protected-writes to override.");
    if (r != path) b.p.notes.push_back("mount " + m.path + " is a symlink to " + r + "; mounting that");
    if (m.rw) {
      b.rw(r);
    } else {
      b.ro(r);
    }
  }
}

// An exec grant inside a writable one (a toolchain's npx/uvx cache) needs nothing here: bwrap
// has no exec rule, and a read-only bind of it would be hidden by the writable bind.
bool inside_write_grant(const Grant& g, const Grants& grants) {
  if (g.access != Access::Exec) return false;
  for (const auto& w : grants)
    if (w.access == Access::Write && is_under(g.path, w.path)) return true;
  return false;
}

void add_grants(Builder& b, const Grants& grants) {
  for (const auto& g : grants) {
    if (g.access == Access::Net) continue;  // proxy mode's, never a mount (the app keeps them apart)
    if (inside_write_grant(g, grants)) continue;
    // The policy names optional tool dirs: skip the ones probed and absent. An unprobed path
    // is bound anyway, and bwrap refuses to start if it is missing (fail closed).
    if (b.f.paths.count(g.path) && b.f.at(g.path).kind == Kind::Missing) continue;
    if (g.access == Access::Write) {
      b.rw(g.path);
    } else {
      b.ro(g.path);
    }
  }
}

// Always --clearenv: bwrap's own environment is empty (see run/launch.cpp), and under --keep-env the
// policy's list already holds the whole host environment minus what it must drop. Setting
// exactly the list is what makes those drops (CLAUDE_CODE_SUBPROCESS_ENV_SCRUB, the outer
// session's markers, ...) hold in every mode.
void add_env(Builder& b, const EnvList& env) {
  b.option({"--clearenv"});
  for (const auto& [k, v] : env) b.option({"--setenv", k, v});
}

// bwrap lets a later mount on an ancestor hide an earlier one: a read-only pin or a tool dir
// would silently become whatever the later mount shows (host-writable, say). The rules above
// are ordered so this never happens; should a host or an option combination still produce it,
// fail closed rather than start a sandbox that protects less than it claims.
// Under --allow-protected-writes the user chose to lose protections: a warning then.
void enforce_mount_order(Builder& b) {
  auto shadows = shadowed_mounts(steps_of(b.ops));
  shadows.erase(std::remove_if(shadows.begin(), shadows.end(),
                               [&](const Shadowing& s) { return b.soft_binds.count(s.hidden.dst) > 0; }),
                shadows.end());
  if (shadows.empty()) return;
  if (b.req.allow_protected_writes) {
    for (const auto& s : shadows) b.p.warnings.push_back("--allow-protected-writes: " + describe(s));
    return;
  }
  std::string what = "the sandbox's mount table would hide a mount: " + describe(shadows.front());
  if (shadows.size() > 1) what += " (and " + std::to_string(shadows.size() - 1) + " more)";
  throw PlanError(what,
                  "A -m/--mount or policy path that contains another mount causes this: mount a "
                  "narrower path. Otherwise it is a bug in blaude; please report it with the output "
                  "of `blaude --dry-run`.");
}

}  // namespace

LaunchPlan plan(const SandboxRequest& req, const HostFacts& facts, const EnvList& env) {
  // Only the protect helper's mounts can wait for the scan (deferred.hpp); as bwrap options the
  // protections are part of the argv, so the scan comes first.
  if (facts.ws_pending && !facts.inner_mounts) {
    HostFacts done = facts;
    wait_for_scan(done);
    return plan(req, done, env);
  }
  Builder b{req, facts};
  b.p.warnings = facts.probe_warnings;
  b.p.preparations = facts.cache_writes;
  add_namespaces(b);
  detail::add_confinement(b);
  add_system(b);
  add_tmp_and_run(b);
  add_resolv(b);
  add_home(b);
  add_config(b);
  add_tools(b);
  add_claude_dirs(b);
  detail::add_linked_packages(b);
  add_opt_ins(b);
  detail::add_env_binds(b);
  detail::add_managed_dirs(b);
  add_mounts(b);
  add_grants(b, req.grants);
  if (req.proxy) {
    for (auto& op : ops_from_words(req.proxy->bwrap_args)) b.add(std::move(op));
    for (const auto& [token, content] : req.proxy->data) b.p.data_fds.push_back({token, content});
  }
  for (auto& op : ops_from_words(req.services_bwrap_args)) b.add(std::move(op));
  detail::add_ipc_late(b);
  detail::add_exe(b, req.command);
  if (req.tmp) {
    b.option({"--chdir", "/tmp"});
  } else {
    detail::add_workspace(b);
    detail::add_worktree_git(b);
  }
  detail::add_protections(b);
  add_env(b, env);
  // After add_env's --clearenv; the exec shim reads and unsets it.
  if (req.nested_sandbox) b.option({"--setenv", kNestedSandboxEnv, "1"});
  // (proxy mode's own arguments bind blaude at the same path already)
  const std::vector<std::string> command = detail::shimmed(b, req.command, !req.proxy);
  enforce_mount_order(b);
  detail::add_held_binds(b);
  detail::add_mount_checks(b, !command.empty() && (command[0] == kSandboxSelf || command[0] == kSandboxShim));
  detail::add_wsl_warning(b);
  // The one place the argv is written; the binds lifted to the helper are not in it.
  b.p.argv.push_back(facts.bwrap.empty() ? "bwrap" : facts.bwrap);
  const std::vector<size_t> starts = render(b.ops, b.p.argv);
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const MountOp& op = b.ops[i];
    if (op.helper) continue;
    if (op.held) {
      b.p.held.push_back(*op.held);
      b.p.held.back().index = starts[i];
    }
    if (op.kind == OpKind::Dir && normalize(op.dest) == "/run/blaude") b.p.makes_run_dir = true;
  }
  b.p.options_end = b.p.argv.size();
  b.p.argv.push_back("--");
  // Proxy mode: the relay starts first and execs the shim, which execs the command.
  if (req.proxy) b.p.argv.insert(b.p.argv.end(), req.proxy->command_prefix.begin(), req.proxy->command_prefix.end());
  b.p.argv.insert(b.p.argv.end(), command.begin(), command.end());
  b.p.ops = std::make_shared<const Ops>(std::move(b.ops));

  if (!req.tmp) b.p.writable_dirs.push_back(facts.cwd);
  for (const auto& [src, dst] : b.rw_binds) b.p.writable_dirs.push_back(src);
  if (!b.host_writable.empty()) {
    std::string w = facts.overlay_probe_failed
                        ? "could not ask " + facts.bwrap + " whether it supports overlays; assuming not."
                        : "bwrap lacks --tmp-overlay (needs bubblewrap 0.9 or newer).";
    w += " These stay writable on the host:";
    for (const auto& p : b.host_writable) w += "\n  " + p;
    if (!b.config_pins.empty()) w += "\n  (in ~/.config, read-only: " + b.config_pins + ", git, blaude)";
    b.p.warnings.push_back(w);
  }
  return std::move(b.p);
}

}  // namespace blaude::sandbox::bwrap
