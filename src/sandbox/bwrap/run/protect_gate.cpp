#include "sandbox/bwrap/run/protect_gate.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/child.hpp"

// The fd-based mounts below are the bwrap backend's own, and bwrap exists only on Linux: they
// are no POSIX fallback of anything macOS runs, so a forced-fallbacks build keeps them (and the
// suite keeps testing the real protections). Elsewhere the helper is not compiled.
#ifdef __linux__
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#endif

namespace blaude::sandbox::bwrap {

#ifdef __linux__
namespace {

// --- the helper: runs in a forked child of a possibly multi-threaded blaude, so from here on only
// system calls over memory prepared before the fork (no allocation, no locks, no stdio).

struct Line {  // a fixed buffer for the one status line
  char buf[1024];
  size_t n = 0;
  Line& operator<<(const char* s) {
    while (*s && n + 1 < sizeof buf) buf[n++] = *s++;
    return *this;
  }
  Line& operator<<(unsigned long long v) {
    char d[24];
    int k = 0;
    do d[k++] = char('0' + v % 10); while ((v /= 10) && k < 24);
    while (k && n + 1 < sizeof buf) buf[n++] = d[--k];
    return *this;
  }
};

long long now_us() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

struct Helper {
  const std::vector<InnerMount>& mounts;
  int info_r, gate_w, status_w;
  long long deadline_us;
  pid_t child = 0;
  int root = -1;  // bwrap's setup root; the sandbox's root is "newroot" in it until pivot_root
  // Dirs this run created (the same host dir shows at every alias of the workspace).
  Identity made[1024];
  size_t n_made = 0;
  // bwrap's stdout when it is a terminal (bwrap's --dev binds it at /dev/console): its path on
  // the host and its device, read before entering the namespaces.
  char tty[PATH_MAX] = {};
  dev_t tty_rdev = 0;

  [[noreturn]] void finish(Line& l, bool ok) {
    l << "\n";
    (void)!::write(status_w, l.buf, l.n);
    if (!ok && child > 0) ::kill(child, SIGKILL);
    if (ok) ::close(gate_w);
    ::_exit(ok ? 0 : 1);
  }
  [[noreturn]] void fail(const char* what, const char* path, int err) {
    Line l;
    l << "FAIL " << what;
    if (path) l << " " << path;
    if (err) l << ": " << ::strerror(err);
    finish(l, false);
  }

  bool wait_for(int fd, short events) {
    for (;;) {
      long long left = deadline_us - now_us();
      if (left <= 0) return false;
      struct pollfd p = {fd, events, 0};
      int r = ::poll(&p, 1, int(left / 1000) + 1);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      return (p.revents & events) && !(p.revents & POLLERR);
    }
  }

  // bwrap writes {"child-pid": N, ...} right after it cloned the setup process.
  void read_child_pid() {
    char b[512];
    size_t n = 0;
    for (;;) {
      if (!wait_for(info_r, POLLIN)) fail("bwrap did not report its child", nullptr, 0);
      ssize_t r = ::read(info_r, b + n, sizeof b - 1 - n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) fail("bwrap ended before it reported its child", nullptr, 0);
      n += size_t(r);
      b[n] = 0;
      const char* k = ::strstr(b, "\"child-pid\"");
      if (!k) continue;
      const char* c = ::strchr(k, ':');
      if (!c) continue;
      ++c;
      while (*c == ' ') ++c;
      const char* e = c;
      long long v = 0;
      while (*e >= '0' && *e <= '9') v = v * 10 + (*e++ - '0');
      if (*e == 0 || e == c) continue;  // the number may continue in the next read
      child = pid_t(v);
      return;
    }
  }

  int open_proc(const char* what, int flags) {
    Line p;
    p << "/proc/" << (unsigned long long)child << "/" << what;
    p.buf[p.n] = 0;
    int fd = ::open(p.buf, flags | O_CLOEXEC);
    if (fd < 0) fail("cannot open", p.buf, errno);
    return fd;
  }

  // What bwrap's --dev would bind at /dev/console: its stdout (the same in its child), if a tty.
  void find_tty() {
    Line p;
    p << "/proc/" << (unsigned long long)child << "/fd/1";
    p.buf[p.n] = 0;
    int fd = ::open(p.buf, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (::isatty(fd) && ::fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
      ssize_t n = ::readlink(p.buf, tty, sizeof tty - 1);
      if (n > 5 && ::memcmp(tty, "/dev/", 5) == 0) {
        tty[n] = 0;
        tty_rdev = st.st_rdev;
      } else {
        tty[0] = 0;
      }
    }
    ::close(fd);
  }

  void enter() {
    int user = open_proc("ns/user", O_RDONLY), mnt = open_proc("ns/mnt", O_RDONLY);
    if (needs_dev()) find_tty();
    // Writable again = bwrap has read the pre-filled gate: every op before it is done. Its root
    // only then: bwrap pivots into its setup root after the clone.
    if (!wait_for(gate_w, POLLOUT)) fail("bwrap did not reach the protection step", nullptr, 0);
    root = open_proc("root", O_PATH | O_DIRECTORY);
    if (::setns(user, CLONE_NEWUSER) != 0) fail("cannot enter the sandbox's user namespace", nullptr, errno);
    if (::setns(mnt, CLONE_NEWNS) != 0) fail("cannot enter the sandbox's mount namespace", nullptr, errno);
    ::close(user);
    ::close(mnt);
  }

  // The object at `top` + absolute `path` in bwrap's setup root ("newroot": the sandbox's,
  // "oldroot": the host's), with no symlink anywhere on the way; `rel` is PATH_MAX bytes.
  int beneath(const char* top, const char* path, char* rel) {
    size_t n = ::strlen(path), t = ::strlen(top);
    if (n + t + 1 >= PATH_MAX || path[0] != '/') fail("bad path", path, 0);
    ::memcpy(rel, top, t);
    ::memcpy(rel + t, path, n + 1);
    struct open_how how = {};
    how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return int(::syscall(SYS_openat2, root, rel, &how, sizeof how));
  }
  // The object at sandbox path `path`.
  int resolve(const char* path, char* rel) { return beneath("newroot", path, rel); }

  static bool same(int fd, const Identity& id) {
    struct stat st;
    return ::fstat(fd, &st) == 0 && (unsigned long long)st.st_dev == id.dev && (unsigned long long)st.st_ino == id.ino &&
           (st.st_mode & S_IFMT) == id.type;
  }

  void expect(int fd, const Identity& id, const char* path) {
    struct stat st;
    if (::fstat(fd, &st) != 0) fail("cannot stat", path, errno);
    const bool type_only = id.dev == 0 && id.ino == 0;  // made by a host preparation after the probe
    if ((!type_only && ((unsigned long long)st.st_dev != id.dev || (unsigned long long)st.st_ino != id.ino)) ||
        (st.st_mode & S_IFMT) != id.type)
      fail("changed while the sandbox was starting:", path, 0);
  }

  // A recursive clone of `src` (every mount below it, their flags with them) onto `fd`;
  // read-only throughout when asked. src == fd: the object covered by a clone of itself.
  void clone_onto(int fd, bool read_only, const char* path, int src = -1) {
    int t = int(::syscall(SYS_open_tree, src < 0 ? fd : src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE));
    if (t < 0) fail("cannot clone", path, errno);
    struct mount_attr a = {};
    a.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (read_only ? MOUNT_ATTR_RDONLY : 0);
    if (::syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH | (read_only ? AT_RECURSIVE : 0), &a, sizeof a) != 0)
      fail("cannot set mount flags on", path, errno);
    if (::syscall(SYS_move_mount, t, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
      fail("cannot mount on", path, errno);
    ::close(t);
  }

  // Creates the missing dir `path` (its parent must be `parent_id`, or any dir when unchecked) and
  // covers it with an empty read-only tmpfs.
  void empty_dir(const char* path, const Identity* parent_id) {
    char rel[PATH_MAX], parent[PATH_MAX];
    const char* slash = ::strrchr(path, '/');
    size_t pn = size_t(slash - path);
    if (pn == 0 || pn >= sizeof parent) fail("bad path", path, 0);
    ::memcpy(parent, path, pn);
    parent[pn] = 0;
    int pfd = resolve(parent, rel);
    if (pfd < 0) fail("cannot open", parent, errno);
    if (parent_id) expect(pfd, *parent_id, parent);
    // Ours only if we made it (here or at another alias of it): a dir someone else created
    // meanwhile may already hold content.
    bool fresh = ::mkdirat(pfd, slash + 1, 0755) == 0;
    if (!fresh && errno != EEXIST) fail("cannot create", path, errno);
    int fd = resolve(path, rel);
    if (fd < 0) fail("cannot open", path, errno);
    struct stat st;
    if (::fstat(fd, &st) != 0) fail("cannot stat", path, errno);
    Identity id{(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(st.st_mode & S_IFMT)};
    if (fresh) {
      if (n_made < sizeof made / sizeof made[0]) made[n_made++] = id;
    } else {
      bool ours = false;
      for (size_t i = 0; i < n_made; ++i) ours |= made[i] == id;
      if (!ours) fail("changed while the sandbox was starting:", path, EEXIST);
    }
    int fs = int(::syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
    if (fs < 0) fail("cannot make a tmpfs for", path, errno);
    if (::syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
        ::syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
      fail("cannot make a tmpfs for", path, errno);
    int m = int(::syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
                          MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
    if (m < 0) fail("cannot make a tmpfs for", path, errno);
    if (::syscall(SYS_move_mount, m, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
      fail("cannot mount on", path, errno);
    ::close(m);
    ::close(fs);
    ::close(fd);
    ::close(pfd);
  }

  // The sandbox's /dev/null (bwrap's --dev made it) onto a checked socket file. if_same: a
  // socket unlinked since it was opened (ENOENT from move_mount) is passed over.
  void null_onto(int fd, const char* path, bool if_same) {
    char rel[PATH_MAX];
    int dn = resolve("/dev/null", rel);
    if (dn < 0) fail("cannot open", "/dev/null", errno);
    int t = int(::syscall(SYS_open_tree, dn, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH));
    if (t < 0) fail("cannot clone /dev/null for", path, errno);
    struct mount_attr a = {};
    a.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY;
    if (::syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH, &a, sizeof a) != 0) fail("cannot set mount flags on", path, errno);
    if (::syscall(SYS_move_mount, t, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0 &&
        !(if_same && errno == ENOENT))
      fail("cannot mount on", path, errno);
    ::close(t);
    ::close(dn);
  }

  // An empty writable tmpfs (mode 0755, the sandbox user's, as bwrap's --tmpfs) onto a checked dir.
  // if_same: a dir removed since it was opened (ENOENT from move_mount) is passed over.
  void tmpfs_onto(int fd, const char* path, bool if_same) {
    int fs = int(::syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
    if (fs < 0) fail("cannot make a tmpfs for", path, errno);
    if (::syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) != 0 ||
        ::syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
      fail("cannot make a tmpfs for", path, errno);
    int m = int(::syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
    if (m < 0) fail("cannot make a tmpfs for", path, errno);
    if (::syscall(SYS_move_mount, m, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0 &&
        !(if_same && errno == ENOENT))
      fail("cannot mount on", path, errno);
    ::close(m);
    ::close(fs);
  }

  bool needs_dev() const {
    for (const auto& m : mounts)
      if (m.kind == InnerKind::Dev) return true;
    return false;
  }

  // A host object, under bwrap's old root.
  int host_object(const char* host, char* rel) { return beneath("oldroot", host, rel); }

  // The host's device node `src` (checked: a character device `rdev`) bound on a new file `name`
  // in `dir`, as bwrap's --dev binds them: nosuid, devices allowed.
  void bind_node(int dir, const char* name, const char* src, dev_t rdev) {
    char rel[PATH_MAX];
    int s = host_object(src, rel);
    if (s < 0) fail("cannot open", src, errno);
    struct stat st;
    if (::fstat(s, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != rdev) fail("not the expected device:", src, 0);
    int f = ::openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (f < 0) fail("cannot create in /dev:", name, errno);
    ::close(f);
    int to = ::openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (to < 0) fail("cannot open in /dev:", name, errno);
    int t = int(::syscall(SYS_open_tree, s, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH));
    if (t < 0) fail("cannot clone", src, errno);
    struct mount_attr a = {};
    a.attr_set = MOUNT_ATTR_NOSUID;
    if (::syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH, &a, sizeof a) != 0) fail("cannot set mount flags in /dev on", name, errno);
    if (::syscall(SYS_move_mount, t, "", to, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
      fail("cannot mount in /dev on", name, errno);
    ::close(t);
    ::close(to);
    ::close(s);
  }

  // bwrap's --dev, on the empty tmpfs bwrap mounted at `path`: the same six device nodes, the
  // links, shm, a new devpts instance (its ptmx 0666) and, when bwrap's stdout is a terminal,
  // that terminal at console. In bwrap's first user namespace, which maps the user's own uid:
  // devpts needs no root mapping this way, so bwrap needs no second user namespace either.
  void make_dev(const char* path) {
    char rel[PATH_MAX];
    int dir = resolve(path, rel);
    if (dir < 0) fail("cannot open", path, errno);
    struct stat st;
    if (::fstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) fail("not a directory:", path, 0);
    static const struct {
      const char* name;
      const char* host;
      unsigned major, minor;
    } nodes[] = {{"null", "/dev/null", 1, 3},    {"zero", "/dev/zero", 1, 5},       {"full", "/dev/full", 1, 7},
                 {"random", "/dev/random", 1, 8}, {"urandom", "/dev/urandom", 1, 9}, {"tty", "/dev/tty", 5, 0}};
    for (const auto& n : nodes) bind_node(dir, n.name, n.host, makedev(n.major, n.minor));
    static const char* const links[][2] = {{"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
                                           {"stderr", "/proc/self/fd/2"}, {"fd", "/proc/self/fd"},
                                           {"core", "/proc/kcore"},       {"ptmx", "pts/ptmx"}};
    for (const auto& l : links)
      if (::symlinkat(l[1], dir, l[0]) != 0) fail("cannot make the link in /dev:", l[0], errno);
    if (::mkdirat(dir, "shm", 0755) != 0) fail("cannot create in /dev:", "shm", errno);
    if (::mkdirat(dir, "pts", 0755) != 0) fail("cannot create in /dev:", "pts", errno);
    int pts = ::openat(dir, "pts", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (pts < 0) fail("cannot open in /dev:", "pts", errno);
    int fs = int(::syscall(SYS_fsopen, "devpts", FSOPEN_CLOEXEC));
    if (fs < 0) fail("cannot make a devpts for", "/dev/pts", errno);
    if (::syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "source", "devpts", 0) != 0 ||
        ::syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) != 0 ||
        ::syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "620", 0) != 0 ||
        ::syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
      fail("cannot make a devpts for", "/dev/pts", errno);
    int m = int(::syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC));
    if (m < 0) fail("cannot make a devpts for", "/dev/pts", errno);
    if (::syscall(SYS_move_mount, m, "", pts, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
      fail("cannot mount on", "/dev/pts", errno);
    ::close(m);
    ::close(fs);
    ::close(pts);
    if (tty[0]) bind_node(dir, "console", tty, tty_rdev);
    ::close(dir);
  }

  // The mount point of a bind at sandbox path `path`, made as bwrap makes one: missing dirs on the
  // way 0755, the last one a dir or an empty file (0666) as `type` says; no symlink anywhere.
  int mount_point(const char* path, unsigned type) {
    char buf[PATH_MAX];
    size_t n = ::strlen(path);
    if (n + 1 >= sizeof buf || path[0] != '/') fail("bad path", path, 0);
    ::memcpy(buf, path, n + 1);
    struct open_how how = {};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    int dir = int(::syscall(SYS_openat2, root, "newroot", &how, sizeof how));
    if (dir < 0) fail("cannot open the sandbox's root for", path, errno);
    char* c = buf + 1;
    for (;;) {
      char* slash = ::strchr(c, '/');
      const bool last = slash == nullptr;
      if (!last) *slash = 0;
      if (!*c || (c[0] == '.' && (!c[1] || (c[1] == '.' && !c[2])))) fail("bad path", path, 0);
      if (last && type == S_IFREG) {
        int f = ::openat(dir, c, O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (f < 0) fail("cannot create the mount point", path, errno);
        ::close(f);
      } else if (::mkdirat(dir, c, 0755) != 0 && errno != EEXIST) {
        fail("cannot create the mount point", path, errno);
      }
      int next = ::openat(dir, c, O_PATH | O_NOFOLLOW | O_CLOEXEC | (last && type == S_IFREG ? 0 : O_DIRECTORY));
      if (next < 0) fail("cannot open the mount point", path, errno);
      ::close(dir);
      dir = next;
      if (last) break;
      c = slash + 1;
    }
    struct stat st;
    if (::fstat(dir, &st) != 0 || (st.st_mode & S_IFMT) != type) fail("the mount point is not what it should be:", path, 0);
    return dir;
  }

  // One of bwrap's binds, made here (InnerKind::Bind / RoBind).
  void bind(const InnerMount& m) {
    char rel[PATH_MAX];
    const char* host = m.host.c_str();
    int s = host_object(host, rel);
    if (s < 0 && m.if_gone && errno == ENOENT) return;
    if (s < 0)
      fail(errno == ELOOP || errno == EXDEV || errno == ENOENT ? "changed while the sandbox was starting:" : "cannot open", host,
           errno == ELOOP || errno == EXDEV || errno == ENOENT ? 0 : errno);
    expect(s, m.id, host);
    int to = mount_point(m.path.c_str(), m.id.type);
    clone_onto(to, m.kind == InnerKind::RoBind, m.path.c_str(), s);
    ::close(to);
    ::close(s);
  }

  void apply(const InnerMount& m) {
    const char* path = m.path.c_str();
    if (m.kind == InnerKind::Dev) return make_dev(path);
    if (m.kind == InnerKind::Bind || m.kind == InnerKind::RoBind) return bind(m);
    if (m.kind == InnerKind::EmptyDir) return empty_dir(path, &m.id);
    char rel[PATH_MAX];
    int fd = resolve(path, rel);
    if (m.if_same && (fd < 0 ? errno == ENOENT : !same(fd, m.id))) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (m.if_gone && fd < 0 && errno == ENOENT) return;
    if (fd < 0) fail(errno == ELOOP || errno == EXDEV || errno == ENOENT ? "changed while the sandbox was starting:" : "cannot open", path,
                     errno == ELOOP || errno == EXDEV || errno == ENOENT ? 0 : errno);
    expect(fd, m.if_gone ? Identity{0, 0, m.id.type} : m.id, path);
    if (m.kind == InnerKind::Mirror) {
      // The source is the workspace's own bind, with the protections mounted in it above.
      int src = resolve(m.from.c_str(), rel);
      if (src < 0) fail("cannot open", m.from.c_str(), errno);
      expect(src, m.id, m.from.c_str());
      clone_onto(fd, false, path, src);
      ::close(src);
    } else if (m.kind == InnerKind::ShadowFile) {
      null_onto(fd, path, m.if_same || m.if_gone);
    } else if (m.kind == InnerKind::ShadowDir) {
      tmpfs_onto(fd, path, m.if_same || m.if_gone);
    } else {
      clone_onto(fd, m.kind == InnerKind::ReadOnly, path);
    }
    ::close(fd);
  }

  [[noreturn]] void run() {
    long long t0 = now_us();
    read_child_pid();
    enter();
    long long t1 = now_us();
    for (const auto& m : mounts) apply(m);
    empty_dir(kProofDir, nullptr);
    Line l;
    l << "OK " << (unsigned long long)mounts.size() << " mounts in " << (unsigned long long)(now_us() - t1)
      << " us (" << (unsigned long long)(t1 - t0) << " us waiting for bwrap)";
    finish(l, true);
  }
};

void make_gate_pipe(UniqueFd& r, UniqueFd& w) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  r.reset(p[0]);
  w.reset(p[1]);
}

}  // namespace

ProtectGate ProtectGate::start(const std::vector<InnerMount>& mounts, std::chrono::milliseconds timeout) {
  ProtectGate g;
  make_gate_pipe(g.info_r_, g.info_w_);
  make_gate_pipe(g.gate_r_, g.gate_w_);
  make_gate_pipe(g.status_r_, g.status_w_);
  // One page of pipe, filled: the helper learns that bwrap reached the gate when it is writable.
  if (::fcntl(g.gate_w_.get(), F_SETPIPE_SZ, 4096) < 0)
    throw std::system_error(errno, std::generic_category(), "F_SETPIPE_SZ");
  char fill[4096];
  static const char head[] = "blaude: protected paths were mounted here before the command started\n";
  std::memset(fill, '\n', sizeof fill);
  std::memcpy(fill, head, sizeof head - 1);
  if (::write(g.gate_w_.get(), fill, sizeof fill) != ssize_t(sizeof fill))
    throw std::system_error(errno, std::generic_category(), "fill the gate");
  g.mounts_ = &mounts;
  g.deadline_us_ = now_us() + timeout.count() * 1000LL;
  return g;
}

void ProtectGate::launch_helper() {
  if (!gate_w_ || helper_ > 0) return;
  // One fork, and nobody waits for it here; blaude reaps it in outcome(), by its pid only
  // (blaude never waits for "any child"). It was a double fork before bwrap's start, blaude
  // waiting for the middle process: a second copy of blaude's page tables, a fork-and-exit
  // round trip and the parent's copy-on-write faults on the way to bwrap's start (2-3 ms under
  // load in a kernel trace).
  // Forked after the supervisor installed its handlers: they would write this process's signals
  // into blaude's signal pipe (a Ctrl-C forwarded twice). Default actions, as a helper forked
  // before them had; what blaude ignores stays ignored. It keeps its three pipe ends only: a
  // write end of someone else's pipe held here would delay that reader's EOF until bwrap ends.
  const int keep[3] = {info_r_.get(), gate_w_.get(), status_w_.get()};
  ChildSetup setup;
  setup.keep = keep;
  setup.n_keep = 3;
  setup.keep_ignored = true;
  pid_t pid = fork_child(setup, [this] {
    Helper h{*mounts_, info_r_.get(), gate_w_.get(), status_w_.get(), deadline_us_, 0, -1, {}, 0};
    h.run();
  });
  int err = errno;
  if (pid < 0) {
    // Closing the gate without the proof stops bwrap before the command.
    std::string why = std::string("FAIL cannot start the protection helper: fork: ") + ::strerror(err) + "\n";
    (void)!::write(status_w_.get(), why.data(), why.size());
  }
  helper_ = pid;
  info_r_.reset();
  gate_w_.reset();
  status_w_.reset();
}

#else
// Not Linux: no bwrap, no fd-based mounts; the planner would protect with bwrap's own options
// (see plan/plan.cpp), and never starts the helper.
ProtectGate ProtectGate::start(const std::vector<InnerMount>&, std::chrono::milliseconds) {
  throw std::system_error(ENOSYS, std::generic_category(), "the protect helper needs Linux mount calls");
}

void ProtectGate::launch_helper() {}
#endif  // __linux__

void ProtectGate::fail(const std::string& why) {
  if (!gate_w_ || helper_ > 0) return;
  std::string line = "FAIL " + why + "\n";
  (void)!::write(status_w_.get(), line.data(), line.size());
  info_r_.reset();
  gate_w_.reset();
  status_w_.reset();
}

// The helper closes its status pipe only by exiting: after EOF there this does not block. Also
// from the destructor, where it may still run (an early return before bwrap's end): it ends by
// its deadline or bwrap's end at the latest, so there it is only collected if it is done.
void ProtectGate::reap(bool wait) {
  if (helper_ <= 0) return;
  int st;
  pid_t r;
  while ((r = ::waitpid(helper_, &st, wait ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r != 0) helper_ = -1;
}

ProtectGate::~ProtectGate() { reap(false); }

void ProtectGate::release_child_ends() {
  info_w_.reset();
  gate_r_.reset();
}

std::string ProtectGate::outcome() {
  if (!status_r_) return ok_ ? "" : report_;
  release_child_ends();
  if (gate_w_) {
    // Never launched: bwrap could not be started. What the helper said then, as before.
    info_r_.reset();
    gate_w_.reset();
    status_w_.reset();
    status_r_.reset();
    ok_ = false;
    report_ = "bwrap ended before it reported its child";
    return report_;
  }
  // The helper is done once bwrap is (it exits on bwrap's end of the gate at the latest).
  char b[1024];
  std::string text;
  ssize_t n;
  while ((n = ::read(status_r_.get(), b, sizeof b)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(b, size_t(n));
  }
  status_r_.reset();
  reap();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  ok_ = text.rfind("OK ", 0) == 0;
  report_ = ok_ ? text.substr(3) : text.rfind("FAIL ", 0) == 0 ? text.substr(5) : "the protection helper ended without a word";
  return ok_ ? "" : report_;
}

}  // namespace blaude::sandbox::bwrap
