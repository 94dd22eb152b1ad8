#include "pty/supervisor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pty/fence.hpp"
#include "pty/signal_pipe.hpp"
#include "pty/sweep.hpp"
#include "pty/watchdog.hpp"
#include "term/emit.hpp"
#include "term/tracker.hpp"

namespace blaude::pty {

namespace {

std::string path_of(const Command& cmd) {
  if (cmd.env) {
    for (const auto& kv : *cmd.env)
      if (kv.rfind("PATH=", 0) == 0) return kv.substr(5);
    return "/usr/local/bin:/usr/bin:/bin";
  }
  const char* p = std::getenv("PATH");
  return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

int report_exec_error(const std::string& name, int err, const Command& cmd, int step) {
  if (step) {
    const char* what = cmd.pre_exec.describe ? cmd.pre_exec.describe(step) : "the sandbox";
    std::fprintf(stderr, "blaude: could not set up %s before starting %s: %s\n", what, name.c_str(),
                 std::strerror(err));
    std::fprintf(stderr, "  nothing ran; `blaude doctor` checks what this machine supports\n");
    return 1;
  }
  if (err == ENOENT) {
    std::fprintf(stderr, "blaude: %s: command not found\n", name.c_str());
    return 127;
  }
  std::fprintf(stderr, "blaude: %s: %s\n", name.c_str(), std::strerror(err));
  return 126;
}

// Whether blaude has a controlling terminal (its stdio need not be it: `blaude -p x | less`).
// Only ENXIO says "none"; any other failure counts as one, so the child keeps it.
bool has_controlling_terminal() {
  int fd = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno != ENXIO;
  ::close(fd);
  return true;
}

// What the child's session left behind, ended (no pid namespace does it: pty/sweep.hpp).
void sweep_after(pid_t leader) {
  int n = sweep_session(leader);
  if (n > 0) spdlog::info("session end: killed {} process(es) left in the session", n);
}

// Pipes mode and the session sweep (no pid namespace): the sweep finds what is left by session
// id, so the child must lead a session of its own. That costs it blaude's controlling terminal
// (/dev/tty, the keyboard's signals), so it is done only when blaude has none (scripts, CI, an
// IDE's pipes); on a controlling terminal the child stays in blaude's session (the user's shell's)
// and nothing is swept: that session holds the user's other jobs. Stated in the README (macOS).
bool plain_own_session(const SuperviseOptions& opts) {
  if (!opts.sweep_session) return false;
  if (has_controlling_terminal()) {
    spdlog::info("pipes mode on a controlling terminal: the child stays in blaude's session, "
                 "which is not swept at the end");
    return false;
  }
  return true;
}

// Pipes mode: the child shares blaude's stdio and process group, so the terminal's own
// keyboard signals already reach it; only signals sent to blaude with kill(2) are forwarded.
int run_plain(const std::string& path, const Command& cmd, const SuperviseOptions& opts) {
  SignalPipe sigs({SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2});
  const bool own_session = plain_own_session(opts);
  Child c = spawn_plain(path, cmd, own_session);
  if (c.pid < 0) return report_exec_error(cmd.argv[0], c.exec_errno, cmd, 0);
  if (c.exec_errno) {
    waitpid(c.pid, nullptr, 0);
    return report_exec_error(cmd.argv[0], c.exec_errno, cmd, c.pre_exec_step);
  }
  if (opts.after_spawn) opts.after_spawn(c.pid);
  for (;;) {
    int st;
    pid_t r = waitpid(c.pid, &st, WNOHANG);
    if (r == c.pid) {
      if (own_session) sweep_after(c.pid);
      return exit_code_from_status(st);
    }
    if (r < 0 && errno != EINTR) return 1;
    sigs.wait();
    for (const SignalEvent& ev : sigs.drain()) {
      if (ev.signo == SIGCHLD) continue;
      bool from_keyboard = ev.code == SI_KERNEL;
      if (from_keyboard && (ev.signo == SIGINT || ev.signo == SIGQUIT)) continue;
      spdlog::debug("forwarding signal {} to {}", ev.signo, c.pid);
      kill(c.pid, ev.signo);
    }
  }
}

// What the watchdog puts back if blaude is SIGKILLed: the safe reset on the terminal the child
// draws on, O_NONBLOCK as it was on descriptors shared with the shell, the saved modes.
WatchdogPlan watchdog_plan(const Endpoint& ep, const TerminalModes& modes, bool reset) {
  WatchdogPlan p;
  p.modes_fd = ep.size_fd;
  p.modes = modes.original();
  if (reset) {
    p.reset_fd = ep.out_fd;
    p.reset = term::kSafeReset;
  }
  std::array<int, 2> shared = shared_fds(ep);
  for (size_t k = 0; k < 2; ++k) {
    int fl = shared[k] >= 0 ? fcntl(shared[k], F_GETFL) : -1;
    if (fl >= 0) p.shared[k] = {shared[k], fl};
  }
  return p;
}

// Whatever the child left switched on and the session could not undo itself (it does at the
// end of its output): written on every way out of run_pty, before the modes go back.
class UndoOnExit {
public:
  UndoOnExit(term::Tracker* t, int fd) : t_(t), fd_(fd) {}
  ~UndoOnExit() { run(); }
  void run() {
    if (!t_) return;
    std::string u = term::undo(*t_);
    t_ = nullptr;
    if (u.empty()) return;
    spdlog::debug("terminal: undoing the child's modes on the way out ({} bytes)", u.size());
    write_bounded(fd_, u, 1000);
  }
  UndoOnExit(const UndoOnExit&) = delete;
  UndoOnExit& operator=(const UndoOnExit&) = delete;

private:
  term::Tracker* t_;
  int fd_;
};

int run_pty(const std::string& path, const Command& cmd, const SuperviseOptions& opts) {
  std::optional<Endpoint> ep = opts.endpoint ? opts.endpoint() : open_endpoint(0, 1);
  if (!ep) return run_plain(path, cmd, opts);

  TerminalModes modes;
  if (!modes.save(ep->size_fd)) {
    spdlog::warn("cannot read the terminal's modes ({}); running without a pty",
                 std::strerror(errno));
    return run_plain(path, cmd, opts);
  }
  winsize ws{};
  bool have_ws = get_winsize(ep->size_fd, ws);

  // Handlers first: a signal that arrives while the child starts is queued, not fatal.
  SignalPipe sigs({SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT});
  termios child_modes = modes.original();
  if (ep->modes_fd >= 0 && tcgetattr(ep->modes_fd, &child_modes) != 0)
    child_modes = modes.original();
  Command on_pty = cmd;
  if (cmd.pty_argv) on_pty.argv = *cmd.pty_argv;
  Child c = spawn_on_pty(path, on_pty, &child_modes, have_ws ? &ws : nullptr);
  if (c.pid < 0) return report_exec_error(cmd.argv[0], c.exec_errno ? c.exec_errno : EIO, cmd, 0);
  if (opts.after_spawn) opts.after_spawn(c.pid);

  // While the child execs (the other core), set up our side; check its exec afterwards.
  // SIGKILL of blaude cannot be caught: a watchdog puts the modes back if it never hears from us.
  Watchdog watchdog;
  watchdog.start(watchdog_plan(*ep, modes, opts.guard_terminal && !ep->owner_resets));
  modes.make_raw();
  install_crash_restore(&modes, opts.guard_terminal ? ep->out_fd : -1);
  if (int err = await_exec(c)) {
    modes.restore();
    watchdog.disarm();
    install_crash_restore(nullptr);
    waitpid(c.pid, nullptr, 0);
    return report_exec_error(cmd.argv[0], err, cmd, c.pre_exec_step);
  }
  term::Tracker tracker;
  UndoOnExit undo(opts.guard_terminal ? &tracker : nullptr, ep->out_fd);
  // blaude's own bracket around the session (pty/fence.hpp) where the user's terminal is a
  // terminal: part of the guard, which BLAUDE_TERM_GUARD=off turns off with the rest of what
  // blaude writes to the terminal on its own.
  const bool fence = opts.guard_terminal && fenceable(*ep);
  if (fence) write_bounded(ep->out_fd, term::kTitleSave, 1000);
  spdlog::info("started {} (pid {}) on a pty", cmd.argv[0], c.pid);
  SessionConfig sc;
  sc.term = &*ep;
  sc.modes = &modes;
  sc.child = c.pid;
  sc.master = c.master.get();
  sc.make_filter = opts.make_filter;
  sc.on_input = opts.on_input;
  sc.limits = opts.limits;
  sc.signals = &sigs;
  sc.tracker = opts.guard_terminal ? &tracker : nullptr;
  sc.fence = fence;
  int status = run_session(std::move(sc));
  if (opts.sweep_session) sweep_after(c.pid);
  undo.run();
  // After the child's last byte and the undo: the user's title, then the fence, then the modes
  // with TCSAFLUSH. Only then may the shell read the terminal.
  if (fence) fence_terminal(*ep, term::kTitleRestore);
  modes.restore(fence);
  watchdog.disarm();
  install_crash_restore(nullptr);
  return exit_code_from_status(status);
}

}  // namespace

int supervise(const Command& cmd, const SuperviseOptions& opts) {
  if (cmd.argv.empty()) {
    std::fprintf(stderr, "blaude: no command to run\n");
    return 2;
  }
  Resolved r = resolve_command(cmd.argv[0], path_of(cmd));
  if (r.exit_code) {
    std::fprintf(stderr, "blaude: %s\n", r.message.c_str());
    return r.exit_code;
  }
  if (opts.terminal) return run_pty(r.path, cmd, opts);
  return run_plain(r.path, cmd, opts);
}

}  // namespace blaude::pty
