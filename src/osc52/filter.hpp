// The OSC 52 stage of the child→terminal path: the scanner wrapped as a pty::OutputFilter. It is
// always installed: with a clipboard tool the accepted copies go to a Sink and every OSC 52
// sequence is taken out of the stream; without one (or with --no-clipboard) writes reach the
// terminal byte for byte and only read requests are taken out, since a terminal that answers
// them would send the host clipboard into the sandbox. The terminal state tracker watches the
// filter's output in the same pass (observe_with).
//
//   osc52::Config cfg = osc52::configure(host, o.no_clipboard);
//   so.make_filter = [cfg](uv_loop_t* loop) { return osc52::make_filter(loop, cfg); };
#pragma once
#include <uv.h>

#include <cstdint>
#include <memory>

#include "osc52/backend.hpp"
#include "osc52/scanner.hpp"
#include "osc52/sink.hpp"
#include "pty/output_filter.hpp"

namespace blaude::osc52 {

struct Config {
  Backend backend;        // Tool::None: pass-writes mode (limits.mode says so too)
  ScannerLimits limits;
  uint64_t helper_timeout_ms = 3000;
};

// Pure: the configuration for these host facts: intercept into the chosen tool, or pass writes
// (disabled, or no usable tool).
Config configure(const HostFacts& h);
// The shell around it: probes the host once and logs the decision (never prints).
Config configure(const HostEnv& host, bool no_clipboard);

// The filter for a session; its copies go to the configured tool, spawned on `loop`.
std::unique_ptr<pty::OutputFilter> make_filter(uv_loop_t* loop, const Config& cfg);
// The same filter over any sink (tests, benchmarks); no sink for pass-writes mode.
std::unique_ptr<pty::OutputFilter> make_filter(std::unique_ptr<Sink> sink, ScannerLimits limits);

}  // namespace blaude::osc52
