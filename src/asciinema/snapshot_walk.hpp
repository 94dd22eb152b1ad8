// The walk both process readers share (snapshot.cpp from /proc, snapshot_ps.cpp from `ps`): only
// how one process is read differs between them.
#pragma once
#include <unistd.h>

#include <optional>

#include "asciinema/detect.hpp"

namespace blaude::asciinema {

// blaude's ancestors, parent first, up to pid 1 (at most 64), and the parent of its session's
// leader. `read` gives one process's facts, nullopt when it cannot.
template <class Read>
Snapshot walk_ancestors(Read read) {
  Snapshot s;
  pid_t pid = getppid();
  for (int depth = 0; pid > 0 && depth < 64; ++depth) {
    std::optional<ProcInfo> p = read(pid);
    if (!p) break;
    pid_t next = p->stat.ppid;
    s.ancestors.push_back(std::move(*p));
    if (pid == 1) break;
    pid = next;
  }
  pid_t sid = getsid(0);
  if (sid > 0) {
    if (sid == getpid()) {
      s.leader_ppid = getppid();
    } else if (std::optional<ProcInfo> leader = read(sid)) {
      s.leader_ppid = leader->stat.ppid;
    }
  }
  return s;
}

}  // namespace blaude::asciinema
