#include "asciinema/guard.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "asciinema/detect.hpp"
#include "asciinema/snapshot.hpp"
#include "term/emit.hpp"

namespace blaude::asciinema {

namespace {

constexpr int kPollSizeMs = 250;

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace

Mode Guard::examine() {
  Facts f;
  f.disabled = disabled_;
  f.uid = getuid();
  if (!disabled_) {
    const RecorderEnv& env = env_;
    // Walking /proc costs a few hundred syscalls: only when the environment says we are recorded.
    bool maybe = env.rec || env.session;
    Detection d = find_recorder(maybe ? take_snapshot() : Snapshot{}, env);
    f.detect_reason = d.reason;
    f.recorder = d.recorder;
    f.parent = d.parent;
    if (d.recorder) {
      spdlog::debug("asciinema: {}", d.reason);
      tty_ = open_process_terminal(d.recorder->stat.pid, f.terminal_problem);
      f.terminal_ok = static_cast<bool>(tty_);
    }
  }
  Decision dec = decide(f);
  spdlog::info("asciinema: mode {}: {}", mode_name(dec.mode), dec.reason);
  if (dec.mode == Mode::None) tty_.reset();
  else recorder_ = f.recorder->stat.pid;
  return dec.mode;
}

// SIGSTOP, then make sure it took and that nobody (a tmux-like parent) continued it again.
bool Guard::stop() {
  if (kill(recorder_, SIGSTOP) != 0) {
    spdlog::warn("asciinema: cannot stop pid {}: {}", recorder_, std::strerror(errno));
    return false;
  }
  stopped_ = true;
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {  // up to 2 s on a loaded machine
    seen = proc_state(recorder_) == 'T';
    if (!seen) sleep_ms(10);
  }
  for (int i = 0; seen && i < 5; ++i) {
    sleep_ms(20);
    seen = proc_state(recorder_) == 'T';
  }
  if (!seen) spdlog::warn("asciinema: pid {} did not stay stopped", recorder_);
  return seen;
}

void Guard::resume() {
  if (!stopped_) return;
  while (tcsetattr(tty_.get(), TCSADRAIN, &rec_modes_) != 0 && errno == EINTR) {
  }
  kill(recorder_, SIGCONT);
  kill(recorder_, SIGWINCH);  // its pty should follow a resize that happened while it slept
  stopped_ = false;
  spdlog::info("asciinema: resumed pid {}", recorder_);
}

void Guard::on_suspend(bool suspended) {
  if (suspended) {
    resume();
  } else if (!stop()) {
    spdlog::warn("asciinema: could not pause pid {} again after blaude was continued",
                 recorder_);
  }
}

// If blaude is SIGKILLed while the recorder is paused: the child's modes off on the real
// terminal (the watchdog does not know which were on), the recorder's modes back, the recorder
// continued: in that order, so that nothing it draws lands on a screen the reset then leaves.
pty::WatchdogPlan Guard::pause_plan() const {
  pty::WatchdogPlan p;
  p.recorder = recorder_;
  p.modes_fd = tty_.get();
  p.modes = rec_modes_;
  p.reset_fd = tty_.get();
  p.reset = term::kSafeReset;
  return p;
}

std::optional<pty::Endpoint> Guard::endpoint() {
  mode_ = examine();
  if (mode_ == Mode::Pause) {
    // The watchdog exists before anything changes, so there is no moment at which a SIGKILL of
    // blaude could leave the recorder stopped.
    if (tcgetattr(tty_.get(), &rec_modes_) != 0 ||
        !watchdog_.start(pause_plan())) {
      spdlog::warn("asciinema: cannot set up the watchdog ({}); muting instead",
                   std::strerror(errno));
      mode_ = Mode::Mute;
    } else if (!stop()) {
      resume();
      watchdog_.disarm();
      spdlog::info("asciinema: mode mute: the pause did not hold");
      mode_ = Mode::Mute;
    }
  }
  pty::Endpoint ep;
  if (mode_ == Mode::Pause) {
    ep.owned_in.reset(fcntl(tty_.get(), F_DUPFD_CLOEXEC, 3));
    ep.in_fd = ep.out_fd = ep.size_fd = ep.owned_in.get();
    ep.poll_size_ms = kPollSizeMs;  // SIGWINCH goes to the stopped recorder's group
    ep.modes_fd = 0;
    ep.on_suspend = [this](bool s) { on_suspend(s); };
    ep.owner_resets = true;
    if (ep.in_fd >= 0) return ep;
    resume();
    watchdog_.disarm();
    mode_ = Mode::Mute;
  }
  ep = pty::open_endpoint(0, 1);
  if (mode_ == Mode::Mute) {
    // Input and window size keep coming through the recorder's pty; only output bypasses it.
    ep.owned_out.reset(fcntl(tty_.get(), F_DUPFD_CLOEXEC, 3));
    if (ep.owned_out) ep.out_fd = ep.owned_out.get();
    else mode_ = Mode::None;
  }
  return ep;
}

Guard::~Guard() {
  resume();
  watchdog_.disarm();
}

}  // namespace blaude::asciinema
