#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "helpers.hpp"

namespace ptybench {


// Deliberately nothing more than a pty relay needs: no queues, no backpressure, blocking writes.
int run_relay(char** argv) {
  termios orig{}, raw{};
  winsize ws{};
  bool tty = tcgetattr(0, &orig) == 0;
  ioctl(0, TIOCGWINSZ, &ws);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGWINCH);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, tty ? &orig : nullptr, &ws);
  if (pid < 0) return 1;
  if (pid == 0) {
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    execvp(argv[0], argv);
    std::fprintf(stderr, "relay: %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  sigdelset(&set, SIGCHLD);  // the master's EIO says when the child is gone
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  if (tty) {
    raw = orig;
    cfmakeraw(&raw);
    tcsetattr(0, TCSANOW, &raw);
  }
  static char buf[65536];
  pollfd fds[3] = {{master, POLLIN, 0}, {0, POLLIN, 0}, {sfd, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) {
      ssize_t n = read(master, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EIO: the child side is closed
      if (!write_all(1, buf, static_cast<size_t>(n))) break;
    }
    if (fds[1].revents) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n <= 0)
        fds[1].fd = -1;
      else
        write_all(master, buf, static_cast<size_t>(n));
    }
    if (fds[2].revents) {
      signalfd_siginfo si;
      if (read(sfd, &si, sizeof si) == sizeof si && ioctl(0, TIOCGWINSZ, &ws) == 0)
        ioctl(master, TIOCSWINSZ, &ws);
    }
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (tty) tcsetattr(0, TCSANOW, &orig);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace ptybench
