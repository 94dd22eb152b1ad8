#include "common/self_exe.hpp"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/path_search.hpp"
#include "common/platform.hpp"

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

namespace blaude {

namespace {

struct Start {
  std::string argv0, path, cwd;
};

Start& start() {
  static Start s;
  return s;
}

std::string real(const std::string& p) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return {};
  return buf;
}

std::string join_to(const std::string& dir, const std::string& p) {
  if (!p.empty() && p.front() == '/') return p;
  return dir + "/" + p;
}

}  // namespace

void record_start(const char* argv0) {
  Start& s = start();
  s.argv0 = argv0 ? argv0 : "";
  const char* path = std::getenv("PATH");
  s.path = path ? path : "/usr/bin:/bin";
  char cwd[PATH_MAX];
  s.cwd = ::getcwd(cwd, sizeof cwd) ? cwd : "";
}

std::optional<std::string> exe_from_argv0(const std::string& argv0, const std::string& path_env,
                                          const std::string& cwd) {
  if (argv0.empty()) return std::nullopt;
  std::string found;
  if (argv0.find('/') != std::string::npos) {
    if (argv0.front() != '/' && cwd.empty()) return std::nullopt;
    found = join_to(cwd, argv0);
  } else {
    // Relative PATH entries: execvp read them against the cwd blaude started in, not today's.
    std::string abs_path;
    for (size_t at = 0, end = 0; end != std::string::npos; at = end + 1) {
      end = path_env.find(':', at);
      std::string dir = path_env.substr(at, end == std::string::npos ? end : end - at);
      if (dir.empty()) dir = ".";
      if (dir.front() != '/' && cwd.empty()) continue;
      abs_path += (abs_path.empty() ? "" : ":") + join_to(cwd, dir);
    }
    auto hit = find_executable(argv0, abs_path, RelativeEntries::Skip);
    if (!hit) return std::nullopt;
    found = *hit;
  }
  std::string r = real(found);
  if (r.empty() || !is_executable_file(r)) return std::nullopt;
  return r;
}

std::string self_exe() {
#if defined(__APPLE__)
  // dyld's path may be relative or through symlinks; the buffer size is asked for first.
  uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::vector<char> buf(size + 1);
  if (_NSGetExecutablePath(buf.data(), &size) != 0) return {};
  return real(buf.data());
#elif BLAUDE_LINUX_CALLS
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0 || buf[0] != '/') return {};
  return std::string(buf, size_t(n));
#else
  const Start& s = start();
  return exe_from_argv0(s.argv0, s.path, s.cwd).value_or("");
#endif
}

}  // namespace blaude
