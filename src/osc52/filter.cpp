#include "osc52/filter.hpp"

#include <spdlog/spdlog.h>

#include <vector>

namespace blaude::osc52 {

namespace {

const char* wrap_name(Wrap w) {
  switch (w) {
    case Wrap::None: return "";
    case Wrap::Tmux: return " (tmux passthrough)";
    case Wrap::Screen: return " (screen DCS)";
  }
  return "";
}

// Hands the scanner's output to the terminal state tracker.
struct TrackerObserver : Observer {
  term::Tracker* tracker = nullptr;
  void observe(std::string_view b, uint64_t now) override { tracker->feed(b, now); }
  bool mid_sequence() const override { return tracker->mid_sequence(); }
};

class Osc52Filter : public pty::OutputFilter {
public:
  Osc52Filter(std::unique_ptr<Sink> sink, ScannerLimits limits)
      : scanner_(limits), sink_(std::move(sink)) {}
  ~Osc52Filter() override {
    if (copied_ + refused_ > 0)
      spdlog::info("osc52: {} sequence(s) intercepted: {} copied, {} not copied", copied_ + refused_,
                   copied_, refused_);
    if (passed_ + reads_ > 0)
      spdlog::info("osc52: {} sequence(s) passed to the terminal, {} read request(s) removed",
                   passed_, reads_);
    if (scanner_.cans() > 0)
      spdlog::info("osc52: {} removed sequence(s) ended an open one with CAN", scanner_.cans());
  }

  void feed(std::string_view in, uint64_t now_ms, std::string& out) override {
    scanner_.feed(in, now_ms, out, events_);
    if (!events_.empty()) deliver();
  }
  // The bytes passed here never reach the scanner's observer: hand them to the tracker too.
  size_t pass(std::string_view in, uint64_t now_ms) override {
    size_t k = scanner_.pass_through(in);
    if (k > 0 && observer_.tracker) observer_.tracker->feed(in.substr(0, k), now_ms);
    return k;
  }
  void tick(uint64_t now_ms, std::string& out) override {
    scanner_.tick(now_ms, out, events_);
    if (!events_.empty()) deliver();
  }
  int64_t next_deadline_ms() const override { return scanner_.next_deadline_ms(); }
  void finish(std::string& out) override {
    scanner_.finish(out, events_);
    if (!events_.empty()) deliver();
  }
  bool observe_with(term::Tracker* t) override {
    observer_.tracker = t;
    scanner_.set_observer(t ? &observer_ : nullptr);
    return t != nullptr;
  }

private:
  void deliver() {
    for (Sequence& s : events_) {
      if (!sink_) {  // pass-writes mode: nothing is copied here
        if (s.passed) {
          ++passed_;
        } else if (s.read_request) {
          ++reads_;
          if (may_log())
            spdlog::info("osc52: removed a read request{}: the terminal must not answer it into "
                         "the sandbox", wrap_name(s.wrap));
        }
        continue;
      }
      Verdict v = interpret(s);
      if (!v.copy) {
        ++refused_;
        if (may_log())
          spdlog::info("osc52: intercepted a sequence{} ({} encoded bytes); not copied: {}",
                       wrap_name(s.wrap), s.payload_bytes, v.note);
        continue;
      }
      ++copied_;
      if (!v.note.empty() && may_log()) spdlog::warn("osc52: {}", v.note);
      if (may_log())
        spdlog::info("osc52: copy of {} bytes{} requested", v.copy->text.size(), wrap_name(s.wrap));
      sink_->copy(std::move(*v.copy));
    }
    events_.clear();
  }

  // A child printing OSC 52 in a loop must not fill the disk with the log.
  bool may_log() {
    if (logged_ < kLogBudget) return ++logged_, true;
    if (logged_ == kLogBudget) {
      ++logged_;
      spdlog::info("osc52: more sequences follow; logging only the totals at the end");
    }
    return false;
  }

  static constexpr unsigned kLogBudget = 50;
  unsigned logged_ = 0;
  uint64_t copied_ = 0, refused_ = 0, passed_ = 0, reads_ = 0;
  Scanner scanner_;
  std::unique_ptr<Sink> sink_;
  std::vector<Sequence> events_;
  TrackerObserver observer_;
};

}  // namespace

Config configure(const HostFacts& h) {
  Config c;
  c.backend = choose_backend(h);
  c.limits.mode = c.backend.tool == Tool::None ? Mode::PassWrites : Mode::Intercept;
  return c;
}

Config configure(const HostEnv& host, bool no_clipboard) {
  HostFacts h = probe_host(host, no_clipboard);
  Config c = configure(h);
  if (h.disabled)
    spdlog::info("osc52: clipboard interception is off (--no-clipboard or OSC52_NO_CLIPBOARD=1); "
                 "copies pass to the terminal, read requests never do");
  else if (c.backend.tool == Tool::None)
    spdlog::info("osc52: no clipboard tool for this session; copies pass to the terminal, read "
                 "requests never do");
  else
    spdlog::info("osc52: copies go to {}", c.backend.path);
  return c;
}

std::unique_ptr<pty::OutputFilter> make_filter(uv_loop_t* loop, const Config& cfg) {
  if (cfg.backend.tool == Tool::None) {
    ScannerLimits lim = cfg.limits;
    lim.mode = Mode::PassWrites;
    return make_filter(nullptr, lim);
  }
  return make_filter(make_helper_sink(loop, cfg.backend, cfg.helper_timeout_ms), cfg.limits);
}

std::unique_ptr<pty::OutputFilter> make_filter(std::unique_ptr<Sink> sink, ScannerLimits limits) {
  if (!sink) limits.mode = Mode::PassWrites;
  return std::make_unique<Osc52Filter>(std::move(sink), limits);
}

}  // namespace blaude::osc52
