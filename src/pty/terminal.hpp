// The user's terminal as an endpoint: where input comes from, where output goes, where the
// window size is read, and the modes to put back when blaude is done with it.
#pragma once
#include <sys/ioctl.h>
#include <termios.h>

#include <array>
#include <functional>
#include <string_view>

#include "common/unique_fd.hpp"

namespace blaude::pty {

struct Endpoint {
  int in_fd = -1;    // read keystrokes here (non-blocking, private to blaude)
  int out_fd = -1;   // write the child's output here (may equal in_fd)
  int size_fd = -1;  // TIOCGWINSZ / tcgetattr / tcsetattr target
  // Poll the window size this often (ms); 0 = rely on SIGWINCH. Needed when the resize signal
  // goes to another process (a paused recorder).
  int poll_size_ms = 0;
  // The child's pty starts with this terminal's modes (default: size_fd's). A paused recorder's
  // real terminal is raw; the session should start like the terminal blaude was started on.
  int modes_fd = -1;
  // Called with true just before blaude stops itself (Ctrl-Z / SIGTSTP) and with false once it
  // is continued, so that a paused recorder can run while blaude is stopped.
  std::function<void(bool suspended)> on_suspend;
  // The endpoint's owner has a watchdog of its own that writes the safe reset to out_fd if
  // blaude is SIGKILLed, before it lets anything else draw there (a paused recorder): the
  // session's watchdog must not write it again after that.
  bool owner_resets = false;
  UniqueFd owned_in;   // descriptors opened for this endpoint, closed with it
  UniqueFd owned_out;
};

// Opens private descriptions of the terminals behind in/out (by their device path) so that
// O_NONBLOCK never touches the descriptions shared with the parent shell. Falls back to the
// given fds if reopening fails (a pts owned by another uid after su, sudo -u or setpriv): the
// session then makes them non-blocking while it runs, and the watchdog puts the flags back if
// blaude is SIGKILLed.
Endpoint open_endpoint(int in, int out);

// The endpoint's descriptors that are shared with the parent shell (not opened for it), at most
// two, -1 for none.
std::array<int, 2> shared_fds(const Endpoint& e);

// Saves a terminal's modes, switches it to raw and puts the saved modes back. restore() is
// idempotent and async-signal-safe, so the crash handler can call it too.
class TerminalModes {
public:
  bool save(int fd);
  bool make_raw();
  // `flush`: TCSAFLUSH, which also drops the input not yet read (after the reply fence: what
  // the terminal answered late, and typeahead with it); else TCSADRAIN.
  void restore(bool flush = false);
  bool saved() const { return fd_ >= 0; }
  const termios& original() const { return orig_; }

  TerminalModes() = default;
  TerminalModes(const TerminalModes&) = delete;
  TerminalModes& operator=(const TerminalModes&) = delete;
  ~TerminalModes() { restore(); }

private:
  int fd_ = -1;
  termios orig_{};
  bool raw_ = false;
};

bool get_winsize(int fd, winsize& ws);

// While installed, SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGABRT in blaude put the terminal back before
// the default action runs: the fixed safe reset (term::kSafeReset) to `reset_fd`, then the
// saved modes (write and tcsetattr are async-signal-safe).
void install_crash_restore(TerminalModes* modes, int reset_fd = -1);

// Writes all of `s` to a (non-blocking) descriptor, waiting for it to take the bytes at most
// `timeout_ms` in total. False when it did not take them all.
bool write_bounded(int fd, std::string_view s, int timeout_ms);

// Sets or clears O_NONBLOCK; returns the previous flags (or -1).
int set_nonblocking(int fd, bool on);

}  // namespace blaude::pty
