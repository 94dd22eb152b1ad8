#include "sandbox/bwrap/plan/held.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace blaude::sandbox::bwrap {

namespace {

[[noreturn]] void sys_fail(const std::string& what) { throw std::system_error(errno, std::generic_category(), what); }

// The components of an absolute path; "." and ".." are refused (the planner's paths are normal).
std::vector<std::string> components(const std::string& path) {
  if (path.empty() || path[0] != '/') throw HeldPathChanged(path);
  std::vector<std::string> out;
  size_t i = 1;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string c = path.substr(i, j - i);
    if (c == "." || c == "..") throw HeldPathChanged(path);
    if (!c.empty()) out.push_back(c);
    i = j + 1;
  }
  return out;
}

#ifdef __linux__
// A descriptor of the name only: no read permission needed, nothing opened for reading.
constexpr int kPathOnly = O_PATH;
#else
// No O_PATH (macOS). Held binds are bwrap's (--bind-fd), and bwrap exists only on Linux: off
// Linux this code is compiled and never called. The Seatbelt backend has nothing to hold: its
// profile has no mounts, only rules that the kernel checks against the path at every access.
constexpr int kPathOnly = O_RDONLY;
#endif

// Walks from "/" with O_NOFOLLOW: every dir on the way is a real dir, the last component may be
// anything but a symlink (an O_PATH|O_NOFOLLOW open of a link gives the link: refused).
UniqueFd walk(const std::string& path, const std::vector<std::string>& comps, size_t n) {
  UniqueFd fd(::open("/", kPathOnly | O_DIRECTORY | O_CLOEXEC));
  if (!fd) sys_fail("open /");
  for (size_t k = 0; k < n; ++k) {
    bool last = k + 1 == comps.size();
    int f = ::openat(fd.get(), comps[k].c_str(), kPathOnly | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
    if (f < 0) {
      if (errno == ENOTDIR || errno == ELOOP || errno == ENOENT) throw HeldPathChanged(path);
      sys_fail("open " + path);
    }
    fd.reset(f);
  }
  return fd;
}

void expect(int fd, const Identity& id, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) sys_fail("stat " + path);
  if ((st.st_mode & S_IFMT) == S_IFLNK || (id.type && (st.st_mode & S_IFMT) != id.type)) throw HeldPathChanged(path);
  if ((id.dev || id.ino) && ((unsigned long long)st.st_dev != id.dev || (unsigned long long)st.st_ino != id.ino))
    throw HeldPathChanged(path);
}

}  // namespace

UniqueFd hold_path(const HeldPath& h) {
  auto comps = components(h.host);
  if (!h.make_dir) {
    UniqueFd fd = walk(h.host, comps, comps.size());
    expect(fd.get(), h.id, h.host);
    return fd;
  }
  if (comps.empty()) throw HeldPathChanged(h.host);
  std::string parent = h.host.substr(0, h.host.rfind('/'));
  UniqueFd p = walk(parent.empty() ? "/" : parent, comps, comps.size() - 1);
  expect(p.get(), h.id, parent);
  // Ours only if this call made it: one that appeared since the probe may hold anything.
  if (::mkdirat(p.get(), comps.back().c_str(), 0755) != 0) {
    if (errno == EEXIST) throw HeldPathChanged(h.host);
    sys_fail("mkdir " + h.host);
  }
  UniqueFd fd(::openat(p.get(), comps.back().c_str(), kPathOnly | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw HeldPathChanged(h.host);
  return fd;
}

void hold_binds(std::vector<std::string>& argv, const std::vector<HeldPath>& held, std::vector<UniqueFd>& fds,
                std::vector<int>& keep_fds) {
  if (held.empty()) return;
  // bwrap needs them all at once (it closes each after its mount).
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < held.size() + 256) {
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? held.size() + 256 : std::min<rlim_t>(rl.rlim_max, held.size() + 256);
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
  std::vector<std::pair<std::string, Identity>> made;  // a dir made once shows at every alias
  for (const auto& h : held) {
    if (h.index + 2 >= argv.size() || argv[h.index + 1] != h.host ||
        (argv[h.index] != "--bind" && argv[h.index] != "--ro-bind"))
      throw std::logic_error("held bind " + h.host + " is not at argv[" + std::to_string(h.index) + "]");
    UniqueFd fd;
    auto again = std::find_if(made.begin(), made.end(), [&](const auto& m) { return m.first == h.host; });
    if (h.make_dir && again != made.end()) {
      fd = hold_path(HeldPath{h.index, h.host, again->second, false});
    } else {
      fd = hold_path(h);
      if (h.make_dir) {
        struct stat st;
        if (::fstat(fd.get(), &st) != 0) sys_fail("stat " + h.host);
        made.emplace_back(h.host, Identity{(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, S_IFDIR});
      }
    }
    argv[h.index] += "-fd";
    argv[h.index + 1] = std::to_string(fd.get());
    keep_fds.push_back(fd.get());
    fds.push_back(std::move(fd));
  }
}

bool setup_done(int fd) { return fd < 0 || ::lseek(fd, 0, SEEK_CUR) > 0; }

std::string changed_held_path(const std::vector<HeldPath>& held) {
  for (const auto& h : held) {
    try {
      if (h.make_dir) {  // made by this launch: its parent must still be the probed one
        HeldPath p{h.index, h.host.substr(0, h.host.rfind('/')), h.id, false};
        if (p.host.empty()) p.host = "/";
        hold_path(p);
      } else {
        hold_path(h);
      }
    } catch (const HeldPathChanged& e) {
      return h.host;
    } catch (const std::system_error&) {
      return h.host;
    }
  }
  return {};
}

}  // namespace blaude::sandbox::bwrap
