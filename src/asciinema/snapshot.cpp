#include "asciinema/snapshot.hpp"

#include "common/platform.hpp"
#if BLAUDE_LINUX_CALLS
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "asciinema/snapshot_walk.hpp"

namespace blaude::asciinema {

namespace {

// The whole file, or nullopt if it cannot be read.
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

}  // namespace

Snapshot take_snapshot() {
  return walk_ancestors([](pid_t pid) { return read_proc(pid); });
}

char proc_state(pid_t pid) {
  auto t = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!t) return '?';
  auto st = parse_stat(*t);
  return st ? st->state : '?';
}

// Opens the recorder's terminal (its fd 0) as our own description and checks that it is a
// terminal of ours, that its fd 1 is the same terminal, and that it is not blaude's own.
UniqueFd open_process_terminal(pid_t pid, std::string& problem) {
  std::string base = "/proc/" + std::to_string(pid) + "/fd/";
  UniqueFd fd(open((base + "0").c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    problem = "cannot open " + base + "0: " + std::strerror(errno);
    return {};
  }
  struct stat in{}, out{}, ours{};
  if (!isatty(fd.get()) || fstat(fd.get(), &in) != 0) {
    problem = base + "0 is not a terminal";
    return {};
  }
  if (in.st_uid != getuid()) {
    problem = "its terminal belongs to uid " + std::to_string(in.st_uid);
    return {};
  }
  if (stat((base + "1").c_str(), &out) != 0 || out.st_rdev != in.st_rdev) {
    problem = "its output is not the terminal it reads";
    return {};
  }
  if (fstat(0, &ours) == 0 && ours.st_rdev == in.st_rdev) {
    problem = "its terminal is blaude's own, so it does not relay blaude's terminal";
    return {};
  }
  return fd;
}


}  // namespace blaude::asciinema
#endif  // BLAUDE_LINUX_CALLS
