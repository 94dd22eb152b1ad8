#include "pty/proc_state.hpp"

#include <cstdio>
#include <string>

#include "common/platform.hpp"
#include "common/subprocess.hpp"

#if defined(__APPLE__)
#include <sys/proc.h>
#include <sys/sysctl.h>
#endif

namespace blaude::pty {

char state_from_proc_stat(std::string_view stat) {
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos || close + 2 >= stat.size() || stat[close + 1] != ' ') return 0;
  return stat[close + 2];
}

char state_from_ps(std::string_view out) {
  size_t at = out.find_first_not_of(" \t\n");
  if (at == std::string_view::npos) return 0;
  char c = out[at];
  return c >= 'A' && c <= 'Z' ? c : 0;
}

ProcParent parent_from_proc_stat(std::string_view stat) {
  ProcParent out;
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return out;
  std::string rest(stat.substr(close + 1));
  char st = 0;
  int ppid = 0, pgrp = 0;
  if (std::sscanf(rest.c_str(), " %c %d %d", &st, &ppid, &pgrp) != 3) return out;
  out.ppid = ppid;
  out.pgrp = pgrp;
  return out;
}

#if BLAUDE_LINUX_CALLS
namespace {
// The head of /proc/PID/stat (state, ppid and pgrp are in its first fields); "" when gone.
std::string read_proc_stat(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "re");
  if (!f) return {};
  char buf[512];
  size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  return std::string(buf, n);
}
}  // namespace
#endif

ProcParent process_parent(pid_t pid) {
  if (pid <= 0) return {};
#if BLAUDE_LINUX_CALLS
  return parent_from_proc_stat(read_proc_stat(pid));
#else
  RunResult ps = run_capture({"/bin/ps", "-o", "ppid=,pgid=", "-p", std::to_string(pid)});
  ProcParent out;
  int ppid = 0, pgrp = 0;
  if (ps.status == 0 && std::sscanf(ps.output.c_str(), " %d %d", &ppid, &pgrp) == 2) {
    out.ppid = ppid;
    out.pgrp = pgrp;
  }
  return out;
#endif
}

char process_state(pid_t pid) {
  if (pid <= 0) return 0;
#if defined(__APPLE__)
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, static_cast<int>(pid)};
  struct kinfo_proc kp {};
  size_t len = sizeof kp;
  if (sysctl(mib, 4, &kp, &len, nullptr, 0) != 0 || len == 0) return 0;  // len 0: no such pid
  switch (kp.kp_proc.p_stat) {
    case SSTOP: return 'T';
    case SZOMB: return 'Z';
    case SRUN: return 'R';
    case SSLEEP: return 'S';
    case SIDL: return 'I';
    default: return 0;
  }
#elif BLAUDE_LINUX_CALLS
  return state_from_proc_stat(read_proc_stat(pid));
#else
  // Absolute: no PATH entry the sandboxed command controls can stand in for ps.
  RunResult ps = run_capture({"/bin/ps", "-o", "stat=", "-p", std::to_string(pid)});
  return ps.status == 0 ? state_from_ps(ps.output) : 0;
#endif
}

}  // namespace blaude::pty
