// What the child has switched in the user's terminal, as values: the modes that leave a terminal
// unusable when a program dies with them on (alternate screen, mouse reporting, keyboard
// protocols, hidden cursor, ...). Every field starts at the terminal's power-on default, which is
// the state a shell prompt leaves behind; undo() in emit.hpp writes back only what differs.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace blaude::term {

// Two-valued modes with a fixed default. Unknown: something changed it to a value we cannot
// tell (XTRESTORE of a mode never saved, DECSTR's autowrap); undo() then writes the default,
// which is harmless when the mode already had it, and reapply() leaves it alone.
enum class Flag : uint8_t {
  CursorKeys,      // DECCKM, CSI ? 1 h
  ReverseVideo,    // DECSCNM, CSI ? 5 h
  Autowrap,        // DECAWM, CSI ? 7 h (default on)
  CursorVisible,   // DECTCEM, CSI ? 25 h (default on)
  FocusEvents,     // CSI ? 1004 h
  BracketedPaste,  // CSI ? 2004 h
  SyncOutput,      // CSI ? 2026 h
  Insert,          // IRM, CSI 4 h (an ANSI mode)
  Keypad,          // DECKPAM ESC = / DECKPNM ESC >
  kCount
};
constexpr size_t kFlags = static_cast<size_t>(Flag::kCount);
enum class Tri : uint8_t { Off, On, Unknown };

struct Color {
  enum Kind : uint8_t { Default, Code, Index, Rgb };
  Kind kind = Default;
  uint8_t v[3] = {0, 0, 0};  // Code: the SGR number minus 30 (fg) etc.; Index: v[0]; Rgb: r g b
  bool operator==(const Color& o) const {
    return kind == o.kind && v[0] == o.v[0] && v[1] == o.v[1] && v[2] == o.v[2];
  }
};

// Graphic rendition, enough to tell "back to normal" from "still bold/red/..." and to write the
// attributes back after a resume.
struct Sgr {
  enum Attr : uint16_t {
    Bold = 1, Dim = 2, Italic = 4, Blink = 8, Inverse = 16, Hidden = 32, Strike = 64,
    Overline = 128,
    Other = 256,  // an attribute we do not model (fonts, framed, ...): only SGR 0 clears it
  };
  uint16_t attrs = 0;
  uint8_t underline = 0;  // 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
  Color fg, bg, ul;
  bool is_default() const { return *this == Sgr{}; }
  bool operator==(const Sgr& o) const {
    return attrs == o.attrs && underline == o.underline && fg == o.fg && bg == o.bg && ul == o.ul;
  }
};

// What DECSC saves and DECRC restores, besides the cursor position.
struct SavedCursor {
  Sgr sgr;
  char g0 = 'B';         // G0 character set (ESC ( F); 'B' is ASCII
  bool shifted = false;  // SO is in effect (G1 in GL)
};

// One kitty keyboard-protocol stack (the spec keeps one per screen). Entries are pushed by the
// child; `base` is the entry below them, which CSI = ... u can change without a push.
struct KeyStack {
  static constexpr size_t kKept = 32;  // entries whose flags are kept for reapply()
  uint8_t base = 0;
  uint32_t depth = 0;                  // pushes not yet popped (may exceed kKept)
  std::array<uint8_t, kKept> flags{};  // flags of the first kKept pushed entries
  bool is_default() const { return base == 0 && depth == 0; }
  uint8_t top() const;
  void set_top(uint8_t f);
  void push(uint8_t f);
  void pop(uint32_t n);
  bool operator==(const KeyStack& o) const;  // the live entries only
};

struct TermState {
  TermState() { reset(); }
  void reset();  // RIS

  std::array<Tri, kFlags> flags{};
  uint16_t alt = 0;        // 0: main screen; else the mode that entered it (47, 1047, 1049)
  uint16_t mouse = 0;      // 0 or the tracking mode (9, 1000, 1001, 1002, 1003): one at a time
  uint16_t mouse_enc = 0;  // 0 or the coordinate encoding (1005, 1006, 1015, 1016)
  bool mouse_unknown = false;  // a mode list was cut short: mouse reporting may be on
  KeyStack keys_main, keys_alt;
  uint8_t other_keys = 0;  // xterm modifyOtherKeys level (CSI > 4 ; n m)
  bool region = false;     // DECSTBM set to less than the whole screen
  uint16_t region_top = 0, region_bottom = 0;
  uint8_t cursor_shape = 0;  // DECSCUSR Ps; 0 is the terminal's default
  SavedCursor cur;           // the live rendition and character set
  std::array<SavedCursor, 2> saved{};  // DECSC slots: main screen, alternate screen
  static constexpr size_t kTitles = 16;
  uint8_t title_pushes = 0;                // CSI 22 t not yet popped (at most kTitles)
  std::array<uint8_t, kTitles> title_ps{};  // their Ps: 0 both, 1 icon, 2 window
  std::array<Tri, 16> xtsave{};            // XTSAVE slots, by dec_slot(); Unknown: not saved

  Tri flag(Flag f) const { return flags[static_cast<size_t>(f)]; }
  void set_flag(Flag f, Tri v) { flags[static_cast<size_t>(f)] = v; }
  KeyStack& keys() { return alt ? keys_alt : keys_main; }

  bool operator==(const TermState& o) const;
};

// The default of each flag (what undo() writes back).
bool flag_default(Flag f);

// State changes, named after the control functions that cause them.
void set_dec_mode(TermState& s, uint32_t mode, bool on);  // CSI ? Pm h / l
void set_ansi_mode(TermState& s, uint32_t mode, bool on);  // CSI Pm h / l
void save_cursor(TermState& s);                            // DECSC, CSI s, ?1048h
void restore_cursor(TermState& s);                         // DECRC, CSI u, ?1048l
void soft_reset(TermState& s);                             // DECSTR
void xtsave(TermState& s, uint32_t mode);                  // CSI ? Pm s
void xtrestore(TermState& s, uint32_t mode);               // CSI ? Pm r
void mark_modes_unknown(TermState& s);  // a mode list we could not read in full

}  // namespace blaude::term
