// The POSIX fallback of snapshot.cpp (macOS has no /proc): process facts from `ps -o` (POSIX
// keywords only, the same on procps and BSD ps) and from getsid/getpgid. A Linux build with
// BLAUDE_POSIX_FALLBACKS=ON uses it too, so the asciinema tests run it against real recorders.
// Costs a `ps` per ancestor, and only when the environment says the session is recorded.
#include "asciinema/snapshot.hpp"

#include "common/platform.hpp"
#if !BLAUDE_LINUX_CALLS
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "asciinema/snapshot_walk.hpp"
#include "common/paths.hpp"
#include "common/subprocess.hpp"

namespace blaude::asciinema {

namespace {

// /bin/ps on macOS and on Debian alike; absolute, so no PATH entry can stand in for it.
constexpr const char* kPs = "/bin/ps";

// One `ps` line: "PID PPID TPGID UID STATE TTY ARGS...", or nullopt when the process is gone.
// Arguments are split at blanks: good enough to recognise asciinema (a path with a blank in
// it is not recognised, and nothing is paused then).
std::optional<ProcInfo> ps_info(pid_t pid, std::string* tty = nullptr) {
  RunOptions o;
  o.timeout_ms = 2000;
  auto r = run_capture({kPs, "-o", "pid=,ppid=,tpgid=,uid=,state=,tty=,args=", "-p", std::to_string(pid)}, o);
  if (r.status != 0) return std::nullopt;
  std::istringstream in(r.output);
  ProcInfo p;
  ProcStatus st;
  std::string state, term;
  long lpid = 0, ppid = 0, tpgid = 0, uid = 0;
  if (!(in >> lpid >> ppid >> tpgid >> uid >> state >> term) || lpid != pid || state.empty()) return std::nullopt;
  for (std::string a; in >> a;) p.argv.push_back(a);
  p.stat.pid = pid;
  p.stat.ppid = pid_t(ppid);
  p.stat.tpgid = pid_t(tpgid);
  p.stat.state = state[0];  // BSD ps appends flags ("Ss+"); the first letter is the state
  p.stat.comm = p.argv.empty() ? "" : basename_of(p.argv[0]);
  p.stat.pgrp = ::getpgid(pid);
  p.stat.session = ::getsid(pid);
  st.uid = uid_t(uid);
  p.status = st;
  if (tty) *tty = term;
  return p;
}

}  // namespace

Snapshot take_snapshot() {
  return walk_ancestors([](pid_t pid) { return ps_info(pid); });
}

char proc_state(pid_t pid) {
  auto p = ps_info(pid);
  return p ? p->stat.state : '?';
}

// Without /proc/PID/fd the terminal is the process's controlling terminal as ps names it
// ("pts/3" on Linux, "ttys003" on macOS). Not checked here, unlike with /proc: that its output
// goes to the same terminal.
UniqueFd open_process_terminal(pid_t pid, std::string& problem) {
  std::string term;
  if (!ps_info(pid, &term)) {
    problem = "pid " + std::to_string(pid) + " is gone";
    return {};
  }
  if (term.empty() || term == "?" || term == "??" || term.find('/') == 0 || term.find("..") != std::string::npos) {
    problem = "it has no controlling terminal";
    return {};
  }
  const std::string path = "/dev/" + term;
  UniqueFd fd(open(path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    problem = "cannot open " + path + ": " + std::strerror(errno);
    return {};
  }
  struct stat in{}, ours{};
  if (!isatty(fd.get()) || fstat(fd.get(), &in) != 0) {
    problem = path + " is not a terminal";
    return {};
  }
  if (in.st_uid != getuid()) {
    problem = "its terminal belongs to uid " + std::to_string(in.st_uid);
    return {};
  }
  if (fstat(0, &ours) == 0 && ours.st_rdev == in.st_rdev) {
    problem = "its terminal is blaude's own, so it does not relay blaude's terminal";
    return {};
  }
  return fd;
}

}  // namespace blaude::asciinema
#endif  // !BLAUDE_LINUX_CALLS
