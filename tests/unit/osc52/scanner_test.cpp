// The OSC 52 scanner, table-driven: every case is fed whole, split at every byte boundary, and
// byte by byte, and must give the same output and the same events each way.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "osc52/scanner.hpp"

using namespace blaude::osc52;
using namespace std::string_literals;

namespace {

struct Ev {
  Outcome outcome;
  std::string selection;
  std::string payload;
  Wrap wrap = Wrap::None;
  bool operator==(const Ev& o) const {
    return outcome == o.outcome && selection == o.selection && payload == o.payload &&
           wrap == o.wrap;
  }
};

struct Result {
  std::string out;
  std::vector<Ev> events;
};

Result run(const std::vector<std::string>& parts, ScannerLimits lim = {}) {
  Scanner s(lim);
  Result r;
  std::vector<Sequence> ev;
  for (const auto& p : parts) s.feed(p, 0, r.out, ev);
  s.finish(r.out, ev);
  for (auto& e : ev) r.events.push_back({e.outcome, e.selection, e.payload, e.wrap});
  CHECK(s.idle());
  return r;
}

// Feeds `in` whole, at every split point and byte by byte; all must agree with `want`.
void check_all_splits(const std::string& in, const Result& want, ScannerLimits lim = {}) {
  Result whole = run({in}, lim);
  CHECK(whole.out == want.out);
  CHECK(whole.events == want.events);
  for (size_t i = 1; i < in.size(); ++i) {
    Result r = run({in.substr(0, i), in.substr(i)}, lim);
    INFO("split at " << i);
    CHECK(r.out == want.out);
    CHECK(r.events == want.events);
  }
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  Result b = run(bytes, lim);
  CHECK(b.out == want.out);
  CHECK(b.events == want.events);
}

const auto C = Outcome::Complete;

struct Case {
  const char* name;
  std::string in;
  std::string out;
  std::vector<Ev> events;
};

}  // namespace

TEST_CASE("osc52 scanner: table of inputs at every split point", "[osc52]") {
  ScannerLimits lim;
  lim.max_payload = 16;  // small caps so that every split of an oversized case stays cheap
  lim.max_selection = 4;
  const std::string b64 = "aGVsbG8=";  // "hello"
  std::vector<Case> cases = {
      {"plain text", "hello, world\r\n", "hello, world\r\n", {}},
      {"UTF-8 text", "h\xc3\xa9llo \xe2\x9c\x93", "h\xc3\xa9llo \xe2\x9c\x93", {}},
      {"BEL terminator", "a\x1b]52;c;" + b64 + "\ab", "ab", {{C, "c", b64}}},
      {"ST terminator", "a\x1b]52;c;" + b64 + "\x1b\\b", "ab", {{C, "c", b64}}},
      {"empty Pc", "\x1b]52;;" + b64 + "\a", "", {{C, "", b64}}},
      {"Pc p", "\x1b]52;p;" + b64 + "\a", "", {{C, "p", b64}}},
      {"Pc s", "\x1b]52;s;" + b64 + "\a", "", {{C, "s", b64}}},
      {"Pc q", "\x1b]52;q;" + b64 + "\a", "", {{C, "q", b64}}},
      {"Pc cut buffer", "\x1b]52;0;" + b64 + "\a", "", {{C, "0", b64}}},
      {"Pc too long", "\x1b]52;cpqs0123;" + b64 + "\a", "", {{Outcome::Oversized, "cpqs", ""}}},
      {"read request", "x\x1b]52;c;?\ay", "xy", {{C, "c", "?"}}},
      {"invalid base64 is still intercepted", "\x1b]52;c;@@@\a", "", {{C, "c", "@@@"}}},
      {"CR/LF inside the payload skipped", "\x1b]52;c;aGVs\r\nbG8=\a", "", {{C, "c", b64}}},
      {"CAN aborts", "x\x1b]52;c;" + b64 + "\x18y", "xy", {{Outcome::Aborted, "c", ""}}},
      {"SUB aborts", "x\x1b]52;c;" + b64 + "\x1ay", "xy", {{Outcome::Aborted, "c", ""}}},
      {"ESC [ aborts and starts a CSI", "x\x1b]52;c;aGk=\x1b[31my", "x\x1b[31my",
       {{Outcome::Aborted, "c", ""}}},
      {"ESC ] aborts and starts a title", "\x1b]52;c;aGk=\x1b]0;t\a", "\x1b]0;t\a",
       {{Outcome::Aborted, "c", ""}}},
      {"ESC ] 52 aborts and starts another", "\x1b]52;c;AAAA\x1b]52;p;aGk=\a", "",
       {{Outcome::Aborted, "c", ""}, {C, "p", "aGk="}}},
      {"no data field", "\x1b]52;c\a.", ".", {{Outcome::Malformed, "c", ""}}},
      {"oversized payload", "a\x1b]52;c;" + std::string(40, 'A') + "\ab", "ab",
       {{Outcome::Oversized, "c", ""}}},
      {"payload at the cap", "\x1b]52;c;" + std::string(16, 'A') + "\a", "",
       {{C, "c", std::string(16, 'A')}}},
      {"OSC 0 title untouched", "\x1b]0;my title\a", "\x1b]0;my title\a", {}},
      {"OSC 8 link untouched", "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\",
       "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\", {}},
      {"OSC 5 / 521 / 52x untouched", "\x1b]5;a\a\x1b]521;b\a\x1b]52x\a",
       "\x1b]5;a\a\x1b]521;b\a\x1b]52x\a", {}},
      {"CSI untouched", "\x1b[1;31mred\x1b[0m\x1b[?2004h", "\x1b[1;31mred\x1b[0m\x1b[?2004h", {}},
      {"bare ESCs untouched", "\x1b\x1b" "7\x1b", "\x1b\x1b" "7\x1b", {}},
      {"ESC before a sequence", "\x1b\x1b]52;c;aGk=\a", "\x1b", {{C, "c", "aGk="}}},
      {"near misses of the openings untouched",
       "\x1b]5\a\x1b]53;x\a\x1bPt\x1b\\\x1bPtmux\x1b\\\x1bP\x1b[1m\x1b\\\x1bPtmux;\x1b]52;c;aGk=\a",
       "\x1b]5\a\x1b]53;x\a\x1bPt\x1b\\\x1bPtmux\x1b\\\x1bP\x1b[1m\x1b\\\x1bPtmux;",
       {{C, "c", "aGk="}}},
      {"other DCS untouched", "\x1bPq#0;2;0;0;0\x1b\\", "\x1bPq#0;2;0;0;0\x1b\\", {}},
      {"tmux passthrough of a CSI untouched", "\x1bPtmux;\x1b\x1b[1m\x1b\\",
       "\x1bPtmux;\x1b\x1b[1m\x1b\\", {}},
      {"tmux-wrapped, BEL", "a\x1bPtmux;\x1b\x1b]52;c;" + b64 + "\a\x1b\\b", "ab",
       {{C, "c", b64, Wrap::Tmux}}},
      {"tmux-wrapped, inner ST", "\x1bPtmux;\x1b\x1b]52;p;" + b64 + "\x1b\x1b\\\x1b\\", "",
       {{C, "p", b64, Wrap::Tmux}}},
      {"tmux-wrapped, DCS closed early", "\x1bPtmux;\x1b\x1b]52;c;aGk=\x1b\\z", "z",
       {{Outcome::Aborted, "c", "", Wrap::Tmux}}},
      {"screen-wrapped", "\x1bP\x1b]52;c;" + b64 + "\a\x1b\\.", ".",
       {{C, "c", b64, Wrap::Screen}}},
      {"screen-wrapped in chunks", "\x1bP\x1b]52;c;aGVs\x1b\\\x1bPbG8=\a\x1b\\", "",
       {{C, "c", b64, Wrap::Screen}}},
      {"wrapped, closing ST missing", "\x1bP\x1b]52;c;aGk=\a\x1b[0m", "\x1b[0m",
       {{C, "c", "aGk=", Wrap::Screen}}},
      {"UTF-8 around and in a sequence",
       "\xc3\xa9\x1b]52;c\xc3\xa9;w6k=\a\xe2\x9c\x93", "\xc3\xa9\xe2\x9c\x93",
       {{C, "c\xc3\xa9", "w6k="}}},
      {"unterminated at the end", "ok\x1b]52;c;aGk=", "ok", {{Outcome::Unterminated, "c", ""}}},
      {"held prefix released at the end", "ok\x1b]5", "ok\x1b]5", {}},
  };
  for (const Case& c : cases) {
    SECTION(c.name) { check_all_splits(c.in, {c.out, c.events}, lim); }
  }
}

TEST_CASE("osc52 scanner: a 2 MiB payload is discarded, not shown", "[osc52]") {
  std::string in = "before\x1b]52;c;" + std::string(2 * 1024 * 1024, 'Q') + "\aafter";
  Result whole = run({in});
  CHECK(whole.out == "beforeafter");
  REQUIRE(whole.events.size() == 1);
  CHECK(whole.events[0].outcome == Outcome::Oversized);
  std::vector<std::string> chunks;
  for (size_t i = 0; i < in.size(); i += 4093) chunks.push_back(in.substr(i, 4093));
  Result chunked = run(chunks);
  CHECK(chunked.out == whole.out);
  CHECK(chunked.events == whole.events);
  // Exactly at the 1 MiB cap is still accepted.
  std::string at_cap = "\x1b]52;c;" + std::string(1024 * 1024, 'Q') + "\a";
  Result r = run({at_cap});
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].outcome == Outcome::Complete);
}

TEST_CASE("osc52 scanner: a held prefix waits for the next byte, however long", "[osc52]") {
  Scanner s;
  std::string out;
  std::vector<Sequence> ev;
  CHECK(s.next_deadline_ms() == -1);
  s.feed("ab\x1b]5", 100, out, ev);
  CHECK(out == "ab");
  CHECK(s.next_deadline_ms() == -1);  // no timer: an incomplete escape shows nothing anyway
  s.tick(100000, out, ev);
  CHECK(out == "ab");
  // The rest, 200 ms (or minutes) later, still makes a sequence: it is intercepted.
  s.feed("2;c;aGk=\a", 200100, out, ev);
  CHECK(out == "ab");
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].outcome == Outcome::Complete);
  CHECK(ev[0].payload == "aGk=");
}

TEST_CASE("osc52 scanner: the next read resolves a held prefix", "[osc52]") {
  Scanner s;
  std::string out;
  std::vector<Sequence> ev;
  s.feed("\x1b", 0, out, ev);
  CHECK(out.empty());
  s.feed("[1m", 5, out, ev);  // a CSI: released at once, no need to wait for the deadline
  CHECK(out == "\x1b[1m");
  CHECK(s.next_deadline_ms() == -1);
}

TEST_CASE("osc52 scanner: an unterminated sequence is dropped after 5 s", "[osc52]") {
  Scanner s;
  std::string out;
  std::vector<Sequence> ev;
  s.feed("x\x1b]52;c;aGk", 1000, out, ev);
  CHECK(s.next_deadline_ms() == 6000);
  s.tick(5999, out, ev);
  CHECK(ev.empty());
  s.tick(6000, out, ev);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].outcome == Outcome::TimedOut);
  CHECK(s.idle());
  s.feed("=\ay", 6001, out, ev);
  CHECK(out == "x=\ay");
  // A feed that arrives after the deadline, before any tick, expires the sequence first.
  Scanner t;
  std::string out2;
  std::vector<Sequence> ev2;
  t.feed("\x1b]52;c;aG", 0, out2, ev2);
  t.feed("k=\a", 7000, out2, ev2);
  REQUIRE(ev2.size() == 1);
  CHECK(ev2[0].outcome == Outcome::TimedOut);
  CHECK(out2 == "k=\a");
}

// Random streams built from segments whose fate is known: the output must be the input minus
// the intercepted sequences, however the stream is cut into reads.
TEST_CASE("osc52 scanner: output = input minus the intercepted sequences", "[osc52]") {
  const std::vector<std::string> others = {
      "\x1b[0m", "\x1b[38;5;208m", "\x1b[?25l", "\x1b" "7", "\x1b]0;title\a", "\x1b]8;;u\x1b\\",
      "\x1b]52x\a", "\x1bPq#0\x1b\\", "\x1bPtmux;\x1b\x1b[1m\x1b\\", "\x1b]5;x\x1b\\", "\x1b(B",
  };
  const std::vector<std::string> seqs = {
      "\x1b]52;c;aGk=\a", "\x1b]52;;aGk=\x1b\\", "\x1b]52;p;?\a", "\x1b]52;c;a\r\nGk=\a",
      "\x1b]52;c;aG\x18", "\x1bPtmux;\x1b\x1b]52;c;aGk=\a\x1b\\", "\x1bP\x1b]52;c;aGk=\a\x1b\\",
      "\x1b]52;c;" + std::string(300, 'A') + "\a",
  };
  std::mt19937 rng(12345);
  ScannerLimits lim;
  lim.max_payload = 256;
  for (int round = 0; round < 300; ++round) {
    std::string in, want;
    size_t intercepted = 0;
    int segs = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < segs; ++k) {
      switch (rng() % 3) {
        case 0: {  // text: any byte but ESC (C0 and UTF-8 fragments included)
          std::string t;
          for (int n = static_cast<int>(rng() % 20); n > 0; --n) {
            char c = static_cast<char>(rng() % 256);
            if (c != '\x1b') t.push_back(c);
          }
          in += t;
          want += t;
          break;
        }
        case 1: {
          const std::string& o = others[rng() % others.size()];
          in += o;
          want += o;
          break;
        }
        default:
          in += seqs[rng() % seqs.size()];
          ++intercepted;
      }
    }
    std::vector<std::string> parts;
    for (size_t i = 0; i < in.size();) {
      size_t n = 1 + rng() % 9;
      parts.push_back(in.substr(i, n));
      i += n;
    }
    Result r = run(parts, lim);
    INFO("round " << round);
    CHECK(r.out == want);
    CHECK(r.events.size() == intercepted);
  }
}
