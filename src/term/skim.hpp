// Escape-dense text, 64 bytes at a time: which bytes are text, whole CSIs that change nothing
// the tracker keeps (cursor moves, erases) or only the rendition (SGR), and whole OSCs (titles,
// OSC 8 links), found with bit masks instead of a branch per sequence. A TUI redraw sends a
// sequence every ~10 bytes; a branch per sequence is a mispredicted branch per sequence. Pure:
// it reads 64 bytes and returns masks.
#pragma once
#include <cstddef>
#include <cstdint>

namespace blaude::term {

struct Window {
  static constexpr unsigned kSize = 64;
  // Bytes [0, stop) are text and
  //  - whole `ESC [ params final` sequences with parameter bytes only (no marker < = > ?, no
  //    intermediate, no control inside) whose final is untracked or `m`;
  //  - `ESC \` (ST, which does nothing outside a string);
  //  - whole OSCs: `ESC ]`, bytes >= 0x20, and a BEL (taken) or an ESC (not part of it: read
  //    next, as the state machine reads it after an OSC);
  // and no SO or SI among them. The byte at `stop` (when < 64) is an ESC, SO or SI the caller
  // reads with the state machine.
  unsigned stop = 0;
  uint64_t esc = 0;        // ESC positions below stop (CSIs, STs, OSCs)
  uint64_t sgr = 0;        // positions of the `m` of each SGR below stop
  uint64_t osc = 0;        // the ESC of each OSC below stop (which set a title: the caller reads)
  uint64_t osc_end = 0;    // the BEL or ESC that ends each of them (at most at stop)
};

// `p` points at 64 readable bytes; the tracker is in the ground state at p[0].
Window skim(const char* p);

// What a window found that the tracker keeps: its SGRs and OSCs, relative to `base` (the
// window's first byte, a view into the caller's read). One entry per window that has any.
struct Found {
  const char* base;
  uint64_t sgr, esc, osc, osc_end;  // as in Window
};

// Windows back to back from p (the ground state) up to `end`, each starting where the one
// before stopped, in one function (the classifier's constants stay in registers, no call per
// window). Fewer than 64 bytes left: a copy padded with SO, so that nothing past `end` is
// taken. Stops at `end`, at an ESC, SO or SI no window takes (`at_control`: p + taken points
// at it), after a window of text alone (the caller's text scan is cheaper there), or when
// `room` entries are written.
struct Skimmed {
  size_t taken = 0;
  size_t found = 0;
  bool at_control = false;
};
Skimmed skim_run(const char* p, const char* end, Found* found, size_t room);

// The byte classifier skim() uses, chosen once from what the CPU has. The unit test runs every
// one the machine can.
enum class Isa : uint8_t { Scalar, Sse2, Avx2, Avx512 };
bool isa_supported(Isa isa);
Window skim_with(Isa isa, const char* p);

// The same, a byte at a time: the reference the unit test holds skim() to.
Window skim_reference(const char* p);

}  // namespace blaude::term
