// Signals as data: an SA_SIGINFO handler writes {signo, si_code, si_pid} into a non-blocking
// pipe that the loop reads. si_code tells a keyboard signal (SI_KERNEL) from kill(2), which
// pipes mode needs to avoid delivering Ctrl-C twice.
#pragma once
#include <signal.h>

#include <initializer_list>
#include <vector>

#include "common/unique_fd.hpp"

namespace blaude::pty {

struct SignalEvent {
  int signo = 0;
  int code = 0;
  pid_t sender = 0;
};

class SignalPipe {
public:
  // Only one SignalPipe may exist at a time (the handler writes to a global fd).
  explicit SignalPipe(std::initializer_list<int> signals);
  ~SignalPipe();
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  int fd() const { return read_.get(); }
  // Reads every pending event (non-blocking).
  std::vector<SignalEvent> drain();
  // Blocks until at least one event is pending.
  void wait() const;
  // Stops this process with `signo` as a job does (SIGTSTP, SIGTTIN, SIGTTOU with their default
  // action for the moment, as sudo's pty mode and script(1) do; SIGSTOP as it is) and returns once
  // it is continued (SIGCONT must be one of the pipe's signals), the pipe's handler back in place.
  // The kernel discards the first three when blaude's process group is orphaned (no job-control
  // shell above it, as under asciinema's non-interactive shell): then, with `or_sigstop`, SIGSTOP
  // stops it anyway; without, it returns at once. Returns whether it stopped.
  bool stop_self(int signo, bool or_sigstop);

private:
  UniqueFd read_, write_;
  std::vector<std::pair<int, struct sigaction>> old_;
};

}  // namespace blaude::pty
