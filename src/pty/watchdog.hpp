// A tiny process that puts a terminal back if blaude dies without doing it (SIGKILL): it waits
// on a pipe whose write end only blaude holds; EOF without a "disarm" byte means blaude is gone,
// so it writes the terminal's safe reset (the child's modes off: the watchdog does not know which
// were on), puts back O_NONBLOCK on descriptors blaude shares with the parent shell, restores the
// terminal's saved modes and, when blaude had paused a recorder, SIGCONTs it.
#pragma once
#include <sys/types.h>
#include <termios.h>

#include <array>
#include <string_view>

#include "common/unique_fd.hpp"

namespace blaude::pty {

struct WatchdogPlan {
  pid_t recorder = -1;  // > 0: SIGCONT and SIGWINCH it (a paused asciinema)
  int modes_fd = -1;    // >= 0: tcsetattr(modes) here
  termios modes{};
  int reset_fd = -1;        // >= 0: write `reset` here first (the terminal the child drew on)
  std::string_view reset;   // static storage (term::kSafeReset)
  // Descriptors shared with the parent shell that blaude makes non-blocking: their flags before.
  struct Flags {
    int fd = -1;
    int flags = 0;
  };
  std::array<Flags, 2> shared{};
};

class Watchdog {
public:
  // Forks the watchdog. It keeps only the pipe's read end and the plan's descriptors (dup'ed),
  // in its own session, with stdio on /dev/null and the job-control and termination signals
  // ignored.
  bool start(const WatchdogPlan& plan);
  // Only the modes (and the recorder, when `recorder` > 0).
  bool start(pid_t recorder, int tty, const termios& modes);
  // Blaude put everything back itself: tell the watchdog to exit, and reap it.
  void disarm();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  Watchdog() = default;
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() { disarm(); }

private:
  pid_t pid_ = -1;
  UniqueFd write_end_;
};

}  // namespace blaude::pty
