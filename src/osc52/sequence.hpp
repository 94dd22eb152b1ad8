// An OSC 52 sequence as the clipboard code sees it: `ESC ] 52 ; Pc ; Pd` (ended by BEL or ST),
// bare or inside tmux's passthrough, found in the child's output by the terminal lexer
// (term/lexer.hpp) and handed over by the firewall (term/firewall.hpp) whole. Intercept mode (a
// clipboard tool takes the copies) removes every such sequence from the stream; pass-writes mode
// (no tool, or --no-clipboard) lets writes through and removes read requests (Pd starting with
// `?`, or a `?` in a Pc with no Pd), which a terminal would answer with the host clipboard.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace blaude::osc52 {

enum class Wrap : uint8_t { None, Tmux, Screen };

enum class Outcome : uint8_t {
  Complete,   // properly terminated; Pc and Pd are in the event
  Oversized,  // Pc or Pd over its cap: not copied
  Malformed,  // no `;` that starts Pd
};

// One OSC 52 sequence. Whatever its outcome, in intercept mode its bytes were removed.
struct Sequence {
  Wrap wrap = Wrap::None;
  Outcome outcome = Outcome::Complete;
  std::string selection;     // Pc, C0 bytes removed, at most max_selection bytes
  std::string payload;       // Pd, C0 bytes removed; empty unless outcome == Complete
  size_t payload_bytes = 0;  // encoded Pd bytes seen (for the log, also when discarded)
  bool passed = false;       // pass-writes mode: its bytes went to the terminal unchanged
  bool read_request = false; // Pd starts with `?` (or a `?` in Pc with no Pd): never passed
};

enum class Mode : uint8_t { Intercept, PassWrites };

struct ClipboardLimits {
  size_t max_payload = 1024 * 1024;  // encoded bytes, as tmux's input-buffer-size
  size_t max_selection = 16;         // Pc is a handful of letters; more is not copied
  uint64_t max_sequence_ms = 5000;   // a sequence left open this long is dropped
  Mode mode = Mode::Intercept;
};

}  // namespace blaude::osc52
