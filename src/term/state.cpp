#include "term/state.hpp"

namespace blaude::term {

namespace {

// The DEC private modes XTSAVE/XTRESTORE can save, one slot each (TermState::xtsave).
constexpr uint16_t kSaveable[] = {1,    5,    7,    25,   1004, 2004, 2026, 9,
                                  1000, 1001, 1002, 1003, 1005, 1006, 1015, 1016};
static_assert(sizeof kSaveable / sizeof kSaveable[0] == 16);

int save_slot(uint32_t mode) {
  for (int i = 0; i < 16; ++i)
    if (kSaveable[i] == mode) return i;
  return -1;
}

// xterm and tmux treat the tracking modes as one setting: setting any one replaces the others,
// resetting any one turns tracking off.
bool is_mouse_tracking(uint32_t m) { return m == 9 || (m >= 1000 && m <= 1003); }
// The coordinate encodings are exclusive too, but a reset only undoes the matching one (xterm).
bool is_mouse_encoding(uint32_t m) { return m == 1005 || m == 1006 || m == 1015 || m == 1016; }

bool dec_flag(uint32_t mode, Flag& f) {
  switch (mode) {
    case 1: f = Flag::CursorKeys; return true;
    case 5: f = Flag::ReverseVideo; return true;
    case 7: f = Flag::Autowrap; return true;
    case 25: f = Flag::CursorVisible; return true;
    case 1004: f = Flag::FocusEvents; return true;
    case 2004: f = Flag::BracketedPaste; return true;
    case 2026: f = Flag::SyncOutput; return true;
    default: return false;
  }
}

Tri tri(bool on) { return on ? Tri::On : Tri::Off; }

// The current value of a saveable mode, for XTSAVE.
Tri dec_value(const TermState& s, uint32_t mode) {
  Flag f;
  if (dec_flag(mode, f)) return s.flag(f);
  if (is_mouse_tracking(mode)) return tri(s.mouse == mode);
  return tri(s.mouse_enc == mode);
}

}  // namespace

uint8_t KeyStack::top() const {
  if (depth == 0) return base;
  return flags[(depth <= kKept ? depth : kKept) - 1];
}

void KeyStack::set_top(uint8_t f) {
  if (depth == 0) base = f;
  else if (depth <= kKept) flags[depth - 1] = f;
}

void KeyStack::push(uint8_t f) {
  if (depth < kKept) flags[depth] = f;
  if (depth < UINT32_MAX) ++depth;
}

void KeyStack::pop(uint32_t n) {
  if (n == 0) n = 1;
  if (n < depth) {
    depth -= n;
    return;
  }
  // Popping the child's last entry and more: the spec resets all flags when the stack empties.
  if (n > depth) base = 0;
  depth = 0;
}

bool flag_default(Flag f) { return f == Flag::Autowrap || f == Flag::CursorVisible; }

void TermState::reset() {
  for (size_t i = 0; i < kFlags; ++i) flags[i] = tri(flag_default(static_cast<Flag>(i)));
  alt = mouse = mouse_enc = 0;
  mouse_unknown = false;
  keys_main = keys_alt = KeyStack{};
  other_keys = 0;
  region = false;
  region_top = region_bottom = 0;
  cursor_shape = 0;
  cur = SavedCursor{};
  saved = {};
  xtsave.fill(Tri::Unknown);
  // Pushed titles stay: a reset does not pop the title stack in xterm or tmux, and popping an
  // empty stack changes nothing.
}

bool KeyStack::operator==(const KeyStack& o) const {
  if (base != o.base || depth != o.depth) return false;
  for (size_t i = 0; i < depth && i < kKept; ++i)
    if (flags[i] != o.flags[i]) return false;
  return true;
}

// Compares what the terminal shows and reports, not the saved slots behind it.
bool TermState::operator==(const TermState& o) const {
  for (size_t i = 0; i < title_pushes; ++i)
    if (i < o.title_pushes && title_ps[i] != o.title_ps[i]) return false;
  return flags == o.flags && alt == o.alt && mouse == o.mouse && mouse_enc == o.mouse_enc &&
         mouse_unknown == o.mouse_unknown && keys_main == o.keys_main &&
         keys_alt == o.keys_alt && other_keys == o.other_keys && region == o.region &&
         region_top == o.region_top && region_bottom == o.region_bottom &&
         cursor_shape == o.cursor_shape && cur.sgr == o.cur.sgr && cur.g0 == o.cur.g0 &&
         cur.shifted == o.cur.shifted && title_pushes == o.title_pushes;
}

void save_cursor(TermState& s) { s.saved[s.alt ? 1 : 0] = s.cur; }
void restore_cursor(TermState& s) { s.cur = s.saved[s.alt ? 1 : 0]; }

void set_dec_mode(TermState& s, uint32_t mode, bool on) {
  Flag f;
  if (dec_flag(mode, f)) {
    s.set_flag(f, tri(on));
  } else if (is_mouse_tracking(mode)) {
    s.mouse_unknown = false;
    s.mouse = on ? static_cast<uint16_t>(mode) : 0;
  } else if (is_mouse_encoding(mode)) {
    if (on) s.mouse_enc = static_cast<uint16_t>(mode);
    else if (s.mouse_enc == mode) s.mouse_enc = 0;
  } else if (mode == 47 || mode == 1047) {
    if (on && !s.alt) s.alt = static_cast<uint16_t>(mode);
    if (!on) s.alt = 0;
  } else if (mode == 1049) {
    if (on && !s.alt) {
      save_cursor(s);
      s.alt = 1049;
    } else if (!on) {
      s.alt = 0;
      restore_cursor(s);  // even when not in the alternate screen, as xterm and tmux do
    }
  } else if (mode == 1048) {
    on ? save_cursor(s) : restore_cursor(s);
  }
}

void set_ansi_mode(TermState& s, uint32_t mode, bool on) {
  if (mode == 4) s.set_flag(Flag::Insert, tri(on));
}

void soft_reset(TermState& s) {
  s.set_flag(Flag::CursorVisible, Tri::On);
  s.set_flag(Flag::Insert, Tri::Off);
  s.set_flag(Flag::Keypad, Tri::Off);
  s.set_flag(Flag::CursorKeys, Tri::Off);
  // DEC says DECSTR turns autowrap off, xterm turns it back on: we cannot tell which happened.
  s.set_flag(Flag::Autowrap, Tri::Unknown);
  s.region = false;
  s.region_top = s.region_bottom = 0;
  s.cur = SavedCursor{};
  s.saved = {};
}

void xtsave(TermState& s, uint32_t mode) {
  int slot = save_slot(mode);
  if (slot >= 0) s.xtsave[slot] = dec_value(s, mode);
}

void xtrestore(TermState& s, uint32_t mode) {
  int slot = save_slot(mode);
  if (slot < 0) return;
  Tri v = s.xtsave[slot];
  Flag f;
  if (v != Tri::Unknown) {
    set_dec_mode(s, mode, v == Tri::On);
  } else if (dec_flag(mode, f)) {
    s.set_flag(f, Tri::Unknown);  // restored from a slot never saved: the terminal's guess
  }
}

void mark_modes_unknown(TermState& s) {
  for (size_t i = 0; i < kFlags; ++i) s.flags[i] = Tri::Unknown;
  s.mouse_unknown = true;
}

}  // namespace blaude::term
