#include "pty/terminal.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "term/emit.hpp"

namespace blaude::pty {

int set_nonblocking(int fd, bool on) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return -1;
  int want = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
  if (want != fl) fcntl(fd, F_SETFL, want);
  return fl;
}

static UniqueFd reopen_tty(int fd) {
  char path[256];
  if (ttyname_r(fd, path, sizeof path) != 0) return {};
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return {};
  int mode = (flags & O_ACCMODE) == O_RDONLY ? O_RDONLY
             : (flags & O_ACCMODE) == O_WRONLY ? O_WRONLY : O_RDWR;
  UniqueFd r(open(path, mode | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!r) return {};
  // Make sure we reopened the same device, not a look-alike path.
  struct stat a, b;
  if (fstat(fd, &a) != 0 || fstat(r.get(), &b) != 0 || a.st_rdev != b.st_rdev) return {};
  return r;
}

Endpoint open_endpoint(int in, int out) {
  Endpoint e;
  struct stat a, b;
  bool same = fstat(in, &a) == 0 && fstat(out, &b) == 0 && a.st_rdev == b.st_rdev;
  if (same) {
    char path[256];
    if (ttyname_r(in, path, sizeof path) == 0) {
      e.owned_in.reset(open(path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    }
    if (e.owned_in) {
      e.in_fd = e.out_fd = e.owned_in.get();
    }
  } else {
    e.owned_in = reopen_tty(in);
    e.owned_out = reopen_tty(out);
    if (e.owned_in) e.in_fd = e.owned_in.get();
    if (e.owned_out) e.out_fd = e.owned_out.get();
  }
  if (e.in_fd < 0) e.in_fd = in;  // caller must restore O_NONBLOCK on these
  if (e.out_fd < 0) e.out_fd = out;
  e.size_fd = out;
  return e;
}

std::array<int, 2> shared_fds(const Endpoint& e) {
  std::array<int, 2> r{-1, -1};
  bool in_shared = !e.owned_in && e.in_fd >= 0;
  bool out_shared = !e.owned_out && !(e.owned_in && e.out_fd == e.in_fd) && e.out_fd >= 0;
  if (in_shared) r[0] = e.in_fd;
  if (out_shared && e.out_fd != e.in_fd) r[1] = e.out_fd;
  return r;
}

bool write_bounded(int fd, std::string_view s, int timeout_ms) {
  timespec t0{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (!s.empty()) {
    ssize_t n = write(fd, s.data(), s.size());
    if (n > 0) {
      s.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EINTR && errno != EAGAIN) return false;
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    long spent = (t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L;
    if (spent >= timeout_ms) return false;
    pollfd p{fd, POLLOUT, 0};
    poll(&p, 1, static_cast<int>(timeout_ms - spent));
  }
  return true;
}

bool TerminalModes::save(int fd) {
  if (tcgetattr(fd, &orig_) != 0) return false;
  fd_ = fd;
  return true;
}

bool TerminalModes::make_raw() {
  if (fd_ < 0) return false;
  termios raw = orig_;
  cfmakeraw(&raw);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  // Not TCSAFLUSH: keystrokes typed while blaude starts or resumes from a stop belong to the
  // child (under a paused recorder they arrive in exactly that window) and must not be lost.
  if (tcsetattr(fd_, TCSADRAIN, &raw) != 0) return false;
  raw_ = true;
  return true;
}

void TerminalModes::restore(bool flush) {
  if (fd_ >= 0 && raw_) {
    // Both let the last output reach the screen before the modes change back.
    while (tcsetattr(fd_, flush ? TCSAFLUSH : TCSADRAIN, &orig_) != 0 && errno == EINTR) {
    }
    raw_ = false;
  }
}

bool get_winsize(int fd, winsize& ws) {
  return ioctl(fd, TIOCGWINSZ, &ws) == 0 && (ws.ws_row > 0 || ws.ws_col > 0);
}

namespace {
TerminalModes* g_crash_modes = nullptr;
int g_crash_reset_fd = -1;
constexpr int kFatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

void crash_handler(int sig) {
  if (g_crash_reset_fd >= 0) {
    // One try, no waiting: a crashing process must not hang on a stalled terminal.
    ssize_t n = write(g_crash_reset_fd, term::kSafeReset.data(), term::kSafeReset.size());
    (void)n;
  }
  if (g_crash_modes) g_crash_modes->restore();
  signal(sig, SIG_DFL);
  raise(sig);
}
}  // namespace

void install_crash_restore(TerminalModes* modes, int reset_fd) {
  g_crash_modes = modes;
  g_crash_reset_fd = modes ? reset_fd : -1;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = modes ? crash_handler : SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int s : kFatal) sigaction(s, &sa, nullptr);
}

}  // namespace blaude::pty
