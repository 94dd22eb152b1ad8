// The OSC 52 scanner in pass-writes mode (no clipboard tool: writes reach the terminal as they
// came, read requests never do), the controls a terminal skips inside an opening, and the CAN
// that stands in for a removed sequence when the terminal was inside another one. Every case is
// fed whole, at every split point and byte by byte.
#include <string>
#include <vector>

#include "catch.hpp"
#include "osc52/scanner.hpp"
#include "term/tracker.hpp"

using namespace blaude::osc52;
using namespace std::string_literals;

namespace {

struct TrackerObserver : Observer {
  blaude::term::Tracker t;
  void observe(std::string_view b, uint64_t now) override { t.feed(b, now); }
  bool mid_sequence() const override { return t.mid_sequence(); }
};

struct Result {
  std::string out;
  size_t passed = 0, reads = 0, dropped = 0;
};

Result run(const std::vector<std::string>& parts, Mode mode, bool observe) {
  ScannerLimits lim;
  lim.mode = mode;
  Scanner s(lim);
  TrackerObserver obs;
  if (observe) s.set_observer(&obs);
  Result r;
  std::vector<Sequence> ev;
  for (const auto& p : parts) s.feed(p, 0, r.out, ev);
  s.finish(r.out, ev);
  CHECK(s.idle());
  for (const Sequence& e : ev) {
    if (e.passed) ++r.passed;
    else ++r.dropped;
    if (e.read_request) ++r.reads;
  }
  return r;
}

void check_all_splits(const std::string& in, const std::string& want, Mode mode,
                      bool observe = true) {
  auto same = [&](const Result& r) {
    CHECK(r.out == want);
    return r;
  };
  Result whole = same(run({in}, mode, observe));
  for (size_t i = 1; i < in.size(); ++i) {
    INFO("split at " << i);
    Result r = same(run({in.substr(0, i), in.substr(i)}, mode, observe));
    CHECK(r.passed == whole.passed);
    CHECK(r.reads == whole.reads);
  }
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  same(run(bytes, mode, observe));
}

struct Case {
  const char* name;
  std::string in;
  std::string out;
};

}  // namespace

TEST_CASE("osc52 pass-writes: writes pass byte for byte, reads never", "[osc52]") {
  const std::string w = "\x1b]52;c;aGk=\a";
  std::vector<Case> cases = {
      {"write, BEL", "a" + w + "b", "a" + w + "b"},
      {"write, ST", "a\x1b]52;p;aGk=\x1b\\b", "a\x1b]52;p;aGk=\x1b\\b"},
      {"empty write (clears the selection)", "\x1b]52;c;\a", "\x1b]52;c;\a"},
      {"write with CR/LF in the base64", "\x1b]52;c;aG\r\nk=\a", "\x1b]52;c;aG\r\nk=\a"},
      {"read request", "x\x1b]52;c;?\ay", "xy"},
      {"read request, ST", "x\x1b]52;;?\x1b\\y", "xy"},
      {"read request with more after ?", "x\x1b]52;c;?aGk=\ay", "xy"},
      {"read request after CR/LF", "x\x1b]52;c;\r\n?\ay", "xy"},
      {"no Pd, ? in Pc", "x\x1b]52;?\ay", "xy"},
      {"no Pd at all", "x\x1b]52;c\ay", "xy"},
      {"tmux-wrapped write", "\x1bPtmux;\x1b\x1b]52;c;aGk=\a\x1b\\z",
       "\x1bPtmux;\x1b\x1b]52;c;aGk=\a\x1b\\z"},
      {"tmux-wrapped write, inner ST", "\x1bPtmux;\x1b\x1b]52;c;aGk=\x1b\x1b\\\x1b\\z",
       "\x1bPtmux;\x1b\x1b]52;c;aGk=\x1b\x1b\\\x1b\\z"},
      {"tmux-wrapped read", "\x1bPtmux;\x1b\x1b]52;c;?\a\x1b\\z", "z"},
      {"screen-wrapped write in chunks", "\x1bP\x1b]52;c;aGVs\x1b\\\x1bPbG8=\a\x1b\\.",
       "\x1bP\x1b]52;c;aGVs\x1b\\\x1bPbG8=\a\x1b\\."},
      {"screen-wrapped read", "\x1bP\x1b]52;c;?\a\x1b\\.", "."},
      {"CAN inside a passing write goes to the terminal too", "x\x1b]52;c;aG\x18y",
       "x\x1b]52;c;aG\x18y"},
      {"CAN before Pd: dropped", "x\x1b]52;c\x18y", "xy"},
      {"ESC ends a passing write", "\x1b]52;c;aGk=\x1b[31mx", "\x1b]52;c;aGk=\x1b[31mx"},
      {"ESC ends a read", "\x1b]52;c;?\x1b[31mx", "\x1b[31mx"},
      {"unterminated write at the end", "\x1b]52;c;aGk=", "\x1b]52;c;aGk="},
      {"unterminated before Pd: dropped", "ok\x1b]52;c;", "ok"},
      {"Pc too long for a copy: dropped", "\x1b]52;" + std::string(300, 'c') + ";aGk=\a.", "."},
      {"a write of any length passes", "\x1b]52;c;" + std::string(5000, 'Q') + "\a",
       "\x1b]52;c;" + std::string(5000, 'Q') + "\a"},
      {"other OSCs untouched", "\x1b]0;t\a\x1b]5;x\a\x1b]521;y\a", "\x1b]0;t\a\x1b]5;x\a\x1b]521;y\a"},
      {"a control inside the opening: still a read", "x\x1b]5\x01" "2;c;?\ay", "xy"},
      {"a control after ESC", "x\x1b\x01]52;c;?\ay", "xy"},
      {"BEL after ESC is executed, not an end", "x\x1b\a]52;c;?\ay", "xy"},
      {"DEL after ESC is ignored by the terminal", "x\x1b\x7f]52;c;?\ay", "xy"},
      {"DEL in the OSC number is not", "\x1b]5\x7f" "2;c;?\a", "\x1b]5\x7f" "2;c;?\a"},
      {"BEL in the OSC number ends it", "\x1b]5\a" "2;c;?\a", "\x1b]5\a" "2;c;?\a"},
      {"a control inside the tmux opening", "\x1bP\x01tmux;\x1b\x1b]52;c;?\a\x1b\\z", "z"},
      {"a write with a control inside the opening passes as it came",
       "\x1b]5\x01" "2;c;aGk=\a", "\x1b]5\x01" "2;c;aGk=\a"},
      {"an opening padded with many controls is dropped",
       "\x1b]" + std::string(70, '\x01') + "52;c;?\a", std::string(7, '\x01') + "52;c;?\a"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) { check_all_splits(c.in, c.out, Mode::PassWrites); }
  }
}

TEST_CASE("osc52: a removed sequence never completes an opening the terminal began",
          "[osc52]") {
  // `ESC ] 5` is shown (the ESC after it is no `2`); the read request after it is removed.
  // Without the CAN the terminal would read `ESC ] 5` `2;c;?` BEL as a read request.
  const std::string join = "\x1b]5\x1b]52;c;?\a2;c;?\a";
  SECTION("pass-writes") { check_all_splits(join, "\x1b]5\x18" "2;c;?\a", Mode::PassWrites); }
  SECTION("intercept") { check_all_splits(join, "\x1b]5\x18" "2;c;?\a", Mode::Intercept); }
  SECTION("inside tmux passthrough") {
    check_all_splits("\x1bPtmux;\x1b\x1b]5\x1b]52;c;?\a2;c;?\a\x1b\\",
                     "\x1bPtmux;\x1b\x1b]5\x18" "2;c;?\a\x1b\\", Mode::PassWrites);
  }
  SECTION("an open title is ended the same way") {
    check_all_splits("\x1b]0;t\x1b]52;c;aGk=\ax", "\x1b]0;t\x18x", Mode::Intercept);
  }
  SECTION("padding dropped while the terminal is inside an OSC") {
    check_all_splits("\x1b]5\x1b]" + std::string(70, '\x01') + "2;c;?\a",
                     "\x1b]5\x18" + std::string(7, '\x01') + "2;c;?\a", Mode::PassWrites);
  }
  SECTION("no CAN when the terminal is at rest") {
    check_all_splits("a\x1b[1m\x1b]52;c;?\ab", "a\x1b[1mb", Mode::PassWrites);
  }
}

TEST_CASE("osc52 pass-writes: timing cannot turn a prefix into a read", "[osc52]") {
  ScannerLimits lim;
  lim.mode = Mode::PassWrites;
  std::vector<Sequence> ev;
  // A prefix, then the rest of a read request minutes later: still removed.
  Scanner a(lim);
  std::string out;
  a.feed("x\x1b]5", 0, out, ev);
  a.tick(600000, out, ev);
  a.feed("2;c;?\ay", 600000, out, ev);
  CHECK(out == "xy");
  // An undecided opening is dropped after 5 s; what comes later is text the terminal never
  // connects to it, since it never saw the opening.
  Scanner b(lim);
  out.clear();
  b.feed("\x1b]52;c;", 0, out, ev);
  CHECK(b.next_deadline_ms() == 5000);
  b.tick(5000, out, ev);
  b.feed("?\a", 5001, out, ev);
  CHECK(out == "?\a");
  // A write already on its way stays on its way.
  Scanner c(lim);
  out.clear();
  c.feed("\x1b]52;c;aG", 0, out, ev);
  c.feed("k=\a", 6000, out, ev);
  CHECK(out == "\x1b]52;c;aGk=\a");
}
