#include "sandbox/workspace/workspace_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.hpp"
#if BLAUDE_LINUX_CALLS
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace blaude::sandbox::workspace {

namespace {

#if BLAUDE_LINUX_CALLS
struct Dirent64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};
#endif

unsigned type_of(int dirfd, const char* name, unsigned char dt) {
  switch (dt) {
    case DT_DIR: return S_IFDIR;
    case DT_REG: return S_IFREG;
    case DT_LNK: return S_IFLNK;
    case DT_UNKNOWN: break;
    default: return S_IFSOCK;  // any other kind: not a dir, file or link
  }
  struct stat st;
  if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  return unsigned(st.st_mode & S_IFMT);
}

// Calls f(name, d_type) for every entry of the open dir fd (which stays open and owned by the
// caller). getdents64 on Linux (no DIR allocation per dir); readdir on a dup elsewhere.
template <class F>
void for_each_entry(int fd, std::vector<char>& buf, F&& f) {
#if BLAUDE_LINUX_CALLS
  for (;;) {
    long n = ::syscall(SYS_getdents64, fd, buf.data(), buf.size());
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* e = reinterpret_cast<Dirent64*>(buf.data() + off);
      off += e->d_reclen;
      f(e->d_name, e->d_type);
    }
  }
#else
  (void)buf;
  int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (!d) {
    if (dup >= 0) ::close(dup);
    return;
  }
  while (dirent* e = ::readdir(d)) f(e->d_name, e->d_type);
  ::closedir(d);
#endif
}

struct Walker {
  const std::string& root;
  const WalkLimits& lim;
  std::chrono::steady_clock::time_point deadline;
  WorkspaceWalk out;
  std::vector<char> buf = std::vector<char>(64 * 1024);

  bool stop(const std::string& rel) {
    if (out.truncated) return true;
    if (out.entries > lim.max_entries || std::chrono::steady_clock::now() > deadline) {
      out.truncated = true;
      out.truncated_at = rel.empty() ? "." : rel;
    }
    return out.truncated;
  }

  // fd: the dir `rel` (depth = depth of its entries), owned here.
  void dir(int fd, const std::string& rel, int depth) {
    ++out.dirs;
    std::vector<std::string> subs;
    bool head = false, objects = false, refs = false;
    std::string base = rel.empty() ? "" : rel + "/";
    auto entry = [&](const char* name, unsigned char dtype) {
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) return;
      ++out.entries;
      unsigned t = type_of(fd, name, dtype);
      if (std::strcmp(name, ".git") == 0) {
        FoundGit::Kind k = t == S_IFDIR ? FoundGit::Dir : t == S_IFREG ? FoundGit::File : FoundGit::Symlink;
        if (t == S_IFDIR || t == S_IFREG || t == S_IFLNK) out.git.push_back({k, root + "/" + base + name});
        return;  // git internals are not walked
      }
      if (name[0] == '.' && depth <= lim.name_depth) out.dotnames.push_back({base + name, t});
      if (t == S_IFLNK && depth <= lim.link_depth) {
        char lb[4096];
        ssize_t k = ::readlinkat(fd, name, lb, sizeof lb - 1);
        if (k > 0) out.links.push_back({base + name, std::string(lb, size_t(k))});
      }
      if (t == S_IFDIR) subs.emplace_back(name);
      head |= t == S_IFREG && std::strcmp(name, "HEAD") == 0;
      objects |= t == S_IFDIR && std::strcmp(name, "objects") == 0;
      refs |= t == S_IFDIR && std::strcmp(name, "refs") == 0;
    };
    for_each_entry(fd, buf, entry);
    if (head && objects && refs && !rel.empty()) {
      // A bare repository (or a gitdir under another name): its contents are git's.
      out.git.push_back({FoundGit::Bare, root + "/" + rel});
      ::close(fd);
      return;
    }
    std::sort(subs.begin(), subs.end());
    for (const auto& s : subs) {
      if (stop(rel)) break;
      int c = ::openat(fd, s.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (c < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          out.truncated = true;
          out.truncated_at = base + s;
        } else if (errno == EACCES) {
          out.unreadable.push_back(base + s);
        }
        continue;
      }
      dir(c, base + s, depth + 1);
    }
    ::close(fd);
  }
};

}  // namespace

WorkspaceWalk walk_workspace(const std::string& root, const WalkLimits& limits) {
  Walker w{root, limits, std::chrono::steady_clock::now() + limits.budget, {}};
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) w.dir(fd, "", 1);
  w.out.git_walk_order = w.out.git;
  std::sort(w.out.git.begin(), w.out.git.end(), [](const FoundGit& a, const FoundGit& b) { return a.path < b.path; });
  return std::move(w.out);
}

}  // namespace blaude::sandbox::workspace
