// The OSC 52 filter as the session drives it (pass() first, feed() on the rest), with the
// terminal state tracker observing: the tracker must end exactly where a tracker fed the
// filter's whole output ends. The bytes pass() leaves in the session's queue never go through
// the scanner, so a filter that forgot to hand them over would leave the mode changes in them
// unseen (and the session's undo would miss them).
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "osc52/filter.hpp"
#include "term/emit.hpp"
#include "term/tracker.hpp"

using namespace blaude;

namespace {

struct Dropped : osc52::Sink {
  int copies = 0;
  void copy(osc52::Copy) override { ++copies; }
};

struct Run {
  std::string out;        // what the session would write to the terminal
  term::Tracker tracker;  // fed by the filter only
};

void drive(pty::OutputFilter& f, Run& r, const std::vector<std::string>& reads) {
  REQUIRE(f.observe_with(&r.tracker));
  uint64_t now = 0;
  for (const auto& x : reads) {
    size_t k = f.pass(x, ++now);
    REQUIRE(k <= x.size());
    r.out.append(x, 0, k);
    f.feed(std::string_view(x).substr(k), now, r.out);
  }
  f.finish(r.out);
}

std::unique_ptr<pty::OutputFilter> filter(bool intercept) {
  osc52::ClipboardLimits lim;
  if (!intercept) return osc52::make_filter(nullptr, lim);
  return osc52::make_filter(std::make_unique<Dropped>(), lim);
}

// The tracker the filter showed its tokens to, and one fed the filter's output as bytes (its own
// state machine), agree on everything the undo and the reapply are made of.
void check_same(const term::Tracker& a, const term::Tracker& b) {
  CHECK(a.state() == b.state());
  CHECK(a.colours() == b.colours());
  CHECK(a.title().set == b.title().set);
  CHECK(a.title().code == b.title().code);
  CHECK(a.title().view() == b.title().view());
  CHECK(term::undo(a) == term::undo(b));
  CHECK(term::reapply(a) == term::reapply(b));
  CHECK(a.mid_sequence() == b.mid_sequence());
}

void check(const std::vector<std::string>& reads, bool intercept) {
  Run r;
  auto f = filter(intercept);
  drive(*f, r, reads);
  term::Tracker direct;
  direct.feed(r.out, 1);
  check_same(r.tracker, direct);
}

}  // namespace

TEST_CASE("osc52 filter: the tracker sees the bytes pass() leaves in place") {
  for (bool intercept : {false, true}) {
    Run r;
    auto f = filter(intercept);
    // All of it takes the fast path: no OSC 52, no ESC at the end of the read.
    drive(*f, r, {"\x1b[?1049h\x1b[?1000h\x1b[?25l hello"});
    CHECK(r.out == "\x1b[?1049h\x1b[?1000h\x1b[?25l hello");
    CHECK(r.tracker.state().alt == 1049);
    CHECK(r.tracker.state().mouse == 1000);
    CHECK(!term::undo(r.tracker).empty());
  }
}

TEST_CASE("osc52 filter: tracker through pass() and feed() equals a tracker fed the output") {
  const std::vector<std::string> pieces = {
      "\x1b[?1049h", "\x1b[?1000h", "\x1b[?1006h", "\x1b[?2004h", "\x1b[?25l", "\x1b[>1u",
      "\x1b[<u",     "\x1b[1;31m",  "\x1b[0m",     "\x1b=",       "\x1b>",     "\x1b[22t",
      "\x1b]0;t\x07", "\x1b]52;c;aGk=\x07", "\x1b]52;c;?\x07", "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\",
      "\x1b]5",      "2;c;?\x07",   "\x1b",        "text ",       "\x18",      "\x1b[?1049l",
      "\x1b[?2026h", "\x1b[?1;7l",  "\x1b[2;20r",  "\x1b[5 q",    "\x1bP",     "q#0\x1b\\"};
  std::mt19937 rng(11);
  for (int round = 0; round < 3000; ++round) {
    std::string stream;
    int n = 1 + static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) stream += pieces[rng() % pieces.size()];
    std::vector<std::string> reads;
    for (size_t i = 0; i < stream.size();) {
      size_t k = 1 + rng() % 17;
      reads.push_back(stream.substr(i, k));
      i += k;
    }
    INFO("round " << round);
    check(reads, round % 2 == 0);
  }
}

// The tracker is shown the firewall's tokens and the windows its lexer ran; the one check() feeds
// the filter's output runs its own state machine: on these streams too, however they are read.
namespace {

std::vector<std::string> cut(const std::string& s, std::mt19937& rng, size_t most) {
  std::vector<std::string> reads;
  for (size_t i = 0; i < s.size();) {
    size_t k = 1 + rng() % most;
    reads.push_back(s.substr(i, k));
    i += k;
  }
  return reads;
}

// ptybench's escapes payload: SGR colours, cursor moves, erases, titles (BEL and ST), links.
std::string escapes_shape(size_t bytes, std::mt19937& rng) {
  std::string s;
  char b[128];
  while (s.size() < bytes) {
    unsigned x = rng() % 256, y = rng() % 80;
    int n = 0;
    switch (rng() % 9) {
      case 0: n = std::snprintf(b, sizeof b, "\x1b[38;5;%umsome text ", x); break;
      case 1: n = std::snprintf(b, sizeof b, "\x1b[%u;%uHsome text ", 1 + x % 50, 1 + y); break;
      case 2: n = std::snprintf(b, sizeof b, "\x1b[0msome text "); break;
      case 3: n = std::snprintf(b, sizeof b, "\x1b[K\r\n"); break;
      case 4: n = std::snprintf(b, sizeof b, "\x1b[1;4%umsome text ", x % 8); break;
      case 5: n = std::snprintf(b, sizeof b, "\x1b[%uA\x1b[%uC", 1 + x % 9, 1 + y % 80); break;
      case 6: n = std::snprintf(b, sizeof b, y % 2 ? "\x1b]0;task %u\x07" : "\x1b]0;task %u\x1b\\", x); break;
      case 7: n = std::snprintf(b, sizeof b, "\x1b]8;;https://example.invalid/%u\x1b\\link\x1b]8;;\x1b\\", x); break;
      default: n = std::snprintf(b, sizeof b, "some text some text ");
    }
    s.append(b, static_cast<size_t>(n));
  }
  return s;
}

// A Claude Code-like redraw: synchronized output around it, the cursor hidden, lines erased
// and rewritten in colour with box drawing and its prompt, the title, and now and then the
// modes a TUI turns on and off (and sequences the firewall drops among them).
std::string tui_redraw(std::mt19937& rng) {
  static const std::vector<std::string> parts = {
      "\x1b[2K\x1b[1A", "\x1b[G", "\x1b[38;2;215;119;87m\xe2\x9c\xbb\x1b[39m ",
      "\x1b[1mClaude\x1b[22m", "\x1b[2m\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\x1b[22m",
      "\x1b[38;5;246m\xe2\x9d\xaf \x1b[39m", "\x1b[7m \x1b[27m", "\r\n", "text of the answer ",
      "\x1b]0;\xe2\x9c\xb3 Claude Code\x07", "\x1b]0;task\x1b\\", "\x1b[?2004h", "\x1b[?1004h",
      "\x1b[>1u", "\x1b[<u", "\x1b[?25h", "\x1b[?1049h", "\x1b[?1049l", "\x1b[>4;2m",
      "\x1b]8;;https://example.com/a\x1b\\link\x1b]8;;\x1b\\", "\x1b]11;?\x1b\\",
      "\x1b]4;1;rgb:ff/00/00\x07", "\x1b]104;1\x07", "\x1b]10;red\x1b\\", "\x1b]110\x07",
      "\x1b]7;file:///tmp\x07", "\x1b]52;c;aGk=\x07", "\x1b]8;;file:///etc\x1b\\x\x1b]8;;\x1b\\",
      "\x1b[22;0t", "\x1b[23;0t", "\x1b[21t", "\x1b[1;2;3m", "\x1b[m", "\x1b(0qq\x1b(B",
      "\x0e\x0f", "\x1b" "7\x1b" "8", "\x1b[s\x1b[u", "\x1b[3;20r", "\x1b[r", "\x1b[5 q",
      "\x05", "\x9b" "1m", "\x1bPq#0\x1b\\", "\x1b_Ga=q;\x1b\\", "\x1b]2;t\tab\x07"};
  std::string s = "\x1b[?2026h\x1b[?25l";
  const int n = 20 + static_cast<int>(rng() % 60);
  for (int i = 0; i < n; ++i) s += parts[rng() % parts.size()];
  return s + "\x1b[?25h\x1b[?2026l";
}

}  // namespace

TEST_CASE("osc52 filter: the tracker shown tokens equals one fed the output, on ptybench's shapes") {
  std::mt19937 rng(5);
  std::string text;
  for (int i = 0; text.size() < 65536; ++i) text += static_cast<char>('!' + rng() % 94);
  const std::string esc = escapes_shape(65536, rng);
  for (const std::string& s : {text, esc}) {
    for (bool intercept : {false, true}) {
      std::vector<std::string> reads;
      for (size_t i = 0; i < s.size(); i += 4095) reads.push_back(s.substr(i, 4095));
      check(reads, intercept);
      check(cut(s, rng, 300), intercept);
      check(cut(s, rng, 9), intercept);
    }
  }
}

TEST_CASE("osc52 filter: the tracker shown tokens equals one fed the output, on TUI redraws") {
  std::mt19937 rng(7);
  for (int round = 0; round < 400; ++round) {
    std::string s;
    for (int k = 0; k < 3; ++k) s += tui_redraw(rng);
    INFO("round " << round);
    check({s}, round % 2 == 0);
    check(cut(s, rng, round % 3 == 0 ? 7 : 700), round % 2 == 1);
  }
}

TEST_CASE("osc52 filter: the tracker shown tokens equals one fed the output, at every split") {
  const std::vector<std::string> inputs = {
      "\x1b[?1049h\x1b[?1000h\x1b[?2004h\x1b[?25l",
      "\x1b[1m\x1b" "7\x1b[0m\x1b" "8",
      "\x1b[1;31mred\x1b[m \x1b[5;5H\x1b]4;1;#ff0000\x07\x1b]11;rgb:0/0/0\x1b\\ \x1b[2Kmore",
      "\x1b]4;3;red;5;?;200;blue\x07\x1b]104;3\x07\x1b]12;pink\x07",
      "\x1b]0;title\x07x\x1b]2;other\x1b\\\x1b[38;5;9m",
      "\x1b]0;a\x1b]7;file:///x\x07\x1b]0;b\x07",
      "\x1b]2;t\x01\x02x\x07\x1b]10;\x03red\x07",
      "\x1b[?10\n49h\x1b[?1000h",
      "\x1b[>1u\x1b[>3u\x1b[<u\x1b[=5;1u",
      "\x1b[22;0t\x1b[22;2t\x1b[23t\x1b[8;24;80t",
      "\x1b)0\x0e\x1b(0\x0f\x0e",
      "\x1b[?1;7l\x1b[2;20r\x1b[5 q\x1b[!p",
      "\x1bPtmux;\x1b\x1b[?1049h\x1b\\\x1b[?1000h",
      "\x1b]8;;https://a/\x1b\\l\x1b]8;;\x1b\\\x1b[1m\x1b]0;t\x07\x1b[22m\x1b]52;c;?\x07\x1b[4m",
      "\x1b]4;" + std::string(300, '1') + ";red\x07\x1b]0;" + std::string(300, 'x') + "\x07",
      "\xe2\x9d\xaf \x1b[1m\xe2\x94\x80\x9b" "1m\x1b[m\x05",
  };
  for (const std::string& in : inputs) {
    INFO(in);
    for (bool intercept : {false, true}) {
      check({in}, intercept);
      for (size_t i = 1; i < in.size(); ++i) check({in.substr(0, i), in.substr(i)}, intercept);
      std::vector<std::string> bytes;
      for (char c : in) bytes.emplace_back(1, c);
      check(bytes, intercept);
    }
  }
}
