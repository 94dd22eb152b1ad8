// The terminal firewall by the table (docs/escape-firewall.md): what passes unchanged, what is
// dropped whole, and the same output whatever the split of the input.
#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "term/firewall.hpp"

using namespace blaude::term;
using namespace std::string_literals;

namespace {

std::string run(const std::vector<std::string>& parts, ClipboardMode mode, std::vector<Osc52>* clips = nullptr) {
  Firewall f(mode);
  std::string out;
  std::vector<Osc52> c;
  for (const auto& p : parts) f.feed(p, 0, out, c);
  f.finish(out, c);
  if (clips) *clips = c;
  return out;
}

// Whole, at every cut in two, byte by byte, and through pass() + feed() of the rest as the
// session calls them: all the same.
std::string filtered(const std::string& in, ClipboardMode mode = ClipboardMode::PassWrites) {
  const std::string whole = run({in}, mode);
  for (size_t i = 1; i < in.size(); ++i) {
    INFO("split at " << i);
    CHECK(run({in.substr(0, i), in.substr(i)}, mode) == whole);
  }
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  CHECK(run(bytes, mode) == whole);
  for (size_t step : {1u, 3u, 7u, 64u}) {
    Firewall f(mode);
    std::string out;
    std::vector<Osc52> c;
    for (size_t i = 0; i < in.size(); i += step) {
      std::string_view read = std::string_view(in).substr(i, step);
      size_t k = f.pass(read, 0, c);
      REQUIRE(k <= read.size());
      out.append(read.substr(0, k));
      if (k < read.size()) f.feed(read.substr(k), 0, out, c);
    }
    f.finish(out, c);
    INFO("pass() in reads of " << step);
    CHECK(out == whole);
  }
  return whole;
}

}  // namespace

TEST_CASE("firewall: Claude Code's own output passes unchanged") {
  const std::vector<std::string> keep = {
      "plain text\r\n",
      "\xe2\x9d\xaf \xe2\x94\x80\xe2\x94\x80 \xe2\x9c\x9c \xf0\x9f\x98\x80 caf\xc3\xa9",
      "\x1b[>1u\x1b[<u\x1b[?u\x1b[=1;1u\x1b[>31u\x1b[<1u",       // kitty keyboard protocol
      "\x1b[?2026h\x1b[?2026l",                                  // synchronized output
      "\x1b]0;\xe2\x9c\xb3 Claude\x07\x1b]2;title\x1b\\",           // titles
      "\x1b]8;;https://example.com/a?b\x1b\\link\x1b]8;;\x1b\\",  // OSC 8 http(s)
      "\x1b]8;id=1;HTTP://EXAMPLE.com\x07x\x1b]8;;\x07",
      "\x1b]9;4;1;50\x07\x1b]9;4;0;\x07\x1b]9;done\x07",          // progress, notification
      "\x1b]777;notify;title;body\x07\x1b]99;;hi\x1b\\",
      "\x1b[38;2;1;2;3m\x1b[48:5:12m\x1b[0m\x1b[1;4;31m",          // colours
      "\x1b[2 q\x1b[0 q\x1b[6 q",                                 // cursor shapes
      "\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l\x1b[?1004h\x1b[?2004h\x1b[K\x1b[5;10H\x1b[?1049l",
      "\x1b]52;c;aGVsbG8=\x07",                                  // OSC 52 write (pass-writes mode)
      "\x1b[c\x1b[>c\x1b[5n\x1b[6n\x1b[>0q\x1b[?2026$p",        // answered queries (fenced at exit)
      "\x1b]4;1;rgb:00/00/00\x07\x1b]11;?\x07\x1b]104\x07\x1b]110\x07",
      "\x1b[14t\x1b[16t\x1b[18t\x1b[22;0t\x1b[23;0t",
      "\x1bP$qm\x1b\\\x1bP$q q\x1b\\\x1bP+q544e;636f\x1b\\",      // DECRQSS known, XTGETTCAP hex
      "\x1b_Ga=T,f=100;AAAA\x1b\\",                               // kitty graphics, direct
      "\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\",                          // sixel
      "\x1b" "7\x1b" "8\x1b(B\x1b(0\x1b=\x1b>\x1b%G\x1b\\",
      "\x1bPtmux;\x1b\x1b]0;t\x07\x1b\\",                          // harmless inside tmux's wrapper
      "\x0e\x0f\x07\x08\t\x18\x1a",
  };
  for (const auto& s : keep) {
    INFO(s);
    CHECK(filtered(s) == s);
  }
}

TEST_CASE("firewall: reports and action channels of the table are dropped whole") {
  const std::vector<std::string> gone = {
      "\x1b[1;1;1;1;10;10*y",                        // DECRQCRA
      "\x1b[20t", "\x1b[21t", "\x1b[21;0t",          // title reports
      "\x1b[3;0;0t", "\x1b[8;100;100t", "\x1b[11t", "\x1b[13t", "\x1b[19t", "\x1b[24t",
      "\x1bP$qinvalid;rm -rf\x1b\\",                 // DECRQSS of no known setting
      "\x1bP+qhello world\x1b\\",                    // XTGETTCAP not hex
      "\x1bP1;1|17/616263\x1b\\",                    // DECUDK
      "\x1bP@kitty-cmd{\"cmd\":\"launch\"}\x1b\\",   // kitty remote control
      "\x1b]5113;ac=send;id=x\x1b\\",                 // kitty file transfer
      "\x1b]1337;File=name=eA==;inline=0:AAAA\x07",   // iTerm2
      "\x1b]1337;SetUserVar=a=b\x07",
      "\x1b]50;font\x07", "\x1b]7;file://host/tmp\x07",
      "\x1b]8;;file:///etc/passwd\x1b\\", "\x1b]8;;vscode://x\x07",
      "\x1b]3;WM_NAME=x\x07", "\x1b]133;A\x07", "\x1b]777;precmd\x07",
      "\x05",                                        // ENQ
      "\x1bPzunknown\x1b\\", "\x1b_Xunknown\x1b\\", "\x1b^pm\x1b\\", "\x1bXsos\x1b\\",
      "\x1bkscreen title\x1b\\",
      "\x1b_Ga=T,t=f;L2V0Yy9wYXNzd2Q=\x1b\\",          // kitty graphics from a host file
      "\x9b" "1m", "\x9d" "0;t\x9c", "\x90q#0\x9c", "\x9a",  // 8-bit C1 forms
      "\x1b%@", "\x1b G",                              // out of UTF-8, 8-bit replies
      "\x1b[5i", "\x1b[0i",                            // media copy
      "\x1bPtmux;\x1b\x1bP@kitty-cmd{}\x1b\x1b\\\x1b\\",   // inside tmux's passthrough
      "\x1bPtmux;\x1b\x1b[21t\x1b\\",
      "\x1b]0;unterminated",                           // never ended
      "\x1b]0;broken\x1b[m",                           // ESC inside: the OSC, not the CSI
      "\x1b[1\x18",                                    // cancelled: only the CAN
  };
  for (const auto& s : gone) {
    INFO(s);
    std::string out = filtered("a" + s + "b");
    if (s == "\x1b]0;unterminated") CHECK(out == "a");
    else if (s == "\x1b]0;broken\x1b[m") CHECK(out == "a\x1b[mb");
    else if (s == "\x1b[1\x18") CHECK(out == "a\x18" "b");
    else CHECK(out == "ab");
  }
}

TEST_CASE("firewall: OSC 52 goes to the clipboard code; reads never pass") {
  std::vector<Osc52> clips;
  CHECK(run({"a\x1b]52;c;aGk=\x07" "b"}, ClipboardMode::Intercept, &clips) == "ab");
  REQUIRE(clips.size() == 1);
  CHECK(clips[0].body == "52;c;aGk=");
  CHECK(!clips[0].read_request);
  CHECK(run({"a\x1b]52;c;?\x07" "b"}, ClipboardMode::PassWrites, &clips) == "ab");
  REQUIRE(clips.size() == 1);
  CHECK(clips[0].read_request);
  CHECK(filtered("\x1b]52;c;\r\n?\x07") == "");
  CHECK(filtered("\x1b]52;?\x07") == "");        // no Pd, a `?` in Pc
  CHECK(filtered("\x1b]52;c\x07") == "");         // no Pd at all
  const std::string tmux = "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\";
  CHECK(filtered(tmux) == tmux);
  CHECK(run({tmux}, ClipboardMode::Intercept, &clips).empty());
  REQUIRE(clips.size() == 1);
  CHECK(clips[0].tmux);
  CHECK(clips[0].body == "52;c;aGk=");
  CHECK(filtered("\x1bPtmux;\x1b\x1b]52;c;?\x07\x1b\\").empty());
}

TEST_CASE("firewall: the text between sequences is never changed, whatever is around it") {
  // Deterministic random streams over the bytes that matter; every split gives the same output,
  // and the output holds every byte of text that stood outside any sequence.
  const std::string alphabet = "\x1b\x1b\x1b[]P_^X\\;:?>=<0123456789mhltqyu*$+ |@kG#%\x07\x05\x18\x90\x9b\x9c\x9d\x80\xe2\xf0\xc3" "abc\n"s;
  uint32_t x = 12345;
  for (int n = 0; n < 300; ++n) {
    std::string in;
    const int len = 1 + n % 60;
    for (int i = 0; i < len; ++i) {
      x = x * 1103515245u + 12345u;
      in.push_back(alphabet[(x >> 16) % alphabet.size()]);
    }
    INFO("input " << n);
    std::string out = filtered(in);
    CHECK(filtered(in, ClipboardMode::Intercept).size() <= out.size());
    CHECK(out.size() <= in.size());
  }
}
