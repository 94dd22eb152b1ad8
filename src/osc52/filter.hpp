// The child→terminal stage: the terminal firewall (term/firewall.hpp, one lexer for the whole
// output) wrapped as a pty::OutputFilter, with the clipboard behind it. It is always installed:
// what the firewall's table drops never reaches the terminal (each drop logged, sanitized, and
// counted); with a clipboard tool the accepted copies go to a Sink and every OSC 52 sequence is
// taken out of the stream; without one (or with --no-clipboard) writes reach the terminal byte
// for byte and only read requests are taken out, since a terminal that answers them would send
// the host clipboard into the sandbox. The terminal state tracker is shown the tokens the
// firewall passes, as it judges them (observe_with): the output is lexed once.
//
//   osc52::Config cfg = osc52::configure(host, o.no_clipboard);
//   so.make_filter = [cfg](uv_loop_t* loop) { return osc52::make_filter(loop, cfg); };
#pragma once
#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "osc52/backend.hpp"
#include "osc52/sequence.hpp"
#include "osc52/sink.hpp"
#include "pty/output_filter.hpp"
#include "term/firewall.hpp"

namespace blaude::osc52 {

struct Config {
  Backend backend;        // Tool::None: pass-writes mode (limits.mode says so too)
  ClipboardLimits limits;
  uint64_t helper_timeout_ms = 3000;
  // How many sequences the firewall dropped, for the line --debug prints at exit.
  std::shared_ptr<std::atomic<uint64_t>> dropped = std::make_shared<std::atomic<uint64_t>>(0);
};

// What the clipboard code makes of an OSC 52 the firewall handed over (pure).
Sequence sequence_of(const term::Osc52& c, const ClipboardLimits& limits);

// Pure: the configuration for these host facts: intercept into the chosen tool, or pass writes
// (disabled, or no usable tool).
Config configure(const HostFacts& h);
// The shell around it: probes the host once and logs the decision (never prints).
Config configure(const HostEnv& host, bool no_clipboard);

// The filter for a session; its copies go to the configured tool, spawned on `loop`.
std::unique_ptr<pty::OutputFilter> make_filter(uv_loop_t* loop, const Config& cfg);
// The same filter over any sink (tests, benchmarks); no sink for pass-writes mode.
std::unique_ptr<pty::OutputFilter> make_filter(
    std::unique_ptr<Sink> sink, ClipboardLimits limits,
    std::shared_ptr<std::atomic<uint64_t>> dropped = nullptr);

}  // namespace blaude::osc52
