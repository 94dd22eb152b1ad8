#include "pty/sweep.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <set>
#include <sstream>
#include <string>

#include "common/subprocess.hpp"

namespace blaude::pty {

std::vector<pid_t> session_members(const std::vector<ProcRow>& rows, pid_t leader, pid_t self) {
  std::set<pid_t> in;
  for (const ProcRow& r : rows)
    if (r.sid == leader && r.pid > 1 && r.pid != self && !r.zombie) in.insert(r.pid);
  // Descendants that left the session but whose parent (a member, or one of theirs) is alive.
  for (bool grew = true; grew;) {
    grew = false;
    for (const ProcRow& r : rows)
      if (r.pid > 1 && r.pid != self && !r.zombie && !in.count(r.pid) && in.count(r.ppid))
        grew = in.insert(r.pid).second;
  }
  return {in.begin(), in.end()};
}

std::vector<ProcRow> list_processes() {
  // Absolute: no PATH entry the agent controls can stand in for ps.
  RunResult ps = run_capture({"/bin/ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "stat="});
  std::vector<ProcRow> rows;
  if (ps.status != 0) return rows;
  std::istringstream in(ps.output);
  long pid, ppid;
  std::string stat;
  while (in >> pid >> ppid >> stat)
    rows.push_back({pid_t(pid), pid_t(ppid), getsid(pid_t(pid)), !stat.empty() && stat[0] == 'Z'});
  return rows;
}

int sweep_session(pid_t leader, int rounds) {
  int killed = 0;
  for (int i = 0; i < rounds; ++i) {
    std::vector<pid_t> left = session_members(list_processes(), leader, getpid());
    if (left.empty()) return killed;
    for (pid_t p : left)
      if (::kill(p, SIGKILL) == 0) ++killed;
  }
  spdlog::warn("session: processes of the session kept appearing after {} rounds", rounds);
  return killed;
}

}  // namespace blaude::pty
