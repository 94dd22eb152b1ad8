// How blaude starts a child process, whether it execs a program (pty/spawn.cpp) or runs blaude's
// own code and exits (the protect helper, the own-overlay probe, the terminal watchdog). blaude
// may have other threads and has signal handlers that write into the supervisor's signal pipe, so
// every start is the same:
//   - every signal is blocked across the fork, so no handler of blaude's runs in the child;
//   - the child sets its handlers back to the default (and ignores what it was asked to) before it
//     unblocks anything;
//   - the child keeps only the descriptors it was given (and 0-2): nothing of blaude's (a pty
//     master, the write end of a pipe another process waits on, the log) stays open in it;
//   - a step that fails is reported to the parent as {errno, step}.
// The child side is allocation-free and async-signal-safe: the child of a multi-threaded process
// may not take a lock, and a vfork-style child shares blaude's memory.
#pragma once
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstddef>

namespace blaude {

// What the child reports when a step of its own failed: the errno and which step (the caller's
// numbering). err 0: it got through.
struct ChildFailure {
  int err = 0;
  int step = 0;
};

// In the child: one write of the record (a few bytes to a pipe: whole or not at all).
void report_to_parent(int fd, ChildFailure f);
// In the parent: the record the child wrote, or false when it wrote none (EOF: it exec'd or
// exited without a word).
bool read_child_report(int fd, ChildFailure& out);

struct ChildSetup {
  // Descriptors the child keeps at their numbers besides 0-2 (close-on-exec cleared, for an
  // exec); every other one is closed.
  const int* keep = nullptr;
  size_t n_keep = 0;
  // Kept too, but left close-on-exec: the report pipe whose EOF says the exec happened.
  int report_fd = -1;
  // Signals ignored in blaude stay ignored (a helper that must not die of SIGPIPE), or go back to
  // their default action too (a program blaude execs starts as from a shell).
  bool keep_ignored = false;
  // Set to SIG_IGN before the mask is cleared, so that none can arrive in between.
  const int* ignore = nullptr;
  size_t n_ignore = 0;
};

// Blocks every signal in the calling thread until the object goes; errno is preserved, so that
// the caller still reads a failed fork's.
class SignalsBlocked {
public:
  SignalsBlocked();
  ~SignalsBlocked();
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

private:
  sigset_t old_;
};

// The child's first step, with every signal still blocked (inherited from SignalsBlocked):
// handlers, mask and descriptors as `s` says. Async-signal-safe, allocates nothing.
void child_prologue(const ChildSetup& s);

// Forks a child that runs child_prologue(s), then `body()`, which should end with _exit or exec
// (if it returns, the child exits 127). The parent gets the pid, or -1 with errno from fork.
// pty/spawn.cpp starts its vfork-style clone the same way, with the same two calls.
template <class Body>
pid_t fork_child(const ChildSetup& s, Body&& body) {
  SignalsBlocked blocked;
  pid_t pid = ::fork();
  if (pid == 0) {
    child_prologue(s);
    body();
    ::_exit(127);
  }
  return pid;
}

}  // namespace blaude
