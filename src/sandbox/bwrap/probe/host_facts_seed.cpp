// Probes for the seed's behaviours the planner matches: blaude's own binary for
// the exec shim, the claude-mem plugin, a dedicated ssh-agent dir, the kernel strings for WSL.
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "common/file_io.hpp"
#include "common/self_exe.hpp"
#include "common/path_search.hpp"
#include "common/paths.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::sandbox::bwrap {

namespace {

bool is_dir_at(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// blaude's binary as a path the sandbox can bind: a regular, executable file still there (an
// upgraded binary shows in /proc/self/exe as "... (deleted)" and is not used).
std::string probe_self_exe(std::string& problem) {
  std::string p = self_exe();
  if (p.empty()) {
    problem = "blaude cannot find its own binary (the sandbox runs it inside, to check its mounts before the command starts)";
    return {};
  }
  if (p.front() != '/' || !is_executable_file(p)) {
    problem = "blaude's own binary " + p + " is no longer there as a program (replaced or removed while it ran?)";
    return {};
  }
  return p;
}

// The static exec shim installed with this blaude (request.hpp, kShimName): beside the binary
// (the build tree) or in PREFIX/libexec/blaude (make install, the packages), as the canonical
// path of a regular executable file; "" when neither is there.
std::string probe_shim_exe(const std::string& self) {
  if (self.empty()) return {};
  const std::string dir = dirname_of(self);
  for (const std::string& c : {join(dir, kShimName), join(dirname_of(dir), std::string("libexec/blaude/") + kShimName)}) {
    char real[PATH_MAX];
    if (::realpath(c.c_str(), real) && is_executable_file(real)) return real;
  }
  return {};
}

}  // namespace

bool probe_claude_mem(const std::string& config_dir) {
  const std::string plugins = config_dir + "/plugins";
  for (const char* d : {"/marketplaces/thedotmack", "/cache/claude-mem", "/cache/thedotmack/claude-mem"})
    if (is_dir_at(plugins + d)) return true;
  std::string json = read_small_file(plugins + "/installed_plugins.json", 1 << 20).value_or("");
  return json.find("\"claude-mem\"") != std::string::npos || json.find("\"claude-mem@") != std::string::npos;
}

std::string probe_ssh_agent_dir(const std::string& sock, uid_t uid, const std::vector<std::string>& shared) {
  if (sock.empty() || sock.front() != '/') return {};
  const std::string dir = dirname_of(normalize(sock));
  const std::string name = basename_of(normalize(sock));
  for (const auto& s : shared)
    if (!s.empty() && normalize(s) == dir) return {};
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid || (st.st_mode & 077) != 0)
    return {};
  DIR* d = ::opendir(dir.c_str());
  if (!d) return {};
  bool only_socket = true;
  bool seen = false;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    if (n == name) {
      seen = true;
    } else {
      only_socket = false;
    }
  }
  ::closedir(d);
  struct stat ss;
  if (!only_socket || !seen || ::lstat(sock.c_str(), &ss) != 0 || !S_ISSOCK(ss.st_mode)) return {};
  return dir;
}

void probe_seed_extras(HostFacts& f, const std::string& config_dir) {
  f.self_exe = probe_self_exe(f.self_exe_problem);
  f.shim_exe = probe_shim_exe(f.self_exe);
  f.claude_mem_plugin = probe_claude_mem(config_dir);
  const std::string runtime = "/run/user/" + std::to_string(f.uid);
  f.ssh_agent_dir = probe_ssh_agent_dir(f.env_or("SSH_AUTH_SOCK"), f.uid,
                                        {f.env_or("XDG_RUNTIME_DIR"), runtime, "/run", "/tmp", "/",
                                         f.home, f.home_real, f.cwd, "/var/tmp"});
  f.kernel_osrelease = read_first_line("/proc/sys/kernel/osrelease").value_or("");
  f.proc_version = read_first_line("/proc/version").value_or("");
}

}  // namespace blaude::sandbox::bwrap
