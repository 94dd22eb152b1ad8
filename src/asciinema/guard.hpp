// The asciinema guard: keeps a Claude session out of an `asciinema rec` recording without
// freezing the user's terminal, and resumes the recorder on every exit path.
//
// Wiring (the app layer), around pty::supervise:
//   asciinema::Guard rec(options.no_asciinema, recorder_env);
//   so.endpoint = [&rec] { return rec.endpoint(); };
//   int rc = pty::supervise(cmd, so);
//   // rec's destructor resumes the recorder (a watchdog does it if blaude is SIGKILLed)
#pragma once
#include <sys/types.h>
#include <termios.h>

#include <optional>
#include <utility>

#include "asciinema/decide.hpp"
#include "asciinema/detect.hpp"
#include "pty/watchdog.hpp"
#include "common/unique_fd.hpp"
#include "pty/terminal.hpp"

namespace blaude::asciinema {

class Guard {
public:
  // env: ASCIINEMA_REC / ASCIINEMA_SESSION as blaude got them (from the host, read once).
  Guard(bool disabled, RecorderEnv env) : disabled_(disabled), env_(std::move(env)) {}
  ~Guard();
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

  // For SuperviseOptions::endpoint (called once, only when a pty session starts). Detects the
  // recorder, logs the mode and why, pauses or mutes it, and returns the terminal the session
  // uses: the recorder's real terminal when paused (input, output, size polled every 250 ms),
  // blaude's terminal for input and size with output to the real terminal when muted, and
  // blaude's own terminal otherwise.
  std::optional<pty::Endpoint> endpoint();

  Mode mode() const { return mode_; }
  // Puts the real terminal back to the recorder's modes and continues it (idempotent).
  void resume();

private:
  bool stop();
  pty::WatchdogPlan pause_plan() const;
  void on_suspend(bool suspended);
  Mode examine();

  bool disabled_;
  RecorderEnv env_;
  Mode mode_ = Mode::None;
  pid_t recorder_ = -1;
  UniqueFd tty_;           // the recorder's real terminal, private open file description
  termios rec_modes_{};    // its modes as the recorder set them, restored before resuming
  bool stopped_ = false;
  pty::Watchdog watchdog_;
};

}  // namespace blaude::asciinema
