#include "term/emit.hpp"

#include "term/sgr.hpp"

namespace blaude::term {

const std::string_view kSafeReset =
    "\x18\x1b\\"                                        // end an open sequence (a DCS too)
    "\x1b[?2026l"                                       // synchronized output off
    "\x1b[<64u"                                         // kitty keyboard: pop (alternate screen)
    "\x1b[?1049l"                                       // leave the alternate screen
    "\x1b[<64u\x1b[=0;1u"                               // pop on the main screen, flags 0
    "\x1b[>4;0m"                                        // modifyOtherKeys off
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?9l"         // mouse tracking off
    "\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l"      // mouse encodings off
    "\x1b[?1004l\x1b[?2004l"                            // focus reports, bracketed paste off
    "\x1b[?1l\x1b>"                                     // normal cursor keys and keypad
    "\x1b[?25h"                                         // cursor visible
    "\x1b[0m"                                           // normal rendition
    "\x1b[23;0t";                                       // the user's title (kTitleSave)

namespace {

void csi(std::string& out, std::string_view prefix, uint32_t n, char final) {
  out += "\x1b[";
  out += prefix;
  out += std::to_string(n);
  out += final;
}

bool changed(const TermState& s, Flag f) {
  return s.flag(f) != (flag_default(f) ? Tri::On : Tri::Off);
}

// The child's value of a flag, when it is known and not the default.
bool set_by_child(const TermState& s, Flag f) {
  Tri v = s.flag(f);
  return v != Tri::Unknown && changed(s, f);
}

void undo_keys(const KeyStack& k, std::string& out) {
  if (k.depth) csi(out, "<", k.depth, 'u');
  if (k.base) out += "\x1b[=0;1u";
}

void reapply_keys(const KeyStack& k, std::string& out) {
  if (k.base) {
    csi(out, "=", k.base, ';');
    out += "1u";
  }
  for (uint32_t i = 0; i < k.depth; ++i)
    csi(out, ">", k.flags[i < KeyStack::kKept ? i : KeyStack::kKept - 1], 'u');
}

struct FlagCode {
  Flag flag;
  const char* off;  // the default
  const char* on;
};
// In the order undo() writes them; reapply() writes the other column in the same order.
constexpr FlagCode kFlagCodes[] = {
    {Flag::FocusEvents, "\x1b[?1004l", "\x1b[?1004h"},
    {Flag::BracketedPaste, "\x1b[?2004l", "\x1b[?2004h"},
    {Flag::CursorKeys, "\x1b[?1l", "\x1b[?1h"},
    {Flag::Keypad, "\x1b>", "\x1b="},
    {Flag::ReverseVideo, "\x1b[?5l", "\x1b[?5h"},
    {Flag::Autowrap, "\x1b[?7h", "\x1b[?7l"},  // default on: "off" here is its default
    {Flag::Insert, "\x1b[4l", "\x1b[4h"},
};

void append_region(const TermState& s, bool undo, std::string& out) {
  // DECSTBM homes the cursor: save and restore it around the change.
  out += "\x1b" "7\x1b[";
  if (!undo) {
    out += std::to_string(s.region_top);
    if (s.region_bottom) out += ';' + std::to_string(s.region_bottom);
  }
  out += "r\x1b" "8";
}

}  // namespace

std::string undo(const Tracker& t) {
  const TermState& s = t.state();
  std::string out;
  if (t.mid_sequence()) out += t.in_dcs() ? "\x18\x1b\\" : "\x18";
  if (changed(s, Flag::SyncOutput)) out += "\x1b[?2026l";  // first, so the rest shows at once
  if (s.alt) {
    undo_keys(s.keys_alt, out);  // the alternate screen keeps its own keyboard stack
    csi(out, "?", s.alt, 'l');
  }
  undo_keys(s.keys_main, out);
  if (s.other_keys) out += "\x1b[>4;0m";
  if (s.mouse) csi(out, "?", s.mouse, 'l');
  else if (s.mouse_unknown) out += "\x1b[?1000l";
  if (s.mouse_enc) csi(out, "?", s.mouse_enc, 'l');
  else if (s.mouse_unknown) out += "\x1b[?1006l";
  for (const FlagCode& fc : kFlagCodes)
    if (changed(s, fc.flag)) out += fc.off;
  if (s.region) append_region(s, true, out);
  if (s.cursor_shape) out += "\x1b[0 q";
  if (changed(s, Flag::CursorVisible)) out += "\x1b[?25h";
  for (size_t i = s.title_pushes; i-- > 0;) {
    out += "\x1b[23;";
    out += std::to_string(s.title_ps[i]);
    out += 't';
  }
  // The CAN above ends an open colour OSC, which a terminal may act on (tmux acts on an OSC
  // however it ends): what it sets is reset too.
  if (t.mid_sequence()) {
    Tracker ended = t;
    ended.feed(t.in_dcs() ? "\x18\x1b\\" : "\x18");
    ended.colours().append_reset(out);
  } else {
    t.colours().append_reset(out);
  }
  // Leaving 1049 restored the rendition saved when the child entered it. xterm restores the
  // character sets with it, tmux does not: reset them if either view says they changed.
  const SavedCursor& after = s.alt == 1049 ? s.saved[0] : s.cur;
  if (after.shifted || s.cur.shifted) out += '\x0f';
  if (after.g0 != 'B' || s.cur.g0 != 'B') out += "\x1b(B";
  if (!after.sgr.is_default()) out += "\x1b[m";
  return out;
}

std::string reapply(const Tracker& t) {
  const TermState& s = t.state();
  std::string out;
  reapply_keys(s.keys_main, out);
  if (s.other_keys) {
    csi(out, ">4;", s.other_keys, 'm');
  }
  if (s.alt) {
    csi(out, "?", s.alt, 'h');
    reapply_keys(s.keys_alt, out);
  }
  if (s.mouse) csi(out, "?", s.mouse, 'h');
  if (s.mouse_enc) csi(out, "?", s.mouse_enc, 'h');
  for (const FlagCode& fc : kFlagCodes)
    if (set_by_child(s, fc.flag)) out += fc.on;
  if (s.region) append_region(s, false, out);
  if (s.cursor_shape) out += "\x1b[" + std::to_string(s.cursor_shape) + " q";
  if (set_by_child(s, Flag::CursorVisible)) out += "\x1b[?25l";
  for (size_t i = 0; i < s.title_pushes; ++i) {
    out += "\x1b[22;";
    out += std::to_string(s.title_ps[i]);
    out += 't';
  }
  // The title whenever the child set one: the pops before the stop (the child's and blaude's
  // own, kTitleRestore) showed the user's title while blaude was stopped.
  if (t.title().set) {
    out += "\x1b]" + std::to_string(t.title().code) + ';';
    out += t.title().view();
    out += "\x1b\\";
  }
  t.colours().append_set(out);
  if (s.cur.g0 != 'B') {
    out += "\x1b(";
    out += s.cur.g0;
  }
  if (s.cur.shifted) out += '\x0e';
  if (!s.cur.sgr.is_default()) append_sgr(s.cur.sgr, out);
  if (set_by_child(s, Flag::SyncOutput)) out += "\x1b[?2026h";  // last: the child ends it
  return out;
}

}  // namespace blaude::term
