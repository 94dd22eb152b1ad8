// libFuzzer target for the terminal state tracker. Invariants:
//  - cutting the input into two reads, or into reads of one byte, changes neither the state
//    nor undo() (the one-pass paths agree with the state machine);
//  - the tracker only observes: it sees the caller's bytes through a const view, and a copy
//    made before feeding is byte-identical afterwards (the byte-preservation invariant of the
//    output path is checked on the whole filter in fuzz_output_filter);
//  - undo() played into the terminal leaves it in the default state (but for a kitty stack of
//    the alternate screen while on the main screen, which only the next alternate screen sees);
//  - reapply() played after it gives the child's state back, as far as it is known;
//  - the colours the child set are the same however the input is cut, and none is left set
//    after undo();
//  - input without ESC, SO and SI needs no undo.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "term/emit.hpp"
#include "term/tracker.hpp"

using namespace blaude::term;

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

// What reapply() can give back: Unknown flags, the "maybe on" mouse and attributes we do not
// model come back as the defaults.
TermState knowable(TermState s) {
  for (size_t i = 0; i < kFlags; ++i)
    if (s.flags[i] == Tri::Unknown) s.flags[i] = flag_default(static_cast<Flag>(i)) ? Tri::On : Tri::Off;
  s.mouse_unknown = false;
  s.cur.sgr.attrs &= static_cast<uint16_t>(~Sgr::Other);
  if (!s.alt) s.keys_alt = KeyStack{};
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t cut = data[0] % size;
  cut = cut > in.size() ? in.size() : cut;
  const std::string copy(in);

  Tracker whole;
  whole.feed(in);
  require(std::string_view(copy) == in);
  Tracker split;
  split.feed(in.substr(0, cut));
  split.feed(in.substr(cut));
  require(split.state() == whole.state());
  require(split.mid_sequence() == whole.mid_sequence());
  // One byte per read: every sequence goes through the byte-at-a-time state machine, none
  // through the one-pass paths (whole CSIs, the SGR log): both must end in the same state.
  Tracker bytes;
  for (char c : in) bytes.feed(std::string_view(&c, 1));
  require(bytes.state() == whole.state());
  require(bytes.mid_sequence() == whole.mid_sequence());
  require(bytes.title().set == whole.title().set && bytes.title().code == whole.title().code &&
          bytes.title().view() == whole.title().view());
  require(split.colours() == whole.colours());
  require(bytes.colours() == whole.colours());
  const std::string u = undo(whole);
  require(undo(split) == u);

  bool controls = false;
  for (char c : in) controls |= c == '\x1b' || c == '\x0e' || c == '\x0f';
  if (!controls) require(u.empty());

  Tracker term = whole;
  term.feed(u);
  TermState after = term.state();
  if (!whole.state().alt) after.keys_alt = KeyStack{};
  TermState clean;
  require(after == clean);
  require(!term.mid_sequence());
  require(undo(term).empty());
  require(!term.colours().changed());

  term.feed(reapply(whole));
  require(knowable(term.state()) == knowable(whole.state()));
  return 0;
}
