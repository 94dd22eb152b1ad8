// Escape-dense text, 64 bytes at a time: which bytes are text and whole CSIs that change nothing
// the tracker keeps (cursor moves, erases) or only the rendition (SGR), found with bit masks
// instead of a branch per sequence. A TUI redraw sends a sequence every ~10 bytes; a branch per
// sequence is a mispredicted branch per sequence. Pure: it reads 64 bytes and returns masks.
#pragma once
#include <cstdint>

namespace blaude::term {

struct Window {
  static constexpr unsigned kSize = 64;
  // Bytes [0, stop) are text and whole `ESC [ params final` sequences with parameter bytes only
  // (no marker < = > ?, no intermediate, no control inside) whose final is untracked or `m`;
  // no SO or SI among them; `ESC \` (ST, which does nothing outside a string) is taken too. The byte at `stop` (when < 64) is an ESC, SO or SI the caller
  // reads with the state machine.
  unsigned stop = 0;
  uint64_t esc = 0;        // ESC positions below stop (CSIs and STs)
  uint64_t sgr = 0;        // positions of the `m` of each SGR below stop
  uint64_t sgr_reset = 0;  // those whose parameters are empty, `0` or start with `0;`
};

// `p` points at 64 readable bytes; the tracker is in the ground state at p[0].
Window skim(const char* p);

// The same, a byte at a time: the reference the unit test holds skim() to.
Window skim_reference(const char* p);

}  // namespace blaude::term
