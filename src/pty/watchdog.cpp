#include "pty/watchdog.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "common/child.hpp"
#include "common/pipe.hpp"
#include "common/platform.hpp"
#if BLAUDE_LINUX_CALLS
#include <sys/syscall.h>
#endif

namespace blaude::pty {

namespace {

constexpr char kDisarm = 'd';
// Where the plan's descriptors sit in the watchdog: 3 the pipe, then these.
constexpr int kModesFd = 4, kResetFd = 5, kSharedFd = 6;  // 6 and 7
constexpr int kFirstFree = 8;

long watchdog_now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

// Writes all of `s`, waiting at most about a second in total for a terminal that is slow to
// take it (a stopped terminal must not keep the watchdog, and the modes behind it, waiting).
void write_bounded(int fd, std::string_view s) {
  long deadline = watchdog_now_ms() + 1000;
  while (!s.empty()) {
    ssize_t n = write(fd, s.data(), s.size());
    if (n > 0) {
      s.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EINTR && errno != EAGAIN) return;
    long left = deadline - watchdog_now_ms();
    if (left <= 0) return;
    pollfd p{fd, POLLOUT, 0};
    poll(&p, 1, static_cast<int>(left));
  }
}

// A copy of `fd` above 100 (or -1 when there is none); -2 on failure.
int lift(int fd) {
  if (fd < 0) return -1;
  int tmp = fcntl(fd, F_DUPFD, 100);
  return tmp >= 0 ? tmp : -2;
}

// Runs in the forked child, after child_prologue: async-signal-safe calls only (blaude may have
// other threads).
[[noreturn]] void watchdog_main(int rd, const WatchdogPlan& plan) {
  setsid();  // out of blaude's process group and session: no SIGHUP/SIGINT aimed at them

  // The prologue kept only the pipe and the plan's descriptors (and 0-2); they go to fixed
  // numbers now and blaude's stdio goes too, for it may be a recorder's pty slave. Every
  // descriptor is first copied above 100, so that placing one cannot overwrite another.
  // The reset usually goes to the descriptor whose modes are restored: one copy serves both.
  const bool reset_is_modes = plan.reset_fd >= 0 && plan.reset_fd == plan.modes_fd;
  const int from[5] = {lift(rd), lift(plan.modes_fd), reset_is_modes ? -1 : lift(plan.reset_fd),
                       lift(plan.shared[0].fd), lift(plan.shared[1].fd)};
  const int slot[5] = {3, kModesFd, kResetFd, kSharedFd, kSharedFd + 1};
  for (int k = 0; k < 5; ++k) {
    if (from[k] == -2 || (k == 0 && from[k] < 0)) _exit(1);
    if (from[k] < 0) close(slot[k]);  // unused: whatever blaude had there must not stay open
    else if (dup2(from[k], slot[k]) != slot[k]) _exit(1);
  }
#if BLAUDE_LINUX_CALLS
  if (syscall(SYS_close_range, static_cast<unsigned>(kFirstFree), ~0U, 0U) != 0)
#endif
  {
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = kFirstFree; fd < (max > 0 && max < 65536 ? max : 65536); ++fd)
      close(static_cast<int>(fd));
  }
  int nul = open("/dev/null", O_RDWR);
  if (nul >= 0) {
    dup2(nul, 0);
    dup2(nul, 1);
    dup2(nul, 2);
    if (nul > 2) close(nul);
  }
  char c;
  ssize_t n;
  do {
    n = read(3, &c, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && c == kDisarm) _exit(0);
  // blaude is gone. First the child's modes off (before the termios, as blaude itself does),
  // then the shell's descriptors as they were, then the terminal's own modes.
  if (plan.reset_fd >= 0 && !plan.reset.empty())
    write_bounded(reset_is_modes ? kModesFd : kResetFd, plan.reset);
  for (int k = 0; k < 2; ++k)
    if (plan.shared[k].fd >= 0) fcntl(kSharedFd + k, F_SETFL, plan.shared[k].flags);
  if (plan.modes_fd >= 0) {
    while (tcsetattr(kModesFd, TCSANOW, &plan.modes) != 0 && errno == EINTR) {
    }
  }
  if (plan.recorder > 0) {
    kill(plan.recorder, SIGCONT);
    kill(plan.recorder, SIGWINCH);  // the window may have changed while it was stopped
  }
  _exit(0);
}

}  // namespace

bool Watchdog::start(const WatchdogPlan& plan) {
  if (pid_ > 0) return true;
  UniqueFd rd, wr;
  if (!make_pipe(rd, wr)) return false;
  // Everything that would stop it is ignored before a signal can arrive: it must outlive blaude
  // (a SIGKILL included) to restore the terminal. The write end is not kept, so blaude's end,
  // however it comes, is EOF here.
  static const int kIgnored[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGTTIN,
                                 SIGTTOU, SIGPIPE, SIGUSR1, SIGUSR2, SIGWINCH};
  const int keep[5] = {rd.get(), plan.modes_fd, plan.reset_fd, plan.shared[0].fd, plan.shared[1].fd};
  ChildSetup setup;
  setup.keep = keep;
  setup.n_keep = 5;
  setup.ignore = kIgnored;
  setup.n_ignore = sizeof kIgnored / sizeof kIgnored[0];
  const int rd_fd = rd.get();
  pid_t pid = fork_child(setup, [rd_fd, &plan] { watchdog_main(rd_fd, plan); });
  if (pid < 0) return false;
  pid_ = pid;
  write_end_ = std::move(wr);
  return true;
}

bool Watchdog::start(pid_t recorder, int tty, const termios& modes) {
  WatchdogPlan plan;
  plan.recorder = recorder;
  plan.modes_fd = tty;
  plan.modes = modes;
  return start(plan);
}

void Watchdog::disarm() {
  if (pid_ <= 0) return;
  char c = kDisarm;
  while (write(write_end_.get(), &c, 1) < 0 && errno == EINTR) {
  }
  write_end_.reset();
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace blaude::pty
