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

class Osc52Filter : public pty::OutputFilter {
public:
  Osc52Filter(std::unique_ptr<Sink> sink, ScannerLimits limits)
      : scanner_(limits), sink_(std::move(sink)) {}
  ~Osc52Filter() override {
    if (copied_ + refused_ > 0)
      spdlog::info("osc52: {} sequence(s) intercepted: {} copied, {} not copied", copied_ + refused_,
                   copied_, refused_);
  }

  void feed(std::string_view in, uint64_t now_ms, std::string& out) override {
    scanner_.feed(in, now_ms, out, events_);
    if (!events_.empty()) deliver();
  }
  size_t pass(std::string_view in, uint64_t) override { return scanner_.pass_through(in); }
  void tick(uint64_t now_ms, std::string& out) override {
    scanner_.tick(now_ms, out, events_);
    if (!events_.empty()) deliver();
  }
  int64_t next_deadline_ms() const override { return scanner_.next_deadline_ms(); }
  void finish(std::string& out) override {
    scanner_.finish(out, events_);
    if (!events_.empty()) deliver();
  }

private:
  void deliver() {
    for (Sequence& s : events_) {
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
  uint64_t copied_ = 0, refused_ = 0;
  Scanner scanner_;
  std::unique_ptr<Sink> sink_;
  std::vector<Sequence> events_;
};

}  // namespace

std::optional<Config> configure(const HostFacts& h) {
  Backend b = choose_backend(h);
  if (b.tool == Tool::None) return std::nullopt;
  Config c;
  c.backend = std::move(b);
  return c;
}

std::optional<Config> configure(const HostEnv& host, bool no_clipboard) {
  HostFacts h = probe_host(host, no_clipboard);
  std::optional<Config> c = configure(h);
  if (h.disabled) spdlog::info("osc52: clipboard interception is off (--no-clipboard or OSC52_NO_CLIPBOARD=1)");
  else if (!c) spdlog::info("osc52: no clipboard tool for this session; OSC 52 passes through to the terminal");
  else spdlog::info("osc52: copies go to {}", c->backend.path);
  return c;
}

std::unique_ptr<pty::OutputFilter> make_filter(uv_loop_t* loop, const Config& cfg) {
  return make_filter(make_helper_sink(loop, cfg.backend, cfg.helper_timeout_ms), cfg.limits);
}

std::unique_ptr<pty::OutputFilter> make_filter(std::unique_ptr<Sink> sink, ScannerLimits limits) {
  return std::make_unique<Osc52Filter>(std::move(sink), limits);
}

}  // namespace blaude::osc52
