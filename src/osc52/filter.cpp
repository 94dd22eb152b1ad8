#include "osc52/filter.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "common/shown.hpp"

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

term::LexerLimits lexer_limits(const ClipboardLimits& l) {
  term::LexerLimits r;
  // An OSC 52 a little over the payload cap still reaches the clipboard code (which says it is
  // oversized); far over it, the lexer drops it as over-long.
  r.max_string = std::max(r.max_string, l.max_payload + 256);
  r.string_timeout_ms = l.max_sequence_ms;
  return r;
}

class TerminalFilter : public pty::OutputFilter {
public:
  TerminalFilter(std::unique_ptr<Sink> sink, ClipboardLimits limits,
                 std::shared_ptr<std::atomic<uint64_t>> dropped)
      : lim_(limits),
        fw_(limits.mode == Mode::PassWrites ? term::ClipboardMode::PassWrites : term::ClipboardMode::Intercept,
            lexer_limits(limits)),
        sink_(std::move(sink)),
        dropped_(std::move(dropped)) {}
  ~TerminalFilter() override {
    if (copied_ + refused_ > 0)
      spdlog::info("osc52: {} sequence(s) intercepted: {} copied, {} not copied", copied_ + refused_,
                   copied_, refused_);
    if (passed_ + reads_ > 0)
      spdlog::info("osc52: {} sequence(s) passed to the terminal, {} read request(s) removed",
                   passed_, reads_);
    if (fw_.dropped_total() > 0) {
      std::string by;
      for (const auto& [rule, n] : fw_.counts()) by += fmt::format("{}{}: {}", by.empty() ? "" : "; ", rule, n);
      spdlog::info("terminal firewall: {} sequence(s) dropped ({})", fw_.dropped_total(), by);
    }
  }

  void feed(std::string_view in, uint64_t now_ms, std::string& out) override {
    fw_.feed(in, now_ms, out, clips_);
    after();
  }
  // What passes unchanged stays in the session's queue; the firewall shows it to the tracker.
  size_t pass(std::string_view in, uint64_t now_ms) override {
    size_t k = fw_.pass(in, now_ms, clips_);
    after();
    return k;
  }
  void tick(uint64_t now_ms, std::string& out) override {
    fw_.tick(now_ms, out, clips_);
    after();
  }
  int64_t next_deadline_ms() const override { return fw_.next_deadline_ms(); }
  void finish(std::string& out) override {
    fw_.finish(out, clips_);
    after();
  }
  // The firewall holds a sequence until it is whole and passes it whole or not at all: the
  // terminal is never left inside one of the child's sequences. The tracker is shown the tokens
  // the firewall passes, as it judges them (no second lexer).
  bool observe_with(term::Tracker* t) override {
    fw_.show_to(t);
    return t != nullptr;
  }

private:
  void after() {
    if (!clips_.empty()) deliver();
    if (fw_.dropped_total() != logged_total_) log_dropped();
  }

  void log_dropped() {
    for (const term::Dropped& d : fw_.take_dropped())
      if (may_log()) spdlog::info("terminal firewall: dropped {}: {}", d.rule, shown(d.head));
    if (dropped_) dropped_->store(fw_.dropped_total());
    logged_total_ = fw_.dropped_total();
  }

  void deliver() {
    for (const term::Osc52& c : clips_) {
      Sequence s = sequence_of(c, lim_);
      if (!sink_) {  // pass-writes mode: nothing is copied here
        if (c.has_data && !c.read_request) {
          ++passed_;
        } else if (c.read_request) {
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
    clips_.clear();
  }

  // A child printing sequences in a loop must not fill the disk with the log.
  bool may_log() {
    if (logged_ < kLogBudget) return ++logged_, true;
    if (logged_ == kLogBudget) {
      ++logged_;
      spdlog::info("terminal: more sequences follow; logging only the totals at the end");
    }
    return false;
  }

  static constexpr unsigned kLogBudget = 50;
  unsigned logged_ = 0;
  uint64_t copied_ = 0, refused_ = 0, passed_ = 0, reads_ = 0;
  uint64_t logged_total_ = 0;
  ClipboardLimits lim_;
  term::Firewall fw_;
  std::unique_ptr<Sink> sink_;
  std::vector<term::Osc52> clips_;
  std::shared_ptr<std::atomic<uint64_t>> dropped_;
};

std::string without_c0(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x20) r.push_back(c);
  return r;
}

}  // namespace

Sequence sequence_of(const term::Osc52& c, const ClipboardLimits& limits) {
  Sequence s;
  s.wrap = c.tmux ? Wrap::Tmux : Wrap::None;
  s.read_request = c.read_request;
  s.passed = limits.mode == Mode::PassWrites && c.has_data && !c.read_request;
  std::string_view rest = std::string_view(c.body).substr(std::min<size_t>(3, c.body.size()));
  const size_t semi = rest.find(';');
  s.selection = without_c0(rest.substr(0, semi));
  if (s.selection.size() > limits.max_selection) {
    s.selection.resize(limits.max_selection);
    s.outcome = Outcome::Oversized;
  }
  if (semi == std::string_view::npos) {
    s.outcome = Outcome::Malformed;
    return s;
  }
  const std::string_view pd = rest.substr(semi + 1);
  s.payload_bytes = pd.size();
  if (s.outcome == Outcome::Complete && pd.size() > limits.max_payload) s.outcome = Outcome::Oversized;
  if (s.outcome == Outcome::Complete) s.payload = without_c0(pd);
  return s;
}

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
    ClipboardLimits lim = cfg.limits;
    lim.mode = Mode::PassWrites;
    return make_filter(nullptr, lim, cfg.dropped);
  }
  return make_filter(make_helper_sink(loop, cfg.backend, cfg.helper_timeout_ms), cfg.limits,
                     cfg.dropped);
}

std::unique_ptr<pty::OutputFilter> make_filter(std::unique_ptr<Sink> sink, ClipboardLimits limits,
                                               std::shared_ptr<std::atomic<uint64_t>> dropped) {
  if (!sink) limits.mode = Mode::PassWrites;
  return std::make_unique<TerminalFilter>(std::move(sink), limits, std::move(dropped));
}

}  // namespace blaude::osc52
