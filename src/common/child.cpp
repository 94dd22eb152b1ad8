#include "common/child.hpp"

#include "common/fd_limit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/platform.hpp"
#ifdef __linux__
#include <sys/syscall.h>
#endif

namespace blaude {

void report_to_parent(int fd, ChildFailure f) {
  ssize_t n = ::write(fd, &f, sizeof f);
  (void)n;
}

bool read_child_report(int fd, ChildFailure& out) {
  ChildFailure r;
  ssize_t n;
  do {
    n = ::read(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof r)) return false;
  out = r;
  return true;
}

SignalsBlocked::SignalsBlocked() {
  int e = errno;
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &old_);
  errno = e;
}

SignalsBlocked::~SignalsBlocked() {
  int e = errno;
  ::sigprocmask(SIG_SETMASK, &old_, nullptr);
  errno = e;
}

namespace {

bool listed(const int* v, size_t n, int x) {
  for (size_t i = 0; i < n; ++i)
    if (v[i] == x) return true;
  return false;
}

void reset_handlers(bool keep_ignored) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int s = 1; s < NSIG; ++s) {
    if (keep_ignored) {
      struct sigaction old = {};
      if (::sigaction(s, nullptr, &old) != 0 || old.sa_handler == SIG_IGN || old.sa_handler == SIG_DFL) continue;
    }
#ifdef __linux__
    // Not a Linux-only call with a POSIX fallback but glibc's own gap, so a forced-fallbacks
    // build keeps it: glibc's sigaction refuses its internal signals (32, 33), and GNU make
    // hands its children both ignored (make test -> ctest -> blaude). On macOS sigaction
    // covers every signal.
    if (::sigaction(s, &sa, nullptr) != 0 && !keep_ignored) {
      // an inherited "ignore" must still go.
      struct {
        void* handler;
        unsigned long flags;
        void* restorer;
        unsigned long mask;
      } k{};
      ::syscall(SYS_rt_sigaction, s, &k, nullptr, sizeof k.mask);
    }
#else
    // POSIX: sigaction refuses only SIGKILL and SIGSTOP, which cannot be ignored anyway.
    ::sigaction(s, &sa, nullptr);
#endif
  }
}

void close_other_fds(const ChildSetup& s) {
  int max = static_cast<int>(::sysconf(_SC_OPEN_MAX));
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; ++fd) {
    if (fd == s.report_fd) continue;
    if (listed(s.keep, s.n_keep, fd)) {
      int fl = ::fcntl(fd, F_GETFD);
      if (fl >= 0) ::fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
      continue;
    }
#if BLAUDE_LINUX_CALLS
#ifdef SYS_close_range
    // Close the run up to the next kept fd in one call where the kernel has close_range.
    int next = max;
    for (size_t i = 0; i < s.n_keep; ++i)
      if (s.keep[i] > fd && s.keep[i] < next) next = s.keep[i];
    if (s.report_fd > fd && s.report_fd < next) next = s.report_fd;
    if (::syscall(SYS_close_range, fd, next - 1, 0) == 0) {
      fd = next - 1;
      continue;
    }
#endif
#endif
    ::close(fd);
  }
}

}  // namespace

void child_prologue(const ChildSetup& s) {
  reset_handlers(s.keep_ignored);
  struct sigaction ign;
  std::memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  for (size_t i = 0; i < s.n_ignore; ++i) ::sigaction(s.ignore[i], &ign, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // The descriptor limit blaude had before proxy mode raised its own (fd_limit.hpp).
  if (const struct rlimit* r = original_fd_limit()) ::setrlimit(RLIMIT_NOFILE, r);
  close_other_fds(s);
}

}  // namespace blaude
