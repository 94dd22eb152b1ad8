// A tiny process that puts a terminal back if blaude dies without doing it (SIGKILL): it waits
// on a pipe whose write end only blaude holds; EOF without a "disarm" byte means blaude is gone,
// so it restores the terminal's saved modes and, when blaude had paused a recorder, SIGCONTs it.
#pragma once
#include <sys/types.h>
#include <termios.h>

#include "common/unique_fd.hpp"

namespace blaude::pty {

class Watchdog {
public:
  // Forks the watchdog. It keeps only the pipe's read end and `tty` (dup'ed), in its own session,
  // with stdio on /dev/null and the job-control and termination signals ignored.
  // `recorder` <= 0: only the modes are restored.
  bool start(pid_t recorder, int tty, const termios& modes);
  // Blaude resumed the recorder itself: tell the watchdog to exit, and reap it.
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
