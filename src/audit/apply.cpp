#include "audit/apply.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "audit/git_paths.hpp"
#include "common/paths.hpp"
#include "common/platform.hpp"
#include "common/unique_fd.hpp"

#if BLAUDE_LINUX_CALLS
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

namespace blaude::audit {

namespace {

std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }

#if BLAUDE_LINUX_CALLS
// Where the held dir fd really is (the kernel's name for it).
std::string fd_path(int fd) {
  char link[64], buf[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// The dir with no symlink anywhere on the way (openat2 RESOLVE_NO_SYMLINKS, Linux 5.6+); on
// older kernels only the last component is checked.
UniqueFd open_dir_nofollow(const std::string& dir) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  long fd = ::syscall(SYS_openat2, AT_FDCWD, dir.c_str(), &how, sizeof how);
  if (fd >= 0) return UniqueFd(int(fd));
  if (errno != ENOSYS && errno != E2BIG) return UniqueFd();
  return UniqueFd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
}

int rename_noreplace(int dfd, const std::string& from, const std::string& to) {
  return int(::syscall(SYS_renameat2, dfd, from.c_str(), dfd, to.c_str(), 1 /* RENAME_NOREPLACE */));
}
#else
// POSIX: one component at a time from /, each opened O_NOFOLLOW (a symlink fails with ELOOP or
// ENOTDIR), so no symlink is crossed anywhere, as with RESOLVE_NO_SYMLINKS.
UniqueFd open_dir_nofollow(const std::string& dir) {
  if (dir.empty() || dir[0] != '/') {
    errno = EINVAL;
    return UniqueFd();
  }
  UniqueFd at(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  size_t i = 1;
  while (at && i < dir.size()) {
    size_t j = dir.find('/', i);
    if (j == std::string::npos) j = dir.size();
    const std::string part = dir.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      errno = EINVAL;  // the paths handed here are normalized
      return UniqueFd();
    }
    int fd = ::openat(at.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOTDIR) errno = ELOOP;  // a symlink named as a dir: say so, as openat2 does
      return UniqueFd();
    }
    at = UniqueFd(fd);
  }
  return at;
}

// No renameat2 here: a link under the new name fails if it exists (EEXIST), then the old name
// goes. A directory cannot be linked; rename() moves it, and rename of a directory can only
// replace an empty directory (or fail), so nothing the sandbox left there is lost.
int rename_noreplace(int dfd, const std::string& from, const std::string& to) {
  struct stat st;
  if (::fstatat(dfd, from.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return -1;
  if (S_ISDIR(st.st_mode)) {
    if (::fstatat(dfd, to.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      errno = EEXIST;
      return -1;
    }
    return ::renameat(dfd, from.c_str(), dfd, to.c_str());
  }
  if (::linkat(dfd, from.c_str(), dfd, to.c_str(), 0) != 0) return -1;
  return ::unlinkat(dfd, from.c_str(), 0);
}
#endif

// The parent dir of `path`, reached without crossing a symlink, and where it is (`where`).
// A path the user keeps behind a symlink (an include target, say) is resolved first.
UniqueFd open_parent(const std::string& path, std::string& where) {
  std::string dir = dirname_of(path);
  UniqueFd fd = open_dir_nofollow(dir);
  if (!fd && errno == ELOOP) {
    char buf[PATH_MAX];
    if (!::realpath(dir.c_str(), buf)) return UniqueFd();
    dir = buf;
    fd = open_dir_nofollow(dir);
  }
  if (!fd) return fd;
#if BLAUDE_LINUX_CALLS
  where = fd_path(fd.get());
#else
  where = dir;  // reached component by component without a symlink: it is there
#endif
  return fd;
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

bool read_all(int dfd, const std::string& name, std::string& out, size_t cap = kMaxContent) {
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
    if (out.size() > cap) return false;
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

Applied apply_one(const Finding& f, const std::vector<std::string>& roots) {
  Applied a;
  UniqueFd dfd;
  if (f.held_dir && *f.held_dir) {
    // Reached beneath a dir held from before the session, no symlink crossed: already inside.
    dfd = UniqueFd(::fcntl(f.held_dir->get(), F_DUPFD_CLOEXEC, 0));
  } else {
    std::string where;
    dfd = open_parent(f.path, where);
    if (!dfd) {
      a.error = std::string("cannot open its directory: ") + std::strerror(errno);
      return a;
    }
    bool inside = false;
    for (const auto& r : roots) inside |= !where.empty() && is_under(where, r);
    if (!inside) {
      a.error = "its directory is " + (where.empty() ? std::string("unknown") : where) +
                ", outside the audited directories: not touched";
      return a;
    }
  }
  if (!dfd) {
    a.error = std::string("cannot open its directory: ") + std::strerror(errno);
    return a;
  }
  const std::string name = f.held_dir && !f.held_name.empty() ? f.held_name : base_of(f.path);
  struct stat st;
  const mode_t mode = ::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)
                          ? st.st_mode & 0777
                          : f.claude ? 0600 : 0644;
  const std::string aside = move_aside(dfd.get(), name, base_of(f.aside), a.error);
  if (aside.empty()) return a;
  a.aside = dirname_of(f.path) + "/" + aside;
  if (f.act != Act::Rewrite) return a;
  // Clean what was actually moved, which may differ from what the walk read.
  std::string moved;
  if (f.claude) {
    // A link or a FIFO moved aside is read as no JSON at all: the start's text goes back. So is
    // a file judged hostile whole: nothing of the agent's copy is read again.
    if (f.whole || !read_all(dfd.get(), aside, moved, kMaxClaudeContent)) moved.clear();
    if (auto clean = claude_clean_text(*f.claude, f.claude_before, moved, &a.how))
      a.rewritten = write_new(dfd.get(), name, *clean, mode, a.error);
    return a;
  }
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
