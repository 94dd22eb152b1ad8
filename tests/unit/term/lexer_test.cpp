// The escape-sequence lexer: the tokens of each input, and the same tokens whatever the split
// (whole, cut in two at every byte, cut in three, byte by byte).
#include <string>
#include <vector>

#include "catch.hpp"
#include "term/lexer.hpp"

using namespace blaude::term;
using namespace std::string_literals;

namespace {

// A token as text, adjacent text merged (a split cuts text into more tokens, nothing else).
std::vector<std::string> render(const std::vector<Token>& toks) {
  std::vector<std::string> r;
  for (const Token& t : toks) {
    if (t.kind == Tok::Text && !r.empty() && r.back().rfind("T:", 0) == 0) {
      r.back().append(t.bytes);
      continue;
    }
    std::string s = t.kind == Tok::Text ? "T:" : "K" + std::to_string(int(t.kind)) + "/" +
                                                      std::to_string(int(t.of)) + "/" +
                                                      std::to_string(int(t.why)) + "/" +
                                                      std::to_string(int(t.end)) +
                                                      (t.c1 ? "c1" : "") + (t.tmux ? "tmux" : "") +
                                                      "/" + std::to_string(t.length) + ":";
    s.append(t.bytes);
    r.push_back(s);
  }
  return r;
}

std::vector<std::string> lex(const std::vector<std::string>& parts, LexerLimits lim = {}) {
  Lexer lx(lim);
  std::vector<Token> toks;
  std::vector<std::string> r;
  for (const auto& p : parts) {
    lx.feed(p, 0, toks);
    // Token bytes live until the next call: render them now.
    for (auto& s : render(toks)) {
      if (s.rfind("T:", 0) == 0 && !r.empty() && r.back().rfind("T:", 0) == 0) r.back().append(s.substr(2));
      else r.push_back(s);
    }
    toks.clear();
  }
  lx.finish(toks);
  for (auto& s : render(toks)) r.push_back(s);
  return r;
}

std::vector<std::string> every_split(const std::string& in, LexerLimits lim = {}) {
  const auto whole = lex({in}, lim);
  for (size_t i = 1; i < in.size(); ++i) {
    INFO("split at " << i);
    CHECK(lex({in.substr(0, i), in.substr(i)}, lim) == whole);
    if (in.size() < 40)
      for (size_t j = i + 1; j < in.size(); ++j) {
        INFO("and at " << j);
        CHECK(lex({in.substr(0, i), in.substr(i, j - i), in.substr(j)}, lim) == whole);
      }
  }
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  CHECK(lex(bytes, lim) == whole);
  return whole;
}

Tok kind_of(const std::string& rendered) {
  if (rendered.rfind("T:", 0) == 0) return Tok::Text;
  return static_cast<Tok>(std::stoi(rendered.substr(1)));
}

}  // namespace

TEST_CASE("lexer: text and the sequences of a TUI, whatever the split") {
  const std::string in =
      "plain \x1b[1;31mred\x1b[0m\r\n\x1b[?2026h\x1b]0;title\x07\x1b]8;;https://x\x1b\\link"
      "\x1b]8;;\x1b\\\x1b" "7\x1b(B\x1b[>1u\x1b[2 q\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\end";
  auto r = every_split(in);
  REQUIRE(r.size() == 16);
  CHECK(r[0] == "T:plain ");
  CHECK(kind_of(r[1]) == Tok::Csi);
  CHECK(kind_of(r[6]) == Tok::Osc);
  CHECK(kind_of(r[10]) == Tok::Esc);
  CHECK(kind_of(r[14]) == Tok::Dcs);
  CHECK(r[14].find("tmux") != std::string::npos);
  CHECK(r[15] == "T:end");
}

TEST_CASE("lexer: the tokens put back together are the input") {
  const std::string in = "a\x1b[1mb\x1b]2;t\x1b\\c\x1bP+q544e\x1b\\d\x1b_Gf=1;AAAA\x1b\\e\x1b" "8";
  std::vector<Token> toks;
  Lexer whole;
  whole.feed(in, 0, toks);
  std::string got;
  for (const Token& t : toks) got.append(t.bytes);
  CHECK(got == in);
  CHECK(whole.idle());
}

TEST_CASE("lexer: UTF-8 text with bytes 0x80-0x9F inside characters stays text") {
  // ❯ E2 9D AF, ─ E2 94 80, ✜ E2 9C 9C, 😀 F0 9F 98 80, é C3 A9, Ġ C4 A0
  const std::string in = "\xe2\x9d\xaf \xe2\x94\x80\xe2\x94\x80 \xe2\x9c\x9c \xf0\x9f\x98\x80 \xc3\xa9";
  auto r = every_split(in + in + in);
  REQUIRE(r.size() == 1);
  CHECK(r[0] == "T:" + in + in + in);
  // And inside a title.
  auto t = every_split("\x1b]0;" + in + "\x07");
  REQUIRE(t.size() == 1);
  CHECK(kind_of(t[0]) == Tok::Osc);
}

TEST_CASE("lexer: 8-bit C1 introducers outside UTF-8 open the same sequences") {
  auto r = every_split("a\x9b" "1mb\x9d" "0;t\x9c" "c\x90q#0\x9c\x85z");
  REQUIRE(r.size() == 8);
  CHECK(kind_of(r[1]) == Tok::Csi);
  CHECK(r[1].find("c1") != std::string::npos);
  CHECK(kind_of(r[3]) == Tok::Osc);
  CHECK(kind_of(r[5]) == Tok::Dcs);
  CHECK(kind_of(r[6]) == Tok::Control);  // NEL 0x85 alone
  // After a truncated character (E2 then ASCII) 0x9B is a control again.
  auto t = every_split("\xe2x\x9b" "1m");
  REQUIRE(t.size() == 2);
  CHECK(kind_of(t[1]) == Tok::Csi);
  // A lead byte right before: continuation, text.
  auto u = every_split("\xe2\x9b" "1m");
  REQUIRE(u.size() == 1);
  CHECK(kind_of(u[0]) == Tok::Text);
}

TEST_CASE("lexer: an over-long sequence is broken, its bytes not returned, and what follows is") {
  LexerLimits lim;
  lim.max_control = 32;
  lim.max_string = 100;
  const std::string csi = "\x1b[" + std::string(200, '1') + "m";
  auto r = every_split("a" + csi + "b", lim);
  REQUIRE(r.size() == 3);
  CHECK(kind_of(r[1]) == Tok::Broken);
  CHECK(r[1].find("/203:") != std::string::npos);  // the length, counted
  CHECK(r[1].size() < 100);                         // a head only
  CHECK(r[2] == "T:b");
  const std::string osc = "\x1b]52;c;" + std::string(300, 'A') + "\x07";
  auto s = every_split(osc + "z", lim);
  REQUIRE(s.size() == 2);
  CHECK(kind_of(s[0]) == Tok::Broken);
  CHECK(s[1] == "T:z");
}

TEST_CASE("lexer: ESC, CAN and a C0 control break sequences; a string must end properly") {
  auto r = every_split("\x1b]0;abc\x1b[1m");  // the ESC ends the OSC (broken) and opens a CSI
  REQUIRE(r.size() == 2);
  CHECK(kind_of(r[0]) == Tok::Broken);
  CHECK(kind_of(r[1]) == Tok::Csi);
  auto c = every_split("\x1b[1\x18x");
  REQUIRE(c.size() == 3);
  CHECK(kind_of(c[0]) == Tok::Broken);
  CHECK(kind_of(c[1]) == Tok::Control);
  CHECK(c[2] == "T:x");
  auto e = every_split("\x1b[1\x05m");  // ENQ inside: its own token, the CSI broken
  REQUIRE(e.size() == 2);
  CHECK(kind_of(e[0]) == Tok::Control);
  CHECK(kind_of(e[1]) == Tok::Broken);
  auto d = every_split("\x1bP$qm\x07more\x1b\\");  // BEL does not end a DCS
  REQUIRE(d.size() == 1);
  CHECK(kind_of(d[0]) == Tok::Dcs);
}

TEST_CASE("lexer: a held sequence times out and ends unterminated") {
  Lexer lx;
  std::vector<Token> toks;
  lx.feed("x\x1b]0;ti", 1000, toks);
  CHECK(!lx.idle());
  CHECK(lx.next_deadline_ms() == 6000);
  toks.clear();
  lx.tick(5999, toks);
  CHECK(toks.empty());
  lx.tick(6000, toks);
  REQUIRE(toks.size() == 1);
  CHECK(toks[0].kind == Tok::Broken);
  CHECK(toks[0].why == Why::TimedOut);
  CHECK(toks[0].bytes == "\x1b]0;ti");
  CHECK(lx.idle());
  toks.clear();
  lx.feed("tle\x07", 6001, toks);  // the rest is text now (BEL too: only ESC and ENQ stop text)
  REQUIRE(toks.size() == 1);
  CHECK(toks[0].bytes == "tle\x07");
  toks.clear();
  lx.feed("\x1b[", 7000, toks);
  lx.finish(toks);
  REQUIRE(toks.size() == 1);
  CHECK(toks[0].why == Why::Unterminated);
}

TEST_CASE("lexer: the parts of CSIs and DCSs") {
  Lexer lx;
  std::vector<Token> toks;
  lx.feed("\x1b[?2026h\x1b[1;2*y\x1b[1?h\x1bP$qm\x1b\\", 0, toks);
  REQUIRE(toks.size() == 4);
  CsiParts a = csi_parts(toks[0]);
  CHECK(a.valid);
  CHECK(a.marker == '?');
  CHECK(a.params == "2026");
  CHECK(a.final == 'h');
  CsiParts b = csi_parts(toks[1]);
  CHECK(b.interm == "*");
  CHECK(b.final == 'y');
  CHECK(!csi_parts(toks[2]).valid);
  DcsParts d = dcs_parts(toks[3]);
  CHECK(d.valid);
  CHECK(d.interm == "$");
  CHECK(d.final == 'q');
  CHECK(d.body == "m");
  CHECK(first_param("20;1") == 20);
  CHECK(first_param("") == -1);
}
