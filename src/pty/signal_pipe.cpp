#include "pty/signal_pipe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/pipe.hpp"

namespace blaude::pty {

namespace {
int g_write_fd = -1;
volatile sig_atomic_t g_conts = 0;  // SIGCONTs seen: whether stop_self stopped

void on_signal(int signo, siginfo_t* info, void*) {
  int saved = errno;
  if (signo == SIGCONT) g_conts = g_conts + 1;
  SignalEvent ev{signo, info ? info->si_code : 0, info ? info->si_pid : 0};
  if (g_write_fd >= 0) {
    ssize_t n = write(g_write_fd, &ev, sizeof ev);  // a full pipe drops the event: fine
    (void)n;
  }
  errno = saved;
}
}  // namespace

SignalPipe::SignalPipe(std::initializer_list<int> signals) {
  make_pipe(read_, write_, true);  // on failure both stay invalid: no events, as before
  g_write_fd = write_.get();
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int s : signals) {
    struct sigaction old;
    if (sigaction(s, &sa, &old) == 0) old_.emplace_back(s, old);
  }
}

SignalPipe::~SignalPipe() {
  for (auto& [s, old] : old_) sigaction(s, &old, nullptr);
  g_write_fd = -1;
}

std::vector<SignalEvent> SignalPipe::drain() {
  std::vector<SignalEvent> out;
  SignalEvent ev;
  while (read(read_.get(), &ev, sizeof ev) == static_cast<ssize_t>(sizeof ev)) out.push_back(ev);
  return out;
}

bool SignalPipe::stop_self(int signo, bool or_sigstop) {
  sig_atomic_t conts = g_conts;
  struct sigaction dfl, old;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  bool swap = signo != SIGSTOP && sigaction(signo, &dfl, &old) == 0;
  sigset_t one, mask;
  sigemptyset(&one);
  sigaddset(&one, signo);
  sigprocmask(SIG_UNBLOCK, &one, &mask);
  kill(getpid(), signo);  // delivered before kill returns: the stop happens here
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  if (swap) sigaction(signo, &old, nullptr);
  // Continued, the handler has counted the SIGCONT by now; or discarded (orphaned group).
  if (g_conts != conts) return true;
  if (!or_sigstop || signo == SIGSTOP) return false;
  kill(getpid(), SIGSTOP);
  return true;
}

void SignalPipe::wait() const {
  pollfd p{read_.get(), POLLIN, 0};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
}

}  // namespace blaude::pty
