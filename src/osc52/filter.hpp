// The OSC 52 stage of the child→terminal path: the scanner wrapped as a pty::OutputFilter whose
// accepted copies go to a Sink. The app layer decides with configure() whether to install it.
//
//   if (auto cfg = osc52::configure(host, o.no_clipboard))
//     so.make_filter = [c = *cfg](uv_loop_t* loop) { return osc52::make_filter(loop, c); };
#pragma once
#include <uv.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "osc52/backend.hpp"
#include "osc52/scanner.hpp"
#include "osc52/sink.hpp"
#include "pty/output_filter.hpp"

namespace blaude::osc52 {

struct Config {
  Backend backend;
  ScannerLimits limits;
  uint64_t helper_timeout_ms = 3000;
};

// Pure: the configuration for these host facts, or nullopt when interception stays off
// (disabled, or no usable tool: the sequences then reach the user's terminal untouched).
std::optional<Config> configure(const HostFacts& h);
// The shell around it: probes the host once and logs the decision (never prints).
std::optional<Config> configure(const HostEnv& host, bool no_clipboard);

// The filter for a session; its copies go to the configured tool, spawned on `loop`.
std::unique_ptr<pty::OutputFilter> make_filter(uv_loop_t* loop, const Config& cfg);
// The same filter over any sink (tests, benchmarks).
std::unique_ptr<pty::OutputFilter> make_filter(std::unique_ptr<Sink> sink, ScannerLimits limits);

}  // namespace blaude::osc52
