#include "pty/session.hpp"

#include "common/platform.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pty/byte_queue.hpp"
#include "pty/fence.hpp"
#include "pty/proc_state.hpp"
#include "pty/signal_pipe.hpp"
#include "term/emit.hpp"

namespace blaude::pty {

namespace {

constexpr uint64_t kTickMs = 20;
// Ctrl-Z of blaude: how long the child's queued output may take to reach the terminal before
// the undo goes out after what did.
constexpr int kSuspendFlushMs = 1000;
// After keys go to the child: when to look whether the command stopped (a cooked child's Ctrl-Z
// stops it at once; a raw one, Claude Code or vi, puts its modes back first). The delays between
// looks, in ms, restarted by every key: at most six wake-ups after the last key, none while idle
// (a command that stops with no key typed is found at the next key, by check_foreground).
constexpr uint64_t kStopLooksMs[] = {15, 50, 150, 400, 1000, 2500};

// The session's whole state. Handles live inside it, so it must not move once started.
class Session {
public:
  explicit Session(SessionConfig cfg)
      : cfg_(std::move(cfg)),
        lim_(cfg_.limits),
        out_q_(lim_.out_capacity),
        in_q_(lim_.in_capacity),
        read_buf_(lim_.read_chunk),
        sigs_(*cfg_.signals) {}

  int run();

private:
  // --- setup and teardown
  void start_handles();
  void close_handles();
  void share_flags(bool session_active);

  // --- byte paths
  void on_master(int events);
  void on_term(int events);
  void read_master();
  void take_output(char* p, size_t n, bool in_queue);
  void write_master();
  void read_term();
  void write_term();
  void enqueue_output(std::string_view s);
  void update_polls();

  // --- lifecycle
  void on_signals();
  void reap();
  void on_tick();
  void filter_tick();
  void schedule_filter();
  void stop_master();
  void maybe_finish();
  void sync_size(bool force);
  void suspend_self(int signo, pid_t cont);
  bool command_stopped(pid_t pg) const;
  bool check_foreground(bool typed);
  void look_for_stop();
  void flush_blocking(int timeout_ms);
  void observe(std::string_view s);
  void enqueue_undo();

  size_t out_load() const { return out_q_.size() + pending_.size(); }

  // The session's lifecycle, one phase at a time (as net/proxy.cpp's ProxyConn::State). The
  // child's end and the master's end come in either order; the terminal's two directions
  // (term_in_eof_, term_out_dead_) can end in any phase and are kept beside it.
  //
  //   Running ──child reaped──▶ ChildGone ──master EOF / idle / drain_max──▶ Flushing ──▶ Closed
  //      └─────master EOF───▶ MasterGone ──child reaped──────────────────────▲   (output written
  //                                                                              or given up)
  enum class Phase {
    Running,     // the child runs; both directions move
    ChildGone,   // the child was reaped; the master is drained until idle (on_tick)
    MasterGone,  // the master reached EOF (every slave holder gone); waiting for the child
    Flushing,    // both gone: the rest of the output goes to the terminal
    Closed,      // the handles are closed; the loop ends
  };
  static const char* phase_name(Phase p);
  void enter(Phase next);
  bool master_open() const { return phase_ == Phase::Running || phase_ == Phase::ChildGone; }
  bool child_alive() const { return phase_ == Phase::Running || phase_ == Phase::MasterGone; }

  SessionConfig cfg_;
  SessionLimits lim_;
  uv_loop_t loop_{};
  uv_poll_t master_poll_{}, in_poll_{}, out_poll_{}, sig_poll_{};
  uv_signal_t chld_{};
  uv_timer_t tick_{}, filter_timer_{}, size_timer_{}, stop_timer_{};
  size_t stop_look_ = 0;  // the next of kStopLooksMs
  bool split_term_ = false;  // terminal in and out are different fds

  ByteQueue out_q_, in_q_;
  std::string pending_;   // filter output that did not fit in out_q_
  std::string filtered_;  // scratch for filter output
  std::string scratch_;   // filter input copied out of the queue's free tail
  std::vector<char> read_buf_;
  std::unique_ptr<OutputFilter> filter_;
  bool filter_observes_ = false;  // the filter feeds the tracker itself
  bool shared_logged_ = false;
  SignalPipe& sigs_;

  Phase phase_ = Phase::Running;
  bool out_throttled_ = false;
  bool in_throttled_ = false;
  bool out_blocked_ = false;    // last terminal write hit EAGAIN
  bool master_blocked_ = false; // last master write hit EAGAIN
  bool term_in_eof_ = false;
  bool term_out_dead_ = false;
  int status_ = 0;
  uint64_t last_master_data_ = 0;
  uint64_t drain_active_ms_ = 0;
  uint64_t last_flush_progress_ = 0;
  winsize last_ws_{};
  int in_saved_flags_ = -1, out_saved_flags_ = -1;
  unsigned master_events_ = 0, in_events_ = 0, out_events_ = 0;
};

template <class H>
Session* self_of(H* h) {
  return static_cast<Session*>(h->data);
}

int Session::run() {
  uv_loop_init(&loop_);
  if (cfg_.make_filter) filter_ = cfg_.make_filter(&loop_);
  filter_observes_ = filter_ && cfg_.tracker && filter_->observe_with(cfg_.tracker);
  share_flags(true);
  start_handles();
  sync_size(true);
  reap();  // the child may be gone already
  update_polls();
  uv_run(&loop_, UV_RUN_DEFAULT);
  share_flags(false);
  uv_loop_close(&loop_);
  return status_;
}

// Descriptors that could not be reopened privately are shared with the parent shell: make them
// non-blocking only while the session runs (and not while blaude is stopped).
void Session::share_flags(bool active) {
  Endpoint& t = *cfg_.term;
  bool in_shared = !t.owned_in && t.in_fd >= 0;
  bool out_shared = !t.owned_out && !(t.owned_in && t.out_fd == t.in_fd) && t.out_fd >= 0;
  if (active) {
    if ((in_shared || out_shared) && !shared_logged_) {
      shared_logged_ = true;
      spdlog::warn("terminal: cannot reopen the terminal privately (it belongs to another user?); "
                   "O_NONBLOCK is set on the descriptors shared with the shell while the session "
                   "runs, and put back on every way out (by the watchdog after a SIGKILL)");
    }
    if (in_shared) in_saved_flags_ = set_nonblocking(t.in_fd, true);
    if (out_shared && t.out_fd != t.in_fd) out_saved_flags_ = set_nonblocking(t.out_fd, true);
  } else {
    if (in_saved_flags_ >= 0) fcntl(t.in_fd, F_SETFL, in_saved_flags_);
    if (out_saved_flags_ >= 0) fcntl(t.out_fd, F_SETFL, out_saved_flags_);
    in_saved_flags_ = out_saved_flags_ = -1;
  }
}

void Session::start_handles() {
  Endpoint& t = *cfg_.term;
  split_term_ = t.in_fd != t.out_fd;

  uv_poll_init(&loop_, &master_poll_, cfg_.master);
  master_poll_.data = this;
  uv_poll_init(&loop_, &in_poll_, t.in_fd);
  in_poll_.data = this;
  if (split_term_) {
    uv_poll_init(&loop_, &out_poll_, t.out_fd);
    out_poll_.data = this;
  }
  uv_poll_init(&loop_, &sig_poll_, sigs_.fd());
  sig_poll_.data = this;
  uv_poll_start(&sig_poll_, UV_READABLE, [](uv_poll_t* h, int, int) { self_of(h)->on_signals(); });

  uv_signal_init(&loop_, &chld_);
  chld_.data = this;
  uv_signal_start(&chld_, [](uv_signal_t* h, int) { self_of(h)->reap(); }, SIGCHLD);

  uv_timer_init(&loop_, &tick_);
  tick_.data = this;
  uv_timer_init(&loop_, &filter_timer_);
  filter_timer_.data = this;
  uv_timer_init(&loop_, &size_timer_);
  size_timer_.data = this;
  uv_timer_init(&loop_, &stop_timer_);
  stop_timer_.data = this;
  if (t.poll_size_ms > 0) {
    uv_timer_start(&size_timer_, [](uv_timer_t* h) { self_of(h)->sync_size(false); },
                   t.poll_size_ms, t.poll_size_ms);
  }
}

const char* Session::phase_name(Phase p) {
  switch (p) {
    case Phase::Running: return "running";
    case Phase::ChildGone: return "child gone";
    case Phase::MasterGone: return "master gone";
    case Phase::Flushing: return "flushing";
    case Phase::Closed: return "closed";
  }
  return "?";
}

// The only place phase_ changes. Entering Flushing starts the terminal's stall clock.
void Session::enter(Phase next) {
  spdlog::trace("session: {} -> {}", phase_name(phase_), phase_name(next));
  phase_ = next;
  if (next == Phase::Flushing) last_flush_progress_ = uv_now(&loop_);
}

void Session::close_handles() {
  auto close = [](auto* h) {
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(h)))
      uv_close(reinterpret_cast<uv_handle_t*>(h), nullptr);
  };
  close(&master_poll_);
  close(&in_poll_);
  if (split_term_) close(&out_poll_);
  close(&sig_poll_);
  close(&chld_);
  close(&tick_);
  close(&filter_timer_);
  close(&size_timer_);
  close(&stop_timer_);
  filter_.reset();  // lets the filter close what it opened on the loop
}

void Session::update_polls() {
  if (phase_ == Phase::Closed) return;
  // Backpressure with hysteresis on both directions.
  if (out_load() >= lim_.out_high) out_throttled_ = true;
  else if (out_load() <= lim_.out_low) out_throttled_ = false;
  if (in_q_.size() >= lim_.in_high) in_throttled_ = true;
  else if (in_q_.size() <= lim_.in_low) in_throttled_ = false;

  unsigned m = 0;
  if (master_open()) {
    // While the terminal is full and enough is queued for its next writes, the master is read
    // when the terminal has room again (on_term), not on its own wake-up: one wake-up per
    // chunk instead of two (an idle VM pays an IPI and a halt exit for each).
    bool term_paces = out_blocked_ && out_load() >= lim_.out_paced;
    if (!out_throttled_ && !term_paces) m |= UV_READABLE;
    if (!in_q_.empty() && master_blocked_) m |= UV_WRITABLE;
  }
  // Once the child is gone, keystrokes belong to whatever reads the terminal after blaude.
  bool want_input = !term_in_eof_ && !in_throttled_ && phase_ == Phase::Running;
  unsigned in = want_input ? UV_READABLE : 0;
  unsigned out = (!term_out_dead_ && out_blocked_ && out_load() > 0) ? UV_WRITABLE : 0;

  auto apply = [](uv_poll_t* h, unsigned& cur, unsigned want, uv_poll_cb cb) {
    if (cur == want) return;
    cur = want;
    if (want) uv_poll_start(h, static_cast<int>(want), cb);
    else uv_poll_stop(h);
  };
  apply(&master_poll_, master_events_, m,
        [](uv_poll_t* h, int st, int ev) { self_of(h)->on_master(st < 0 ? UV_READABLE : ev); });
  auto term_cb = [](uv_poll_t* h, int st, int ev) {
    self_of(h)->on_term(st < 0 ? (UV_READABLE | UV_WRITABLE) : ev);
  };
  if (split_term_) {
    apply(&in_poll_, in_events_, in, term_cb);
    apply(&out_poll_, out_events_, out, term_cb);
  } else {
    apply(&in_poll_, in_events_, in | out, term_cb);
  }
}

void Session::on_master(int events) {
  if (events & UV_WRITABLE) write_master();
  if (events & UV_READABLE) read_master();
  update_polls();
  maybe_finish();
}

void Session::on_term(int events) {
  if (events & UV_WRITABLE) {
    out_blocked_ = false;  // the terminal has room again
    write_term();
    // The master was not watched while the terminal paced it (update_polls): read it now.
    if (master_open() && !out_throttled_ && !(master_events_ & UV_READABLE)) read_master();
  }
  if (events & UV_READABLE) read_term();
  update_polls();
  maybe_finish();
}

// Reads the master until a read comes back short (the line discipline is empty), it would block
// or the output queue is full, writing to the terminal after each read so that a fast terminal
// sees bytes as soon as they exist.
void Session::read_master() {
  for (int rounds = 0; rounds < 16 && master_open(); ++rounds) {
    if (out_load() >= lim_.out_high) break;
    // Straight into the output queue, unless filter output that did not fit is waiting in
    // pending_: new bytes go behind it.
    bool in_queue = pending_.empty();
    size_t len = read_buf_.size();
    char* p = in_queue ? out_q_.tail_space(len) : read_buf_.data();
    if (len == 0) break;
    const size_t want = std::min(len, lim_.read_chunk);
    ssize_t n = read(cfg_.master, p, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n <= 0) {  // EIO: every slave holder is gone (Linux); 0: EOF elsewhere
      stop_master();
      break;
    }
    last_master_data_ = uv_now(&loop_);
    take_output(p, static_cast<size_t>(n), in_queue);
    // While the terminal is full this is a no-op and the loop goes on reading what is there
    // (up to out_high): the bytes could not go out any sooner, and the next write is bigger.
    write_term();
    // A short read emptied the line discipline: back to the loop, which calls again when the
    // master is readable. Reading on would make n_tty_read wait for the kworker still moving the
    // child's next write out of the flip buffer (__flush_work): a sleep and a wake-up per chunk,
    // 0.46 of blaude's 1.34 sleeps per 4 KiB chunk. With the break, 3 paired ptybench runs: ahead
    // of the read-on loop in 14 of 15 bulk shape-runs (docs/PERFORMANCE.md).
    if (static_cast<size_t>(n) < want) break;
  }
}

// The bytes just read, at p: in the queue's free tail (in_queue) or in read_buf_. What the
// filter passes unchanged stays where it is; only the rest (from the first sequence it drops or
// an OSC 52, or a read that begins inside a sequence held from the one before) is copied out
// and filtered. The tracker sees both, in order.
void Session::take_output(char* p, size_t n, bool in_queue) {
  size_t k = filter_ ? filter_->pass(std::string_view(p, n), uv_now(&loop_)) : n;
  observe(std::string_view(p, k));
  if (in_queue) out_q_.commit(k);
  else enqueue_output(std::string_view(p, k));
  if (!filter_) return;
  if (k < n) {
    std::string_view rest(p + k, n - k);
    if (in_queue) {  // the filter's output is appended exactly there
      scratch_.assign(rest);
      rest = scratch_;
    }
    filtered_.clear();
    filter_->feed(rest, uv_now(&loop_), filtered_);
    observe(filtered_);
    enqueue_output(filtered_);
  }
  schedule_filter();
}

// The tracker sees what goes to the terminal, when the filter does not show it itself.
void Session::observe(std::string_view s) {
  if (cfg_.tracker && !filter_observes_ && !s.empty()) cfg_.tracker->feed(s, uv_now(&loop_));
}

// After the child's last byte: whatever it left switched on, off again. The tracker sees the
// undo too, so the terminal's state and its view agree (and a second undo() is empty).
void Session::enqueue_undo() {
  if (!cfg_.tracker) return;
  std::string u = term::undo(*cfg_.tracker);
  if (u.empty()) return;
  spdlog::debug("terminal: undoing the child's modes ({} bytes)", u.size());
  cfg_.tracker->feed(u, uv_now(&loop_));
  enqueue_output(u);
}

void Session::enqueue_output(std::string_view s) {
  if (!pending_.empty()) {
    pending_.append(s);
    return;
  }
  size_t n = out_q_.append(s);
  if (n < s.size()) pending_.append(s.substr(n));
}

void Session::write_term() {
  if (term_out_dead_) {
    out_q_.consume(out_q_.size());
    pending_.clear();
    return;
  }
  // A terminal that was full stays full until it says otherwise: a write now would only get
  // EAGAIN (ptybench, slow terminal: 4 in 10 terminal writes did). The writable event resumes.
  if (out_blocked_) return;
  while (out_load() > 0) {
    if (out_q_.empty()) {
      size_t n = out_q_.append(pending_);
      pending_.erase(0, n);
    }
    size_t want = out_q_.front_size();  // the rest, if the ring wraps, in the next round
    ssize_t n = write(cfg_.term->out_fd, out_q_.data(), want);
    if (n > 0) {
      out_q_.consume(static_cast<size_t>(n));
      last_flush_progress_ = uv_now(&loop_);
      // A short write means the terminal's buffer is full: writing again now would only get
      // EAGAIN. Wait for writability instead (ptybench: ~30% fewer terminal writes at full speed).
      out_blocked_ = static_cast<size_t>(n) < want;
      if (out_blocked_) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      out_blocked_ = true;
      return;
    }
    spdlog::info("terminal output closed ({}); discarding the rest of the output", strerror(errno));
    term_out_dead_ = true;
    out_q_.consume(out_q_.size());
    pending_.clear();
    return;
  }
  out_blocked_ = false;
}

void Session::read_term() {
  bool typed = false;
  while (in_q_.size() < lim_.in_high) {
    size_t len;
    char* p = in_q_.tail_space(len);
    if (len == 0) break;
    ssize_t n = read(cfg_.term->in_fd, p, len);
    if (n > 0) {
      if (cfg_.on_input) cfg_.on_input(p, static_cast<size_t>(n));
      in_q_.commit(static_cast<size_t>(n));
      typed = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    spdlog::info("terminal input ended ({})", n == 0 ? "EOF" : strerror(errno));
    term_in_eof_ = true;
    break;
  }
  // Before the keys go in: a stopped foreground would only queue them (check_foreground).
  if (typed) check_foreground(true);
  write_master();
  // Where /proc tells a process's state in a read (Linux). Elsewhere each look forks `ps`, and
  // the command is blaude's own child there (Seatbelt), whose stop waitpid reports.
  if (BLAUDE_LINUX_CALLS && typed && phase_ == Phase::Running) {
    stop_look_ = 0;
    uv_timer_start(&stop_timer_, [](uv_timer_t* h) { self_of(h)->look_for_stop(); },
                   kStopLooksMs[0], 0);
  }
}

void Session::write_master() {
  while (!in_q_.empty() && master_open()) {
    ssize_t n = write(cfg_.master, in_q_.data(), in_q_.front_size());
    if (n > 0) {
      in_q_.consume(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      master_blocked_ = true;
      return;
    }
    in_q_.consume(in_q_.size());  // the child side is gone: input has nowhere to go
    break;
  }
  master_blocked_ = false;
}

void Session::stop_master() {
  if (!master_open()) return;
  enter(phase_ == Phase::Running ? Phase::MasterGone : Phase::Flushing);
  if (filter_) {
    filtered_.clear();
    filter_->finish(filtered_);
    observe(filtered_);
    enqueue_output(filtered_);
    uv_timer_stop(&filter_timer_);
  }
  enqueue_undo();
  in_q_.consume(in_q_.size());
  write_term();
}

void Session::schedule_filter() {
  int64_t deadline = filter_->next_deadline_ms();
  if (deadline < 0) {
    uv_timer_stop(&filter_timer_);
    return;
  }
  uint64_t now = uv_now(&loop_);
  uint64_t wait = static_cast<uint64_t>(deadline) > now ? static_cast<uint64_t>(deadline) - now : 0;
  uv_timer_start(&filter_timer_, [](uv_timer_t* h) { self_of(h)->filter_tick(); }, wait, 0);
}

void Session::filter_tick() {
  if (!filter_ || !master_open()) return;
  filtered_.clear();
  filter_->tick(uv_now(&loop_), filtered_);
  observe(filtered_);
  enqueue_output(filtered_);
  write_term();
  schedule_filter();
  update_polls();
}

void Session::on_signals() {
  for (const SignalEvent& ev : sigs_.drain()) {
    switch (ev.signo) {
      case SIGWINCH:
        sync_size(false);
        break;
      case SIGTSTP:
        suspend_self(SIGTSTP, 0);
        break;
      case SIGCONT:
        if (cfg_.modes) cfg_.modes->make_raw();
        sync_size(true);
        break;
      default: {
        // Signals sent to blaude belong to the program in the foreground of the child's pty.
        pid_t pg = tcgetpgrp(cfg_.master);
        spdlog::debug("forwarding signal {} to {}", ev.signo, pg > 0 ? -pg : cfg_.child);
        if (pg <= 0 || kill(-pg, ev.signo) != 0) kill(cfg_.child, ev.signo);
      }
    }
  }
}

// Job control: blaude stops as a job (with `signo`) when it gets SIGTSTP (cont = 0), or when the
// command stopped (cont: the group to continue on fg), and gives the user's shell its terminal
// back as it was; on fg the raw mode, the child's modes and the window size are back before the
// command is continued.
void Session::suspend_self(int signo, pid_t cont) {
  spdlog::debug("suspending (signal {})", signo);
  // What the child wrote before it stopped (a raw program's own reset among it) goes out first.
  if (cont > 0 && master_open()) read_master();
  // The child's output so far, then its modes off: the shell gets a normal screen, no mouse
  // reports, its keyboard as it left it. The tracker keeps the child's view for the fg.
  flush_blocking(kSuspendFlushMs);
  term::Tracker child;
  std::string undo;
  if (cfg_.tracker) {
    child = *cfg_.tracker;
    undo = term::undo(child);
    cfg_.tracker->feed(undo, uv_now(&loop_));
  }
  // The undo (it ends synchronized output, which may have held the terminal's answers), the
  // user's title, then the fence: what the terminal still owes the child is read here and
  // dropped, not typed into the shell.
  if (cfg_.fence) {
    undo += term::kTitleRestore;
    fence_terminal(*cfg_.term, undo);
  } else if (!undo.empty() && !write_bounded(cfg_.term->out_fd, undo, kSuspendFlushMs)) {
    spdlog::info("terminal: the undo before the stop did not go out in full");
  }
  if (cfg_.modes) cfg_.modes->restore(cfg_.fence);
  share_flags(false);
  if (cfg_.term->on_suspend) cfg_.term->on_suspend(true);
  // Stopped by SIGTSTP of its own, blaude stops even where nobody can fg it (as before job
  // control); stopped with the command, it does not, and the command goes on (below).
  if (!sigs_.stop_self(signo, cont <= 0))
    spdlog::info("not stopped: blaude's process group has no job-control shell above it; continuing");
  // Continued.
  if (cfg_.term->on_suspend) cfg_.term->on_suspend(false);
  share_flags(true);
  if (cfg_.modes) cfg_.modes->make_raw();
  bool redraw = false;
  if (cfg_.tracker) {
    // The child's modes back before it draws again; it redraws on the SIGWINCH below.
    std::string again = term::reapply(child);
    redraw = !again.empty();
    if (cfg_.fence) again.insert(0, term::kTitleSave);  // the shell's title, popped at the end
    write_bounded(cfg_.term->out_fd, again, kSuspendFlushMs);
    child.to_ground();  // undo() ended whatever sequence the child was in
    *cfg_.tracker = child;
  } else if (cfg_.fence) {
    write_bounded(cfg_.term->out_fd, term::kTitleSave, kSuspendFlushMs);
  }
  sync_size(true);  // the size now, before the command runs again
  if (cont > 0) {
    spdlog::debug("continuing the command's group {}", cont);
    kill(-cont, SIGCONT);
    if (cont == cfg_.child) kill(cfg_.child, SIGCONT);
  }
  if (redraw) {
    pid_t pg = tcgetpgrp(cfg_.master);
    if (pg <= 0 || kill(-pg, SIGWINCH) != 0) kill(cfg_.child, SIGWINCH);
  }
  update_polls();
}

// Writes the queued output, waiting for the terminal at most `timeout_ms`.
void Session::flush_blocking(int timeout_ms) {
  uint64_t start = uv_hrtime() / 1000000;
  while (out_load() > 0 && !term_out_dead_) {
    write_term();
    if (out_load() == 0 || term_out_dead_) break;
    uint64_t spent = uv_hrtime() / 1000000 - start;
    if (spent >= static_cast<uint64_t>(timeout_ms)) break;
    pollfd p{cfg_.term->out_fd, POLLOUT, 0};
    poll(&p, 1, static_cast<int>(static_cast<uint64_t>(timeout_ms) - spent));
  }
}

// Whether the stopped foreground group `pg` is the command's own: the group the exec shim made for
// it, whose leader's parent is the sandbox's init, which is in bwrap's group (bwrap is the child,
// a session leader). A group inside the command (a job of a shell in the sandbox, which the shell
// continues or not) is not; nor is the child's own group, which reap() sees stop.
bool Session::command_stopped(pid_t pg) const {
  ProcParent leader = process_parent(pg);
  if (leader.ppid <= 0 || leader.ppid == cfg_.child) return false;
  return process_parent(leader.ppid).pgrp == cfg_.child;
}

// The pty's foreground group is stopped:
//  - the command's own group (Ctrl-Z of a cooked command, a raw one that stopped itself after
//    its Ctrl-Z, kill(0, SIGSTOP)): blaude stops with it, as a job of the user's shell, and
//    continues it on fg;
//  - a group inside the command with no job-control shell above it to continue it (its own
//    process group it put in the foreground): keys, Ctrl-C, Ctrl-Z and Ctrl-\ included, would
//    only queue for stopped processes; when a key is typed (`typed`), the group is continued, and
//    the key reaches it.
// One ioctl and, when the group's leader is stopped, a look at its state and parents
// (pty/proc_state.hpp). Returns whether blaude stopped.
bool Session::check_foreground(bool typed) {
  pid_t pg = tcgetpgrp(cfg_.master);
  if (pg <= 0 || pg == cfg_.child || process_state(pg) != 'T') return false;
  if (command_stopped(pg)) {
    spdlog::info("the command's process group {} stopped; stopping blaude with it", pg);
    suspend_self(SIGTSTP, pg);
    return true;
  }
  if (!typed) return false;
  spdlog::warn("the child's foreground process group {} is stopped; continuing it", pg);
  kill(-pg, SIGCONT);
  return false;
}

// Some time after the last key: did the command stop?
void Session::look_for_stop() {
  if (phase_ != Phase::Running || check_foreground(false)) return;
  if (++stop_look_ < std::size(kStopLooksMs))
    uv_timer_start(&stop_timer_, [](uv_timer_t* h) { self_of(h)->look_for_stop(); },
                   kStopLooksMs[stop_look_], 0);
}

void Session::sync_size(bool force) {
  winsize ws{};
  if (!get_winsize(cfg_.term->size_fd, ws)) return;
  if (!force && ws.ws_row == last_ws_.ws_row && ws.ws_col == last_ws_.ws_col &&
      ws.ws_xpixel == last_ws_.ws_xpixel && ws.ws_ypixel == last_ws_.ws_ypixel)
    return;
  last_ws_ = ws;
  ioctl(cfg_.master, TIOCSWINSZ, &ws);  // the kernel sends SIGWINCH to the child's foreground
}

void Session::reap() {
  if (!child_alive()) return;
  for (;;) {
    int st;
    pid_t r = waitpid(cfg_.child, &st, WNOHANG | WUNTRACED);
    if (r != cfg_.child) return;
    if (WIFSTOPPED(st)) {
      // The child is a session leader with no shell above it to continue it (the command itself
      // with --no-sandbox; bwrap, where kill(0, SIGSTOP) inside reaches it: kernels without
      // Landlock): blaude stops as a job with the same signal, and continues it on fg.
      spdlog::warn("child {} was stopped by signal {}; stopping blaude with it", cfg_.child,
                   WSTOPSIG(st));
      suspend_self(WSTOPSIG(st), cfg_.child);
      continue;
    }
    status_ = st;
    enter(phase_ == Phase::Running ? Phase::ChildGone : Phase::Flushing);
    break;
  }
  spdlog::debug("child {} ended, status {:#x}", cfg_.child, status_);
  last_master_data_ = uv_now(&loop_);
  uv_timer_start(&tick_, [](uv_timer_t* h) { self_of(h)->on_tick(); }, kTickMs, kTickMs);
  maybe_finish();
}

// After the child is gone: stop reading the master once it is idle (a background process may
// hold the slave open forever), and give up on a terminal that accepts nothing for too long.
void Session::on_tick() {
  uint64_t now = uv_now(&loop_);
  if (master_open()) {
    if (out_throttled_ || !pending_.empty()) {
      last_master_data_ = now;  // we are not reading because the terminal is slow
    } else {
      drain_active_ms_ += kTickMs;
      if (now - last_master_data_ >= lim_.drain_idle_ms || drain_active_ms_ >= lim_.drain_max_ms) {
        spdlog::debug("master still open after the child ended; stopping the drain");
        stop_master();
      }
    }
    if (last_flush_progress_ == 0) last_flush_progress_ = now;
  }
  if (!master_open() && out_load() > 0 && now - last_flush_progress_ >= lim_.flush_stall_ms) {
    spdlog::warn("terminal accepted nothing for {} ms; dropping {} bytes", lim_.flush_stall_ms,
                 out_load());
    term_out_dead_ = true;
    write_term();
  }
  update_polls();
  maybe_finish();
}

void Session::maybe_finish() {
  if (phase_ != Phase::Flushing) return;
  if (out_load() > 0 && !term_out_dead_) return;
  enter(Phase::Closed);
  close_handles();
}

}  // namespace

int run_session(SessionConfig cfg) {
  auto s = std::make_unique<Session>(std::move(cfg));
  return s->run();
}

}  // namespace blaude::pty
