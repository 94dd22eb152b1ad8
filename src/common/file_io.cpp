#include "common/file_io.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

#include "common/paths.hpp"
#include "common/platform.hpp"
#include "common/unique_fd.hpp"

#if BLAUDE_LINUX_CALLS
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

namespace blaude {

std::string errno_text() { return std::strerror(errno); }

std::optional<std::string> read_small_file(const std::string& path, size_t cap, Follow follow) {
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (follow == Follow::No ? O_NOFOLLOW : 0);
  UniqueFd fd(::open(path.c_str(), flags));
  if (!fd) return std::nullopt;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  char buf[4096];
  while (out.size() < cap) {
    ssize_t n = ::read(fd.get(), buf, std::min(sizeof buf, cap - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  return out;
}

std::vector<std::string> relative_components(const std::string& rel) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= rel.size()) {
    size_t j = rel.find('/', i);
    if (j == std::string::npos) j = rel.size();
    std::string part = rel.substr(i, j - i);
    if (part.empty() || part == "." || part == "..") return {};
    out.push_back(std::move(part));
    i = j + 1;
  }
  return out;
}

namespace {

#if BLAUDE_LINUX_CALLS
constexpr int kDirFlags = O_PATH | O_DIRECTORY | O_CLOEXEC;
#else
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
#endif

// One name beneath `at`, never through a symlink: openat2 where the kernel has it (5.6+), else
// openat with O_NOFOLLOW (a symlink fails with ELOOP, or ENOTDIR with O_DIRECTORY).
int open_one(int at, const std::string& name, int flags) {
#if BLAUDE_LINUX_CALLS
  static bool no_openat2 = false;
  if (!no_openat2) {
    open_how how{};
    how.flags = uint64_t(flags | O_NOFOLLOW);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = ::syscall(SYS_openat2, at, name.c_str(), &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != E2BIG && errno != EPERM)) return int(fd);
    if (errno == ENOSYS) no_openat2 = true;  // seccomp's EPERM may be per call: tried again
  }
#endif
  return ::openat(at, name.c_str(), flags | O_NOFOLLOW);
}

}  // namespace

UniqueFd open_dir_no_symlinks(const std::string& abs) {
  if (abs.empty() || abs[0] != '/') {
    errno = EINVAL;
    return UniqueFd();
  }
  UniqueFd at(::open("/", kDirFlags));
  for (const auto& part : relative_components(abs.substr(1))) {
    if (!at) break;
    int fd = open_one(at.get(), part, kDirFlags);
    if (fd < 0) {
      struct stat st;
      if (::fstatat(at.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) errno = ELOOP;
      return UniqueFd();
    }
    at = UniqueFd(fd);
  }
  return at;
}

BeneathEntry read_beneath(int at, const std::string& rel, size_t cap) {
  BeneathEntry e;
  const std::vector<std::string> parts = relative_components(rel);
  if (parts.empty()) {
    e.kind = BeneathEntry::Error;
    e.error = "not a relative path";
    return e;
  }
  auto cur = std::make_shared<UniqueFd>(::fcntl(at, F_DUPFD_CLOEXEC, 0));
  // What stopped the walk at cur/name: a symlink, something else, or nothing there.
  auto classify = [&](const std::string& name, bool component) {
    e.dir = cur;
    e.name = name;
    e.component = component;
    struct stat st;
    if (::fstatat(cur->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      e.kind = errno == ENOENT ? BeneathEntry::Missing : BeneathEntry::Error;
      if (e.kind == BeneathEntry::Error) e.error = errno_text();
      return;
    }
    if (S_ISLNK(st.st_mode)) {
      e.kind = BeneathEntry::Symlink;
      char buf[4096];
      ssize_t n = ::readlinkat(cur->get(), name.c_str(), buf, sizeof buf);
      if (n > 0) e.link.assign(buf, size_t(n));
      return;
    }
    e.kind = S_ISDIR(st.st_mode) && component ? BeneathEntry::Error : BeneathEntry::Other;
    if (e.kind == BeneathEntry::Error) e.error = "cannot be opened: " + errno_text();
  };
  if (!*cur) {
    e.kind = BeneathEntry::Error;
    e.error = errno_text();
    return e;
  }
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int fd = open_one(cur->get(), parts[i], kDirFlags);
    if (fd < 0) {
      classify(parts[i], true);
      return e;
    }
    cur = std::make_shared<UniqueFd>(fd);
  }
  const std::string& name = parts.back();
  UniqueFd fd(open_one(cur->get(), name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) {
    classify(name, false);
    return e;
  }
  e.dir = cur;
  e.name = name;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    e.kind = BeneathEntry::Error;
    e.error = errno_text();
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    e.kind = BeneathEntry::Other;
    return e;
  }
  e.size = size_t(st.st_size);
  if (e.size > cap) {
    e.kind = BeneathEntry::TooBig;
    return e;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      e.kind = BeneathEntry::Error;
      e.error = errno_text();
      return e;
    }
    if (n == 0) break;
    if (e.text.size() + size_t(n) > cap) {  // grew while read
      e.kind = BeneathEntry::TooBig;
      e.text.clear();
      return e;
    }
    e.text.append(buf, size_t(n));
  }
  e.kind = BeneathEntry::File;
  return e;
}

std::optional<std::string> read_first_line(const std::string& path) {
  auto text = read_small_file(path, 4096);
  if (!text) return std::nullopt;
  std::string line = text->substr(0, text->find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
  return line;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    data.remove_prefix(size_t(n));
  }
  return true;
}

std::string atomic_replace(const std::string& path, std::string_view content, mode_t mode) {
  const std::string dir = dirname_of(path);
  std::string tmp = path + ".blaude-XXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!fd) return "cannot write in " + dir + ": " + errno_text();
  auto fail = [&](const std::string& what) {
    std::string why = what + ": " + errno_text();
    ::unlink(tmp.c_str());
    return why;
  };
  if (::fchmod(fd.get(), mode) != 0) return fail("cannot set the mode of " + tmp);
  if (!write_all(fd.get(), content)) return fail("cannot write " + tmp);
  if (::fsync(fd.get()) != 0) return fail("cannot sync " + tmp);
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot replace " + path);
  if (UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); d) ::fsync(d.get());
  return {};
}

bool make_dirs(const std::string& path, mode_t mode) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    errno = ENOTDIR;
    return false;
  }
  const std::string parent = dirname_of(path);
  if (parent != path && !make_dirs(parent, mode)) return false;
  return ::mkdir(path.c_str(), mode) == 0 || errno == EEXIST;
}

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool path_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}
std::string canonical_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

}  // namespace blaude
