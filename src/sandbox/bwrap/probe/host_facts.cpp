// HostFacts::probe: all host I/O the planner depends on, done once before planning.
#include "sandbox/bwrap/probe/host_facts.hpp"

#include "common/file_io.hpp"
#include "common/path_search.hpp"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "sandbox/bwrap/probe/features.hpp"
#include "sandbox/bwrap/probe/env_binds.hpp"
#include "sandbox/bwrap/probe/host_tools.hpp"
#include "sandbox/bwrap/probe/managed_paths.hpp"
#include "sandbox/bwrap/probe/scan.hpp"
#include "sandbox/bwrap/probe/probe_ipc.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

const PathFact& HostFacts::at(const std::string& path) const {
  static const PathFact missing;
  auto it = paths.find(path);
  return it == paths.end() ? missing : it->second;
}

std::string HostFacts::env_or(const std::string& key, const std::string& fallback) const {
  auto it = env.find(key);
  return it == env.end() || it->second.empty() ? fallback : it->second;
}

std::string claude_config_dir(const HostFacts& f) {
  std::string c = f.env_or("CLAUDE_CONFIG_DIR");
  return c.empty() || c.front() != '/' ? f.home + "/.claude" : normalize(c);
}

std::string dbus_socket_path(const HostFacts& f) {
  std::string addr = f.env_or("DBUS_SESSION_BUS_ADDRESS");
  if (auto k = addr.find("unix:path="); k != std::string::npos) {
    std::string s = addr.substr(k + 10);
    return s.substr(0, s.find_first_of(",;"));
  }
  return "/run/user/" + std::to_string(f.uid) + "/bus";
}

std::vector<std::string> paths_of_interest(const HostFacts& f) {
  std::vector<std::string> v = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                                "/usr/share/pyenv/shims", "/etc/resolv.conf", "/tmp"};
  for (const char* h :
       {".npm", ".local/bin", ".local/bin/claude", ".local/share/pipx", ".local/share/uv/tools",
        ".local/share/uv/python", ".cache/uv", ".yarn", ".yarn/bin", ".cargo/bin", "go/bin",
        ".local/share/claude", ".claude.json", ".agents", ".notebooklm-mcp", ".notebooklm-mcp-cli",
        ".config", ".config/git", "arxiv-storage", ".claude-mem", ".bun", ".bun/install/cache",
        ".gitconfig", ".git-credentials", ".ssh", ".aws", ".local/share/keyrings"})
    v.push_back(f.home + "/" + h);
  v.push_back(f.home + "/.cache/blaude/wsl-mnt-warned");
  v.push_back(f.nvm_dir);
  v.push_back(claude_config_dir(f));
  v.push_back(dirname_of(claude_config_dir(f)));  // to create a missing one
  v.push_back(dbus_socket_path(f));
  for (const char* k : {"CLAUDE_CODE_TMPDIR", "GNUPGHOME", "SSH_AUTH_SOCK"}) {
    std::string p = f.env_or(k);
    if (!p.empty() && p[0] == '/') v.push_back(normalize(p));
  }
  for (const auto& e : env_binds(f)) v.push_back(e.path);
  return v;
}

namespace {

std::string real_of(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string find_on_path(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return {};
  return find_executable(name, path, RelativeEntries::Skip).value_or("");
}

std::string first_line(std::string s) {
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// nvm's current node: alias/default (following lts/ aliases), else the newest installed.
std::string find_nvm_node_bin(const std::string& nvm) {
  std::string alias = first_line(read_small_file(nvm + "/alias/default", 256).value_or(""));
  if (alias.rfind("lts/", 0) == 0) alias = first_line(read_small_file(nvm + "/alias/" + alias, 256).value_or(""));
  struct stat st;
  for (const std::string& v : {alias, "v" + alias}) {
    std::string bin = nvm + "/versions/node/" + v + "/bin";
    if (!alias.empty() && ::stat(bin.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return bin;
  }
  std::string best;
  timespec best_t{};
  if (DIR* d = ::opendir((nvm + "/versions/node").c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::string bin = nvm + "/versions/node/" + e->d_name + "/bin";
      if (::stat(bin.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
          (best.empty() || st.st_mtim.tv_sec > best_t.tv_sec)) {
        best = bin;
        best_t = st.st_mtim;
      }
    }
    ::closedir(d);
  }
  return best;
}

// Tools whose launcher on PATH is a link into /opt/<vendor>/...: their install dir.
std::vector<std::string> find_opt_tool_dirs(const std::string& path) {
  std::vector<std::string> out;
  for (const char* t : {"pwsh", "pwsh-preview", "google-chrome", "google-chrome-stable", "chromium",
                        "chromium-browser", "microsoft-edge", "microsoft-edge-stable", "brave-browser", "dotnet"}) {
    std::string exe = find_on_path(t, path);
    if (exe.empty()) continue;
    std::string real = real_of(exe);
    if (!is_under(real, "/opt")) continue;
    std::string d = dirname_of(real);
    if (std::count(d.begin(), d.end(), '/') < 3) continue;  // /opt/<vendor>/<dir> at least
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

}  // namespace

PendingScan::PendingScan(std::function<WorkspaceScan()> scan, std::function<UserSockets()> sockets)
    : sockets_fn_(std::move(sockets)), thread_([this, scan = std::move(scan)] {
        try {
          scan_ = scan();
        } catch (...) {
          error_ = std::current_exception();
        }
        done_.store(true, std::memory_order_release);
      }) {}

void PendingScan::join() {
  std::call_once(joined_, [this] {
    if (thread_.joinable()) thread_.join();
  });
}

PendingScan::~PendingScan() { join(); }

const WorkspaceScan& PendingScan::result() {
  join();
  if (error_) std::rethrow_exception(error_);
  return scan_;
}

const UserSockets* PendingScan::sockets() {
  if (sockets_fn_) {
    auto fn = std::move(sockets_fn_);
    sockets_fn_ = nullptr;
    sockets_ = fn();
  }
  return sockets_ ? &*sockets_ : nullptr;
}

namespace {
int walk_threads(const HostFacts& f) { return std::atoi(f.env_or("BLAUDE_WALK_THREADS", "0").c_str()); }
}  // namespace

void HostFacts::probe_grants(const Grants& grants) {
  for (const auto& g : grants) paths.emplace(g.path, probe_path(g.path));
}

HostFacts HostFacts::probe(const HostEnv& host, const SandboxRequest& req, bool defer_scan) {
  HostFacts f;
  f.uid = host.uid;
  f.gid = host.gid;
  f.env = host.env;
  f.user = host.user;
  f.home = host.home;
  f.home_real = host.home_real;
  f.cwd = host.cwd;
  if (struct stat st; !f.cwd.empty() && ::stat(".", &st) == 0)
    f.cwd_id = {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(st.st_mode & S_IFMT)};
  f.stdio_tty = host.stdio_tty();
  // The workspace scan on its own thread from the start, over the rest of the probe, the plan and
  // bwrap's own start (plan/deferred.hpp); BLAUDE_SCAN=sync: in line, as --dry-run does (for A/B).
  if (defer_scan && !req.tmp && !req.allow_protected_writes && !f.cwd.empty() && f.env_or("BLAUDE_SCAN") != "sync") {
    // Every fork blaude makes until the scan is waited for (the own-overlay probe, bwrap's
    // spawn) runs only prepared, allocation-free code in the child before its exec or exit, so
    // no lock this thread holds is needed there (confine.cpp, pty/spawn.cpp); the programs it
    // runs (bwrap --version, gpgconf) start by posix_spawn. The thread (and the walk's own)
    // starts with every signal blocked: blaude's handlers and the supervisor's signal pipe
    // expect them on the main thread.
    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    // The user's own sockets in /tmp are left to the same late path: they only become the
    // helper's shadows (plan/plan_ipc.cpp). Found by the thread that waits for the scan, while the scan
    // runs (wait_for_scan): after bwrap's spawn, before the helper's fork (probe_ipc.cpp).
    f.ws_pending = std::make_shared<PendingScan>(
        [root = f.cwd, home = f.home, xdg = f.env_or("XDG_CONFIG_HOME"), threads = walk_threads(f)] {
          return scan_workspace(root, home, xdg, threads);
        },
        [uid = f.uid, cwd = f.cwd, home = f.home, home_real = f.home_real] {
          return scan_user_sockets(uid, cwd, home, home_real);
        });
    f.tmp_user_sockets_pending = true;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  f.bwrap = find_on_path("bwrap", f.env_or("PATH", "/usr/local/bin:/usr/bin:/bin"));
  if (!f.bwrap.empty()) {
    auto feat = bwrap_features(f.bwrap, f.home, f.uid);
    f.overlay = feat.overlay;
    f.fd_binds = feat.fd_binds;
    f.overlay_probe_failed = feat.probe_failed;
    f.cache_writes = std::move(feat.cache_writes);
  }
  std::string nvm = f.env_or("NVM_DIR");
  f.nvm_dir = nvm.empty() || nvm[0] != '/' ? f.home + "/.nvm" : normalize(nvm);
  // The shell's own nvm node when it lies in the tree plan() mounts; else nvm's default.
  std::string nvm_bin = f.env_or("NVM_BIN");
  if (!nvm_bin.empty() && nvm_bin[0] == '/' && is_under(normalize(nvm_bin), f.nvm_dir)) {
    struct stat st;
    if (::stat(nvm_bin.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) f.nvm_node_bin = normalize(nvm_bin);
  }
  if (f.nvm_node_bin.empty()) f.nvm_node_bin = find_nvm_node_bin(f.nvm_dir);
  probe_node_tools(f);
  f.managed_dirs = probe_managed_dirs("/etc/claude-code", f.probe_warnings);

  for (const auto& p : paths_of_interest(f)) f.paths.emplace(p, probe_path(p));
  f.probe_grants(req.grants);
  probe_ipc(f, req);
  if (f.at("/etc/resolv.conf").lkind == Kind::Symlink && !f.at("/etc/resolv.conf").real.empty())
    f.resolv_content = read_small_file(f.at("/etc/resolv.conf").real).value_or("");
  f.opt_tool_dirs = find_opt_tool_dirs(f.env_or("PATH"));
  for (const auto& m : req.mounts) {
    std::string abs = join(f.cwd, m.path);
    f.mount_paths.push_back(abs);
    PathFact pf = probe_path(abs);
    f.mounts.push_back(pf);
    if (!pf.real.empty()) f.paths.emplace(pf.real, probe_path(pf.real));
  }
  f.inner_mounts = inner_mounts_work(f.bwrap) && f.env_or("BLAUDE_PROTECT_MOUNTS") != "bwrap-options";
#if defined(__linux__) && defined(BLAUDE_HAVE_SECCOMP)  // the bwrap backend's own: no POSIX fallback to force
  f.syscall_filter = f.env_or("BLAUDE_SECCOMP") != "off";
  if (!f.syscall_filter)
    f.probe_warnings.push_back("BLAUDE_SECCOMP=off: the sandbox has no syscall filter (io_uring, bpf, user namespaces, "
                               "TIOCSTI, ... are open to it)");
#else
  f.probe_warnings.push_back("this blaude was built without libseccomp: the sandbox has no syscall filter");
#endif
  if (!req.tmp && !f.cwd.empty()) {
    if (f.ws_pending) {
      identify(f.ws.ids, f.cwd);  // what the scan records first: the bwrap binds' checks use it
    } else {
      f.ws = scan_workspace(f.cwd, f.home, f.env_or("XDG_CONFIG_HOME"), walk_threads(f));
    }
    // A linked worktree's repository (plan/plan_worktree.cpp binds it): identified here with
    // its parents, as the workspace is, for the bind's checks (the scan's ids come later and
    // keep these: wait_for_scan).
    f.ws_gits = probe_workspace_gits(f.cwd, f.uid, f.home, f.home_real);
    for (const auto& g : f.ws_gits) {
      if (!g.common.empty()) identify(f.ws.ids, g.common);
      for (const auto& o : g.others) identify(f.ws.ids, o);
    }
  }
  identify_ipc_guards(f);
  f.exe = probe_exe(req.program(), f.env_or("PATH"), f.home_real);
  if (f.exe.name != "claude") f.claude = probe_exe("claude", f.env_or("PATH"), f.home_real);
  probe_seed_extras(f, claude_config_dir(f));
  probe_claude_code(f, claude_config_dir(f), req.tmp ? std::string() : f.cwd);
  return f;
}

}  // namespace blaude::sandbox::bwrap
