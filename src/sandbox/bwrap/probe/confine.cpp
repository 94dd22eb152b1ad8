#include "sandbox/bwrap/probe/confine.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/child.hpp"
#include "common/pipe.hpp"

// bwrap's own confinement: Linux calls with no POSIX counterpart. Elsewhere (macOS) the bwrap
// backend never runs; the functions say so (ENOSYS), as run/protect_gate.cpp's helper does.
#ifdef __linux__
#include <linux/keyctl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

namespace blaude::sandbox::bwrap {

namespace {

#ifdef __linux__
// Debian 12's <linux/landlock.h> predates the `scoped` field (Linux 6.12, ABI 6).
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
constexpr unsigned kCreateRulesetVersion = 1U << 0;

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif

// --- async-signal-safe helpers for the child ------------------------------------------------

size_t put(char* buf, size_t at, size_t cap, const char* s) {
  while (*s && at + 1 < cap) buf[at++] = *s++;
  buf[at] = 0;
  return at;
}

size_t put_int(char* buf, size_t at, size_t cap, long v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = char('0' + v % 10);
    v /= 10;
  } while (v && n < 23);
  while (n && at + 1 < cap) buf[at++] = tmp[--n];
  buf[at] = 0;
  return at;
}

int write_file(const char* path, const std::string& text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = ::write(fd, text.data(), text.size());
  int e = n == ssize_t(text.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return e;
}

int enter_userns(const std::string& uid_map, const std::string& gid_map) {
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return errno;
  if (int e = write_file("/proc/self/uid_map", uid_map)) return e;
  if (int e = write_file("/proc/self/setgroups", "deny")) return e;
  if (int e = write_file("/proc/self/gid_map", gid_map)) return e;
  // Nothing mounted here may reach the host's mount namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  return 0;
}

// An overlay on `dir` with an upper dir on a tmpfs mounted on `dir` itself: the lower must be
// opened in this namespace (overlayfs refuses a lower mount of another one), before the tmpfs
// covers it; the fds reach the covered dirs by /proc/self/fd.
int overlay(const char* dir, const char* upper, const char* work, char* opts, size_t cap) {
  int lower = ::open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lower < 0) return errno;
  struct stat st;
  if (::fstat(lower, &st) != 0) return errno;
  if (::mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0) return errno;
  if (::mkdir(upper, st.st_mode & 07777) != 0 || ::mkdir(work, 0700) != 0) return errno;
  ::chmod(upper, st.st_mode & 07777);  // mkdir applied the umask; the overlay's root shows this
  int up = ::open(upper, O_PATH | O_DIRECTORY | O_CLOEXEC);
  int wk = ::open(work, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (up < 0 || wk < 0) return errno;
  size_t at = put(opts, 0, cap, "lowerdir=/proc/self/fd/");
  at = put_int(opts, at, cap, lower);
  at = put(opts, at, cap, ",upperdir=/proc/self/fd/");
  at = put_int(opts, at, cap, up);
  at = put(opts, at, cap, ",workdir=/proc/self/fd/");
  at = put_int(opts, at, cap, wk);
  put(opts, at, cap, ",userxattr");
  int e = ::mount("overlay", dir, "overlay", MS_NOSUID | MS_NODEV, opts) == 0 ? 0 : errno;
  ::close(lower);
  ::close(up);
  ::close(wk);
  return e;
}
#endif  // __linux__

}  // namespace

PreparedConfinement::PreparedConfinement(const Confinement& c) : spec_(c) {
  uid_map_ = std::to_string(c.uid) + " " + std::to_string(c.uid) + " 1";
  gid_map_ = std::to_string(c.gid) + " " + std::to_string(c.gid) + " 1";
  for (const auto& d : c.overlays) {
    upper_.push_back(d + "/upper");
    work_.push_back(d + "/work");
  }
  options_.assign(256, 0);
}

const char* confine_step_name(int step) {
  switch (step) {
    case kStepKeyring: return "a fresh session keyring";
    case kStepUserns: return "blaude's user namespace (for its own overlays)";
    case kStepOverlay: return "an overlay";
    case kStepLandlock: return "Landlock scoping";
  }
  return "confinement";
}

#ifdef __linux__
int apply_confinement(const PreparedConfinement& p, int* failed_step) {
  const Confinement& c = p.spec_;
  auto fail = [&](int step, int e) {
    *failed_step = step;
    return e ? e : EIO;
  };
  if (c.fresh_keyring && ::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) < 0) return fail(kStepKeyring, errno);
  if (!c.overlays.empty()) {
    // A cached "own overlays work" that no longer holds: dropped, the next start probes again.
    auto forget = [&](int step, int e) {
      if (!c.forget_on_failure.empty()) ::unlink(c.forget_on_failure.c_str());
      return fail(step, e);
    };
    if (int e = enter_userns(p.uid_map_, p.gid_map_)) return forget(kStepUserns, e);
    for (size_t i = 0; i < c.overlays.size(); ++i)
      if (int e = overlay(c.overlays[i].c_str(), p.upper_[i].c_str(), p.work_[i].c_str(), p.options_.data(),
                          p.options_.size()))
        return forget(kStepOverlay, e);
  }
  if (c.landlock_scopes) {
    RulesetAttr attr{0, 0, c.landlock_scopes};
    long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (fd < 0) return fail(kStepLandlock, errno);
    // Required unless privileged; bwrap sets it for its own children anyway.
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(kStepLandlock, errno);
    int r = int(::syscall(SYS_landlock_restrict_self, int(fd), 0));
    int e = errno;
    ::close(int(fd));
    if (r != 0) return fail(kStepLandlock, e);
  }
  return 0;
}
#else
int apply_confinement(const PreparedConfinement& p, int* failed_step) {
  if (p.spec_.empty()) return 0;
  *failed_step = p.spec_.fresh_keyring ? kStepKeyring : !p.spec_.overlays.empty() ? kStepUserns : kStepLandlock;
  return ENOSYS;
}
#endif

std::string format_confinement(const Confinement& c) {
  if (c.empty()) return {};
  std::string out = "# blaude applies these to bwrap's process itself, before exec (not in the command below):\n";
  if (c.fresh_keyring) out += "#   a fresh session keyring: the user's kernel keys are not inherited\n";
  if (c.landlock_scopes & kScopeAbstractUnixSocket)
    out += "#   Landlock: no connect() to abstract unix sockets outside the sandbox (X11, abstract D-Bus)\n";
  if (c.landlock_scopes & kScopeSignal) out += "#   Landlock: no signals to processes outside the sandbox\n";
  for (const auto& d : c.overlays)
    out += "#   its own user namespace with a write-discarding overlay on " + d + " (bwrap < 0.9 has none)\n";
  return out;
}

int landlock_abi() {
#ifdef __linux__
  long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return v < 0 ? 0 : int(v);
#else
  return 0;
#endif
}

bool own_overlay_works(std::string* why) {
  Confinement c;
  c.uid = ::getuid();
  c.gid = ::getgid();
  // A dir of our own to overlay: the probe's mounts vanish with its namespace.
  char dir[] = "/tmp/blaude-overlay-probe.XXXXXX";
  if (!::mkdtemp(dir)) {
    if (why) *why = std::string("cannot make a probe dir: ") + std::strerror(errno);
    return false;
  }
  c.overlays = {dir};
  PreparedConfinement p(c);
  UniqueFd rd, wr;
  if (!make_pipe(rd, wr)) {
    ::rmdir(dir);
    return false;
  }
  // The probe keeps only its report pipe: the namespaces it makes are its own, and nothing of
  // blaude's needs to stay open in them.
  ChildSetup setup;
  setup.report_fd = wr.get();
  const int report = wr.get();
  pid_t pid = fork_child(setup, [&p, report] {
    ChildFailure f;
    f.err = apply_confinement(p, &f.step);
    report_to_parent(report, f);
    ::_exit(f.err ? 1 : 0);
  });
  int e = pid < 0 ? errno : -1;
  wr.reset();
  if (pid > 0) {
    ChildFailure f;
    e = read_child_report(rd.get(), f) ? f.err : EIO;
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
  rd.reset();
  ::rmdir(dir);
  if (e != 0 && why) *why = std::strerror(e);
  return e == 0;
}

}  // namespace blaude::sandbox::bwrap
