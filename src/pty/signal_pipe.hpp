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

private:
  UniqueFd read_, write_;
  std::vector<std::pair<int, struct sigaction>> old_;
};

}  // namespace blaude::pty
