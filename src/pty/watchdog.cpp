#include "pty/watchdog.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace blaude::pty {

namespace {

constexpr char kDisarm = 'd';

// Runs in the forked child: async-signal-safe calls only (blaude may have other threads).
[[noreturn]] void watchdog_main(int rd, int tty, pid_t recorder, const termios& modes) {
  setsid();  // out of blaude's process group and session: no SIGHUP/SIGINT aimed at them
  struct sigaction sa {};
  sa.sa_handler = SIG_IGN;
  for (int s : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE, SIGUSR1,
                SIGUSR2, SIGWINCH})
    sigaction(s, &sa, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  // Keep exactly the pipe (as 3) and the real terminal (as 4); everything else goes, above all
  // blaude's stdio, which is the recorder's pty slave.
  int r = fcntl(rd, F_DUPFD, 100);
  int t = fcntl(tty, F_DUPFD, 100);
  if (r < 0 || t < 0 || dup2(r, 3) < 0 || dup2(t, 4) < 0) _exit(1);
  if (syscall(SYS_close_range, 5U, ~0U, 0U) != 0) {
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 5; fd < (max > 0 && max < 65536 ? max : 65536); ++fd) close(static_cast<int>(fd));
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
  // blaude is gone: give the recorder its terminal back the way it left it, then wake it up.
  while (tcsetattr(4, TCSANOW, &modes) != 0 && errno == EINTR) {
  }
  if (recorder > 0) {
    kill(recorder, SIGCONT);
    kill(recorder, SIGWINCH);  // the window may have changed while it was stopped
  }
  _exit(0);
}

}  // namespace

bool Watchdog::start(pid_t recorder, int tty, const termios& modes) {
  if (pid_ > 0) return true;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return false;
  UniqueFd rd(p[0]), wr(p[1]);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) watchdog_main(rd.get(), tty, recorder, modes);
  pid_ = pid;
  write_end_ = std::move(wr);
  return true;
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
