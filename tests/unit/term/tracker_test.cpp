// The terminal state tracker, table-driven: every case is fed whole, cut in two at every byte
// boundary, and byte by byte; each way must give the same state and the same undo bytes.
#include <string>
#include <vector>

#include "catch.hpp"
#include "term/emit.hpp"
#include "term/tracker.hpp"

using namespace blaude::term;
using namespace std::string_literals;

namespace {

Tracker fed(const std::vector<std::string>& parts) {
  Tracker t;
  for (const auto& p : parts) t.feed(p);
  return t;
}

// Feeds `in` whole, at every split point and byte by byte; all must give `want` as undo().
void check_all_splits(const std::string& in, const std::string& want) {
  Tracker whole = fed({in});
  CHECK(undo(whole) == want);
  for (size_t i = 1; i < in.size(); ++i) {
    Tracker t = fed({in.substr(0, i), in.substr(i)});
    INFO("split at " << i);
    CHECK(t.state() == whole.state());
    CHECK(t.colours() == whole.colours());
    CHECK(undo(t) == want);
  }
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  Tracker b = fed(bytes);
  CHECK(b.state() == whole.state());
  CHECK(b.colours() == whole.colours());
  CHECK(undo(b) == want);
}

struct Case {
  const char* name;
  std::string in;
  std::string undo;
};

}  // namespace

TEST_CASE("term tracker: the undo of each case, at every split point", "[term]") {
  const std::string many = "\x1b[?"s + std::string(40 * 2, ' ');
  std::vector<Case> cases = {
      {"plain text", "hello, w\xc3\xb6rld\r\n\t\a\b", ""},
      {"the issue's example", "\x1b[?1049h\x1b[?1000h\x1b[?2004h\x1b[?25l",
       "\x1b[?1049l\x1b[?1000l\x1b[?2004l\x1b[?25h"},
      {"set and reset again", "\x1b[?1049h\x1b[?1000h\x1b[?2004h\x1b[?25lx\x1b[?25h\x1b[?2004l"
                              "\x1b[?1000l\x1b[?1049l", ""},
      {"a mode list", "\x1b[?1049;1000;1006h", "\x1b[?1049l\x1b[?1000l\x1b[?1006l"},
      {"47 and 1047", "\x1b[?47h", "\x1b[?47l"},
      {"1047 then 1049 stays 1047", "\x1b[?1047h\x1b[?1049h", "\x1b[?1047l"},
      {"47 leaves 1049's screen", "\x1b[?1049h\x1b[?47l", ""},
      {"mouse tracking is one setting", "\x1b[?1000h\x1b[?1002h", "\x1b[?1002l"},
      {"any tracking reset turns it off", "\x1b[?1003h\x1b[?1000l", ""},
      {"X10 mouse", "\x1b[?9h", "\x1b[?9l"},
      {"encodings: the last one counts", "\x1b[?1006h\x1b[?1015h", "\x1b[?1015l"},
      {"encoding reset of another one", "\x1b[?1006h\x1b[?1005l", "\x1b[?1006l"},
      {"focus events", "\x1b[?1004h", "\x1b[?1004l"},
      {"bracketed paste", "\x1b[?2004h", "\x1b[?2004l"},
      {"synchronized output comes first", "\x1b[?25l\x1b[?2026h", "\x1b[?2026l\x1b[?25h"},
      {"application cursor keys", "\x1b[?1h", "\x1b[?1l"},
      {"keypad", "\x1b=", "\x1b>"},
      {"keypad back", "\x1b=\x1b>", ""},
      {"autowrap off", "\x1b[?7l", "\x1b[?7h"},
      {"autowrap off and on", "\x1b[?7l\x1b[?7h", ""},
      {"cursor shown explicitly", "\x1b[?25h", ""},
      {"reverse video", "\x1b[?5h", "\x1b[?5l"},
      {"insert mode (ANSI)", "\x1b[4h", "\x1b[4l"},
      {"DEC 4 is not insert", "\x1b[?4h", ""},
      {"kitty push", "\x1b[>1u", "\x1b[<1u"},
      {"kitty push push pop", "\x1b[>1u\x1b[>3u\x1b[<u", "\x1b[<1u"},
      {"kitty pop 0 pops one", "\x1b[>1u\x1b[>1u\x1b[<0u", "\x1b[<1u"},
      {"kitty pops more than it pushed", "\x1b[>1u\x1b[<5u", ""},
      {"kitty set without push", "\x1b[=5u", "\x1b[=0;1u"},
      {"kitty set, then clear the bits", "\x1b[=5;1u\x1b[=5;3u", ""},
      {"kitty or-set on a pushed entry", "\x1b[>1u\x1b[=2;2u", "\x1b[<1u"},
      {"kitty query", "\x1b[?u", ""},
      {"kitty on the alternate screen", "\x1b[?1049h\x1b[>1u", "\x1b[<1u\x1b[?1049l"},
      {"kitty on both screens", "\x1b[>1u\x1b[?1049h\x1b[>3u",
       "\x1b[<1u\x1b[?1049l\x1b[<1u"},
      {"modifyOtherKeys", "\x1b[>4;2m", "\x1b[>4;0m"},
      {"modifyOtherKeys reset", "\x1b[>4;2m\x1b[>4m", ""},
      {"modifyOtherKeys disabled", "\x1b[>4;1m\x1b[>4n", ""},
      {"other key resources", "\x1b[>1;2m", ""},
      {"SGR", "\x1b[1;31m", "\x1b[m"},
      {"SGR off again", "\x1b[1m\x1b[22m", ""},
      {"SGR 256 colours", "\x1b[38;5;196m\x1b[39m", ""},
      {"SGR colour does not eat the next", "\x1b[38;5;196;1m\x1b[39m", "\x1b[m"},
      {"SGR rgb with colons", "\x1b[38:2::1:2:3m\x1b[39m", ""},
      {"SGR underline styles", "\x1b[4:3m\x1b[4:0m", ""},
      {"SGR 0 and empty", "\x1b[31m\x1b[0m\x1b[1m\x1b[m", ""},
      {"SGR trailing empty is 0", "\x1b[1;m", ""},
      {"SGR unknown attribute", "\x1b[11m", "\x1b[m"},
      {"scroll region", "\x1b[2;20r", "\x1b" "7\x1b[r\x1b" "8"},
      {"scroll region reset", "\x1b[2;20r\x1b[r", ""},
      {"scroll region to the bottom", "\x1b[1;0r", ""},
      {"invalid region is ignored", "\x1b[5;3r", ""},
      {"cursor shape", "\x1b[5 q", "\x1b[0 q"},
      {"cursor shape default", "\x1b[5 q\x1b[ q", ""},
      {"title pushed", "\x1b[22;0t", "\x1b[23;0t"},
      {"titles pushed, popped in reverse", "\x1b[22;0t\x1b[22;2t", "\x1b[23;2t\x1b[23;0t"},
      {"title pushed and popped", "\x1b[22t\x1b[23t", ""},
      {"other window ops", "\x1b[8;24;80t\x1b[14t", ""},
      {"G0 line drawing", "\x1b(0", "\x1b(B"},
      {"shift out", "\x0e", "\x0f"},
      {"shift out and in", "\x1b)0\x0e\x0f", ""},
      {"SO inside a CSI is executed", "\x1b[?10\x0e" "49h", "\x1b[?1049l\x0f"},
      {"DECSC/DECRC restore the rendition", "\x1b[1m\x1b" "7\x1b[0m\x1b" "8", "\x1b[m"},
      {"DECRC back to normal", "\x1b" "7\x1b[1m\x1b" "8", ""},
      {"SCOSC/SCORC", "\x1b[s\x1b[1m\x1b[u", ""},
      {"1049 restores the rendition it saved", "\x1b[1m\x1b[?1049h\x1b[0m\x1b[?1049l",
       "\x1b[m"},
      {"undo of 1049 brings back the saved rendition", "\x1b[1m\x1b[?1049h\x1b[0m",
       "\x1b[?1049l\x1b[m"},
      {"RIS clears all", "\x1b[?1049h\x1b[?1000h\x1b[>1u\x1b[>4;1m\x1b[1mtext\x1b" "c", ""},
      {"RIS keeps pushed titles", "\x1b[22;0t\x1b" "c", "\x1b[23;0t"},
      {"DECSTR", "\x1b[?1h\x1b=\x1b[?25l\x1b[2;5r\x1b[1m\x1b(0\x1b[4h\x1b[!p", "\x1b[?7h"},
      {"DECSTR keeps the screen and mouse", "\x1b[?1049h\x1b[?1000h\x1b[!p",
       "\x1b[?1049l\x1b[?1000l\x1b[?7h"},
      {"XTSAVE/XTRESTORE", "\x1b[?1000s\x1b[?1000h\x1b[?1000r", ""},
      {"XTRESTORE of a saved on", "\x1b[?25l\x1b[?25s\x1b[?25h\x1b[?25r", "\x1b[?25h"},
      {"XTRESTORE of a mode never saved", "\x1b[?7r", "\x1b[?7h"},
      {"XTSAVE of everything", "\x1b[?s\x1b[?2004h\x1b[?r", ""},
      {"DECRQM is a query", "\x1b[?1049$p\x1b[4$p", ""},
      {"private marker late: ignored", "\x1b[1?1049h", ""},
      {"intermediate then digit: ignored", "\x1b[ 1h\x1b[?1 049h", ""},
      {"ESC with an intermediate", "\x1b#8\x1b(B", ""},
      {"OSC payload is skipped", "\x1b]0;[?1049h\x07", ""},
      {"OSC with ST", "\x1b]8;;http://x/[?1000h\x1b\\", ""},
      {"ESC ends an OSC (tmux)", "\x1b]0;x\x1b[?1000h", "\x1b[?1000l"},
      {"CAN ends an OSC", "\x1b]2;x\x18\x1b[?1000h", "\x1b[?1000l"},
      {"DCS payload is skipped", "\x1bPq#0;2;0;0;0[?1049h\x1b\\", ""},
      {"tmux passthrough: doubled ESCs stay inside",
       "\x1bPtmux;\x1b\x1b[?1049h\x1b\x1b[?1000h\x1b\\", ""},
      {"CAN inside a DCS is payload (tmux)", "\x1bPq\x18\x1b[?1000h\x1b\\", ""},
      {"after the DCS", "\x1bP$q m\x1b\\\x1b[?1000h", "\x1b[?1000l"},
      {"DCS with a colon is ignored to ESC", "\x1bP1:2q\x1b[?1000h", "\x1b[?1000l"},
      {"APC is skipped", "\x1b_Gf=24;[?1000h\x1b\\", ""},
      {"APC ends at ESC", "\x1b_x\x1b[?1000h", "\x1b[?1000l"},
      {"APC ignores BEL", "\x1b_x\x07[?1000h\x1b\\", ""},
      {"PM and SOS are skipped", "\x1b^[?25l\x1b\\\x1bX[?25l\x1b\\", ""},
      {"screen title is skipped", "\x1bk[?25l\x1b\\", ""},
      {"CAN aborts a CSI", "\x1b[?1049\x18h", ""},
      {"SUB aborts a CSI", "\x1b[?1049\x1ah", ""},
      {"ESC restarts a CSI", "\x1b[?10\x1b[?1000h", "\x1b[?1000l"},
      {"LF inside a CSI", "\x1b[?10\n49h", "\x1b[?1049l"},
      {"DEL inside a CSI", "\x1b[?10\x7f" "49h", "\x1b[?1049l"},
      {"8-bit CSI is text", "\x9b?1049h", ""},
      {"stopped inside a CSI", "\x1b[?104", "\x18"},
      {"stopped after ESC", "x\x1b", "\x18"},
      {"stopped inside an OSC", "\x1b]0;title", "\x18"},
      {"stopped inside a DCS", "\x1bPq#0", "\x18\x1b\\"},
      {"stopped at a DCS's ESC", "\x1bPq\x1b", "\x18\x1b\\"},
      {"huge parameters saturate", "\x1b[?99999999999999999999h\x1b[99999999999999999m", "\x1b[m"},
      {"everything at once",
       "\x1b[?1049h\x1b[>1u\x1b[>4;2m\x1b[?1003h\x1b[?1006h\x1b[?1004h\x1b[?2004h\x1b[?1h\x1b="
       "\x1b[?7l\x1b[3;10r\x1b[6 q\x1b[?25l\x1b[22;2t\x1b(0\x1b[7m\x1b[?2026h",
       "\x1b[?2026l\x1b[<1u\x1b[?1049l\x1b[>4;0m\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l"
       "\x1b[?1l\x1b>\x1b[?7h\x1b" "7\x1b[r\x1b" "8\x1b[0 q\x1b[?25h\x1b[23;2t\x1b(B"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    check_all_splits(c.in, c.undo);
  }
}

TEST_CASE("term tracker: a mode list longer than kept is undone as if everything was on",
          "[term]") {
  std::string in = "\x1b[?";
  for (int i = 0; i < 40; ++i) in += "1;";
  in += "1000h";
  std::string u = undo(fed({in}));
  CHECK(u.find("\x1b[?1000l") != std::string::npos);
  CHECK(u.find("\x1b[?1006l") != std::string::npos);
  CHECK(u.find("\x1b[?25h") != std::string::npos);
  CHECK(u.find("\x1b[?2004l") != std::string::npos);
}

TEST_CASE("term tracker: undo brings the state back to the defaults", "[term]") {
  const std::string in =
      "\x1b[?1049h\x1b[>1u\x1b[>4;2m\x1b[?1003h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b=\x1b[?7l"
      "\x1b[3;10r\x1b[6 q\x1b[?25l\x1b[22;2t\x1b(0\x0e\x1b[7m\x1b[?2026h\x1b[?104";
  Tracker t = fed({in});
  std::string u = undo(t);
  t.to_ground();
  t.feed(u);
  CHECK(t.state() == TermState{});
  CHECK(undo(t).empty());
}

TEST_CASE("term tracker: reapply puts the child's state back", "[term]") {
  const std::string in =
      "\x1b[>1u\x1b[?1049h\x1b[>5u\x1b[=3;2u\x1b[>4;2m\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1h"
      "\x1b=\x1b[?7l\x1b[3;10r\x1b[6 q\x1b[?25l\x1b[22;2t\x1b]2;the title\x07\x1b(0\x0e"
      "\x1b[1;4:3;38;5;200;48;2;1;2;3;58;5;9;7m\x1b[?2026h";
  Tracker child = fed({in});
  std::string r = reapply(child);
  CHECK(r ==
        "\x1b[>1u\x1b[>4;2m\x1b[?1049h\x1b[>7u\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b="
        "\x1b[?7l\x1b" "7\x1b[3;10r\x1b" "8\x1b[6 q\x1b[?25l\x1b[22;2t\x1b]2;the title\x1b\\"
        "\x1b(0\x0e\x1b[0;1;7;4:3;38;5;200;48;2;1;2;3;58;5;9m\x1b[?2026h");
  // Played into a terminal that undo() put back, it gives the same state.
  Tracker term = child;
  term.feed(undo(child));
  REQUIRE(term.state() == TermState{});
  term.feed(r);
  CHECK(term.state() == child.state());
  CHECK(term.title().view() == "the title");
}

TEST_CASE("term tracker: nothing to reapply for an untouched terminal", "[term]") {
  CHECK(reapply(fed({"text \x1b[1mbold\x1b[m\r\n"})).empty());
}

TEST_CASE("term tracker: a string open for 5 s is abandoned, as tmux does", "[term]") {
  Tracker t;
  t.feed("\x1bPq#0", 1000);
  t.feed("\x1b[?1000h", 1000 + 4999);
  CHECK(undo(t) == "\x18\x1b\\");  // still inside the DCS
  Tracker u;
  u.feed("\x1bPq#0", 1000);
  u.feed("x\x1b[?1000h", 1000 + 5000);
  CHECK(undo(u) == "\x1b[?1000l");
}

TEST_CASE("term tracker: the safe reset leaves a tracked terminal clean", "[term]") {
  Tracker t = fed({"\x1b[?1049h\x1b[>1u\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?25l\x1b[?1h"
                   "\x1b=\x1b[>4;1m\x1b[?1004h\x1b[1m\x1bPq"});
  t.feed(kSafeReset);
  TermState clean;
  CHECK(t.state() == clean);
  CHECK(!t.mid_sequence());
  // And it changes nothing on a terminal that had nothing on.
  Tracker fresh;
  fresh.feed(kSafeReset);
  CHECK(fresh.state() == clean);
  CHECK(undo(fresh).empty());
}

// Text is scanned 16 bytes at a time for ESC, SO and SI only: a shift at any lane, in either
// half of a block, after newlines, tabs and BELs (controls that must not stop or fool the scan),
// and an escape right after them, are all seen.
TEST_CASE("term tracker: SO, SI and ESC at every offset of a text with other controls", "[term]") {
  const std::string text = "line\r\n\tone\a two\r\nthree\x18 four\x1a five\x7f\r\n";  // 40 bytes
  for (size_t at = 0; at <= text.size(); ++at) {
    INFO("at " << at);
    std::string in = text.substr(0, at) + "\x0e" + text.substr(at);
    check_all_splits(in, "\x0f");
    check_all_splits(in + text + "\x0f", "");
    check_all_splits(text.substr(0, at) + "\x1b[?25l" + text.substr(at), "\x1b[?25h");
  }
}

// The colours the child set: reset at the end (those only), queries left alone, the child's own
// resets honoured, and set again on fg; every split gives the same.
TEST_CASE("term tracker: the colours the child set, and only those, are reset", "[term]") {
  const std::string rst = "\x1b\\";
  std::vector<Case> cases = {
      {"palette entries and the background", "\x1b]4;1;#ff0000\x07\x1b]11;rgb:0/0/0\x1b\\",
       "\x1b]104;1" + rst + "\x1b]111" + rst},
      {"two entries in one OSC 4, one a query", "\x1b]4;3;red;5;?;200;blue\x07",
       "\x1b]104;3;200" + rst},
      {"queries only (a theme probe)", "\x1b]11;?\x07\x1b]10;?\x1b\\\x1b]4;0;?\x07", ""},
      {"OSC 10 with three fields: fg, bg, cursor", "\x1b]10;red;blue;?\x07",
       "\x1b]110" + rst + "\x1b]111" + rst},
      {"the child reset what it set", "\x1b]4;1;red\x07\x1b]104\x07\x1b]12;pink\x07\x1b]112\x1b\\",
       ""},
      {"the child reset one entry of two", "\x1b]4;1;red;2;blue\x07\x1b]104;1\x07",
       "\x1b]104;2" + rst},
      {"an entry past 255: all of them", "\x1b]4;300;red\x07", "\x1b]104" + rst},
      {"highlight colours (17, 19)", "\x1b]17;gray\x07\x1b]19;black\x07",
       "\x1b]117" + rst + "\x1b]119" + rst},
      {"other OSCs are not colours", "\x1b]7;file:///x\x07\x1b]52;c;aGk=\x07\x1b]8;;http://a\x07x", ""},
      {"an OSC 4 longer than kept: all entries", "\x1b]4;" + std::string(300, '1') + ";red\x07",
       "\x1b]104" + rst},
      {"a reset longer than kept: what it reset is not known", "\x1b]4;1;red\x07\x1b]104;" +
       std::string(300, '2') + "\x07", "\x1b]104;1" + rst},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    check_all_splits(c.in, c.undo);
    // Among text and other sequences, as a TUI writes them (the skimmed windows).
    check_all_splits("text \x1b[1;31mred\x1b[m \x1b[5;5H" + c.in + " \x1b[2Kmore", c.undo);
  }
}

TEST_CASE("term tracker: an open colour OSC that the undo's CAN ends is reset too", "[term]") {
  // (Found by fuzz_term: a terminal may act on an OSC that CAN ends, as tmux does.)
  check_all_splits("\x1b]4;1;red", "\x18\x1b]104;1\x1b\\");
  check_all_splits("\x1b]11;blue", "\x18\x1b]111\x1b\\");
}

TEST_CASE("term tracker: the colours the child set are set again on fg", "[term]") {
  Tracker child = fed({"\x1b]4;3;#123456\x07\x1b]12;pink\x07\x1b]11;?\x07"});
  std::string r = reapply(child);
  CHECK(r == "\x1b]4;3;#123456\x1b\\\x1b]12;pink\x1b\\");
  Tracker term = child;
  term.feed(undo(child));
  CHECK_FALSE(term.colours().changed());
  term.feed(r);
  CHECK(term.colours() == child.colours());
}
