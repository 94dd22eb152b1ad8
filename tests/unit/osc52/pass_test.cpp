// Scanner::pass_through, the zero-copy fast path of the session's output: passing its prefix
// and feeding only the rest must show exactly what feeding everything shows, with the same
// events, however the stream is cut into reads.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "osc52/scanner.hpp"

using namespace blaude::osc52;

namespace {

struct Run {
  std::string out;
  std::vector<Sequence> ev;
  size_t passed = 0;  // bytes that took the fast path
};

Run feed_all(const std::vector<std::string>& reads) {
  Scanner s;
  Run r;
  for (const auto& x : reads) s.feed(x, 0, r.out, r.ev);
  s.finish(r.out, r.ev);
  return r;
}

Run pass_then_feed(const std::vector<std::string>& reads) {
  Scanner s;
  Run r;
  for (const auto& x : reads) {
    size_t k = s.pass_through(x);
    REQUIRE(k <= x.size());
    r.out.append(x, 0, k);
    r.passed += k;
    s.feed(std::string_view(x).substr(k), 0, r.out, r.ev);
  }
  s.finish(r.out, r.ev);
  return r;
}

void check_same(const std::vector<std::string>& reads) {
  Run a = feed_all(reads), b = pass_then_feed(reads);
  CHECK(a.out == b.out);
  REQUIRE(a.ev.size() == b.ev.size());
  for (size_t i = 0; i < a.ev.size(); ++i) {
    CHECK(a.ev[i].outcome == b.ev[i].outcome);
    CHECK(a.ev[i].payload == b.ev[i].payload);
    CHECK(a.ev[i].selection == b.ev[i].selection);
    CHECK(a.ev[i].wrap == b.ev[i].wrap);
  }
}

}  // namespace

TEST_CASE("pass_through: plain text and ordinary escapes pass whole") {
  Scanner s;
  CHECK(s.pass_through("hello world") == 11);
  const std::string tui = "\x1b[1;31mred\x1b[0m \x1b]0;title\x07 \x1b(B";
  CHECK(s.pass_through(tui) == tui.size());
  CHECK(s.pass_through("") == 0);
}

TEST_CASE("pass_through: stops before what could be ours or cannot be decided yet") {
  Scanner s;
  CHECK(s.pass_through("ab\x1b]52;c;aGk=\x07") == 2);
  CHECK(s.pass_through("ab\x1bPtmux;") == 2);
  CHECK(s.pass_through("ab\x1b\x1b") == 2);
  CHECK(s.pass_through("text\x1b") == 4);      // an ESC at the very end of a read
  CHECK(s.pass_through("text\x1b]") == 4);     // ... or one byte before it
  CHECK(s.pass_through("text\x1bP") == 4);
  CHECK(s.pass_through("text\x1b[") == 6);     // decided by its second byte: CSI
  CHECK(s.pass_through("text\x1b[m") == 7);
}

TEST_CASE("pass_through: nothing passes while a prefix is held or a sequence is open") {
  Scanner s;
  std::string out;
  std::vector<Sequence> ev;
  s.feed("x\x1b]5", 0, out, ev);
  CHECK(out == "x");
  CHECK(s.pass_through("plain") == 0);
  s.feed("2;c;", 0, out, ev);
  CHECK(s.pass_through("aGk=") == 0);
  s.feed("aGk=\x07", 0, out, ev);
  CHECK(s.pass_through("plain") == 5);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].outcome == Outcome::Complete);
}

TEST_CASE("pass_through then feed equals feed, for every cut of TUI output with OSC 52 in it") {
  const std::string in =
      "\x1b[1;31mred\x1b[0m \x1b]52;c;aGVsbG8=\x07 mid \x1b]0;t\x1b\\ "
      "\x1bPtmux;\x1b\x1b]52;c;d29ybGQ=\x07\x1b\\ tail \x1bP\x1b]52;p;eA==\x07\x1b\\ end\x1b";
  for (size_t i = 0; i <= in.size(); ++i) {
    for (size_t j = i; j <= in.size(); j += 3) {
      INFO("cuts at " << i << " and " << j);
      check_same({in.substr(0, i), in.substr(i, j - i), in.substr(j)});
    }
  }
}

TEST_CASE("pass_through then feed equals feed, random streams and reads") {
  std::mt19937 rng(12345);
  const std::string alphabet = "\x1b\x1b\x1b]]5522;;;PPt\\\x07\x18 abc[m0";
  for (int round = 0; round < 3000; ++round) {
    std::string in;
    size_t len = rng() % 200;
    for (size_t i = 0; i < len; ++i) in.push_back(alphabet[rng() % alphabet.size()]);
    std::vector<std::string> reads;
    for (size_t i = 0; i < in.size();) {
      size_t k = 1 + rng() % 40;
      reads.push_back(in.substr(i, k));
      i += k;
    }
    INFO("round " << round);
    check_same(reads);
  }
}

TEST_CASE("pass_through takes the fast path for nearly all of plain TUI output") {
  std::string chunk;
  while (chunk.size() < 4000) chunk += "\x1b[38;5;12mword\x1b[0m \x1b[3;4H";
  Run r = pass_then_feed({chunk, chunk, chunk});
  CHECK(r.out == chunk + chunk + chunk);
  CHECK(r.passed >= 3 * chunk.size() - 6);  // at most an ESC near each read's end is fed
}
