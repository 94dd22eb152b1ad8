#include "asciinema/snapshot.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/unique_fd.hpp"

namespace blaude::asciinema {

std::optional<std::string> read_proc_file(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (1 << 20)) break;  // a cmdline cannot be larger than this in practice
  }
  return out;
}

std::optional<ProcInfo> read_proc(pid_t pid) {
  std::string base = "/proc/" + std::to_string(pid) + "/";
  auto stat_text = read_proc_file(base + "stat");
  if (!stat_text) return std::nullopt;
  auto st = parse_stat(*stat_text);
  if (!st) return std::nullopt;
  ProcInfo p;
  p.stat = *st;
  if (auto c = read_proc_file(base + "cmdline")) p.argv = split_nul(*c);
  if (auto s = read_proc_file(base + "status")) p.status = parse_status(*s);
  return p;
}

Snapshot take_snapshot() {
  Snapshot s;
  pid_t pid = getppid();
  for (int depth = 0; pid > 0 && depth < 64; ++depth) {
    auto p = read_proc(pid);
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
    } else if (auto leader = read_proc(sid)) {
      s.leader_ppid = leader->stat.ppid;
    }
  }
  return s;
}

char proc_state(pid_t pid) {
  auto t = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!t) return '?';
  auto st = parse_stat(*t);
  return st ? st->state : '?';
}

}  // namespace blaude::asciinema
