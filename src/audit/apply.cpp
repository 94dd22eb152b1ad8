#include "audit/apply.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "audit/git_paths.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"

namespace blaude::audit {

namespace {

std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }

// The parent dir with no symlink anywhere on the way (openat2 RESOLVE_NO_SYMLINKS, Linux 5.6+);
// on older kernels only the last component is checked.
// A path the user keeps behind a symlink (an include target, say) is resolved first.
UniqueFd open_parent(const std::string& path) {
  std::string dir = dirname_of(path);
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  for (int attempt = 0; attempt < 2; ++attempt) {
    long fd = ::syscall(SYS_openat2, AT_FDCWD, dir.c_str(), &how, sizeof how);
    if (fd >= 0) return UniqueFd(int(fd));
    if (errno == ENOSYS || errno == E2BIG) break;
    if (errno != ELOOP || attempt) return UniqueFd();
    char buf[PATH_MAX];
    if (!::realpath(dir.c_str(), buf)) return UniqueFd();
    dir = buf;
  }
  return UniqueFd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
}

int rename_noreplace(int dfd, const std::string& from, const std::string& to) {
  return int(::syscall(SYS_renameat2, dfd, from.c_str(), dfd, to.c_str(), 1 /* RENAME_NOREPLACE */));
}

// Moves `name` aside to `aside` (or aside-2, -3, ... if taken); returns the name used.
std::string move_aside(int dfd, const std::string& name, const std::string& aside, std::string& err) {
  for (int i = 1; i <= 20; ++i) {
    std::string a = i == 1 ? aside : aside + "-" + std::to_string(i);
    if (rename_noreplace(dfd, name, a) == 0) return a;
    if (errno != EEXIST) break;
  }
  err = std::string("cannot move it aside: ") + std::strerror(errno);
  return {};
}

bool read_all(int dfd, const std::string& name, std::string& out) {
  UniqueFd fd(::openat(dfd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, size_t(n));
    if (out.size() > kMaxContent) return false;
  }
}

bool write_new(int dfd, const std::string& name, const std::string& text, mode_t mode, std::string& err) {
  const std::string tmp = name + ".blaude-audit-tmp-" + std::to_string(::getpid());
  UniqueFd fd(::openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd) {
    err = std::string("cannot write the cleaned copy: ") + std::strerror(errno);
    return false;
  }
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = std::string("cannot write the cleaned copy: ") + std::strerror(errno);
      ::unlinkat(dfd, tmp.c_str(), 0);
      return false;
    }
    off += size_t(n);
  }
  if (rename_noreplace(dfd, tmp, name) != 0) {
    err = std::string("cannot put the cleaned copy in place: ") + std::strerror(errno);
    ::unlinkat(dfd, tmp.c_str(), 0);
    return false;
  }
  return true;
}

// Where the held dir fd really is (the kernel's name for it).
std::string fd_path(int fd) {
  char link[64], buf[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

Applied apply_one(const Finding& f, const std::vector<std::string>& roots) {
  Applied a;
  UniqueFd dfd = open_parent(f.path);
  if (!dfd) {
    a.error = std::string("cannot open its directory: ") + std::strerror(errno);
    return a;
  }
  const std::string where = fd_path(dfd.get());
  bool inside = false;
  for (const auto& r : roots) inside |= !where.empty() && is_under(where, r);
  if (!inside) {
    a.error = "its directory is " + (where.empty() ? std::string("unknown") : where) +
              ", outside the audited directories: not touched";
    return a;
  }
  const std::string name = base_of(f.path);
  struct stat st;
  const mode_t mode = ::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)
                          ? st.st_mode & 0777
                          : 0644;
  const std::string aside = move_aside(dfd.get(), name, base_of(f.aside), a.error);
  if (aside.empty()) return a;
  a.aside = dirname_of(f.path) + "/" + aside;
  if (f.act != Act::Rewrite) return a;
  // Clean what was actually moved, which may differ from what the walk read.
  std::string moved;
  if (!read_all(dfd.get(), aside, moved)) return a;  // a FIFO or a link: leave it aside only
  const std::string clean = sanitize_config(f.before_text, moved, &a.removed);
  a.rewritten = write_new(dfd.get(), name, clean, mode, a.error);
  return a;
}

}  // namespace

std::vector<Applied> apply_findings(const std::vector<Finding>& findings, const std::vector<std::string>& roots) {
  std::vector<Applied> out;
  for (const auto& f : findings) out.push_back(f.act == Act::None ? Applied{} : apply_one(f, roots));
  return out;
}

}  // namespace blaude::audit
