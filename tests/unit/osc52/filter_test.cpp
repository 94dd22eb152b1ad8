// OSC 52 through the terminal firewall, table-driven: every case is fed whole, split at every
// byte boundary, and byte by byte, and must give the same output and the same sequences for the
// clipboard code each way. The firewall drops what its table drops around them (unknown OSC
// numbers, unknown DCS, broken sequences); OSC 52 is the clipboard's.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "osc52/filter.hpp"

using namespace blaude;
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

Result run(const std::vector<std::string>& parts, ClipboardLimits lim = {}) {
  term::Firewall fw(lim.mode == Mode::PassWrites ? term::ClipboardMode::PassWrites
                                                 : term::ClipboardMode::Intercept);
  Result r;
  std::vector<term::Osc52> clips;
  for (const auto& p : parts) fw.feed(p, 0, r.out, clips);
  fw.finish(r.out, clips);
  for (const auto& c : clips) {
    Sequence e = sequence_of(c, lim);
    r.events.push_back({e.outcome, e.selection, e.payload, e.wrap});
  }
  CHECK(fw.idle());
  return r;
}

void check_all_splits(const std::string& in, const Result& want, ClipboardLimits lim = {}) {
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

struct Copies : Sink {
  std::vector<Copy> got;
  void copy(Copy c) override { got.push_back(std::move(c)); }
};

}  // namespace

TEST_CASE("osc52 filter: table of inputs at every split point", "[osc52]") {
  ClipboardLimits lim;
  lim.max_payload = 16;
  lim.max_selection = 4;
  const std::string b64 = "aGVsbG8=";  // "hello"
  std::vector<Case> cases = {
      {"plain text", "hello, world\r\n", "hello, world\r\n", {}},
      {"UTF-8 text", "h\xc3\xa9llo \xe2\x9c\x93", "h\xc3\xa9llo \xe2\x9c\x93", {}},
      {"BEL terminator", "a\x1b]52;c;" + b64 + "\ab", "ab", {{C, "c", b64}}},
      {"ST terminator", "a\x1b]52;c;" + b64 + "\x1b\\b", "ab", {{C, "c", b64}}},
      {"empty Pc", "\x1b]52;;" + b64 + "\a", "", {{C, "", b64}}},
      {"Pc p", "\x1b]52;p;" + b64 + "\a", "", {{C, "p", b64}}},
      {"Pc cut buffer", "\x1b]52;0;" + b64 + "\a", "", {{C, "0", b64}}},
      {"Pc too long", "\x1b]52;cpqs0123;" + b64 + "\a", "", {{Outcome::Oversized, "cpqs", ""}}},
      {"read request", "x\x1b]52;c;?\ay", "xy", {{C, "c", "?"}}},
      {"invalid base64 is still intercepted", "\x1b]52;c;@@@\a", "", {{C, "c", "@@@"}}},
      {"CR/LF inside the payload skipped", "\x1b]52;c;aGVs\r\nbG8=\a", "", {{C, "c", b64}}},
      {"CAN cancels: only the CAN is left", "x\x1b]52;c;" + b64 + "\x18y", "x\x18y", {}},
      {"ESC [ breaks it and starts a CSI", "x\x1b]52;c;aGk=\x1b[31my", "x\x1b[31my", {}},
      {"ESC ] 52 breaks it and starts another", "\x1b]52;c;AAAA\x1b]52;p;aGk=\a", "", {{C, "p", "aGk="}}},
      {"no data field", "\x1b]52;c\a.", ".", {{Outcome::Malformed, "c", ""}}},
      {"oversized payload", "a\x1b]52;c;" + std::string(40, 'A') + "\ab", "ab", {{Outcome::Oversized, "c", ""}}},
      {"payload at the cap", "\x1b]52;c;" + std::string(16, 'A') + "\a", "", {{C, "c", std::string(16, 'A')}}},
      {"OSC 0 title untouched", "\x1b]0;my title\a", "\x1b]0;my title\a", {}},
      {"OSC 8 link untouched", "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\",
       "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\", {}},
      {"unknown OSC numbers dropped", "\x1b]5;a\a\x1b]521;b\a\x1b]52x\a", "", {}},
      {"CSI untouched", "\x1b[1;31mred\x1b[0m\x1b[?2004h", "\x1b[1;31mred\x1b[0m\x1b[?2004h", {}},
      {"a bare ESC before a sequence is dropped", "\x1b\x1b" "7\x1b", "\x1b" "7", {}},
      {"ESC before OSC 52", "\x1b\x1b]52;c;aGk=\a", "", {{C, "c", "aGk="}}},
      {"near misses of the openings",
       "\x1b]5\a\x1b]53;x\a\x1bPt\x1b\\\x1bPtmux\x1b\\\x1bP\x1b[1m\x1b\\\x1bPtmux;\x1b]52;c;aGk=\a",
       "\x1b[1m\x1b\\", {{C, "c", "aGk="}}},
      {"sixel untouched", "\x1bPq#0;2;0;0;0\x1b\\", "\x1bPq#0;2;0;0;0\x1b\\", {}},
      {"tmux passthrough of a CSI untouched", "\x1bPtmux;\x1b\x1b[1m\x1b\\", "\x1bPtmux;\x1b\x1b[1m\x1b\\", {}},
      {"tmux-wrapped, BEL", "a\x1bPtmux;\x1b\x1b]52;c;" + b64 + "\a\x1b\\b", "ab", {{C, "c", b64, Wrap::Tmux}}},
      {"tmux-wrapped, inner ST", "\x1bPtmux;\x1b\x1b]52;p;" + b64 + "\x1b\x1b\\\x1b\\", "", {{C, "p", b64, Wrap::Tmux}}},
      {"tmux-wrapped, DCS closed early: dropped", "\x1bPtmux;\x1b\x1b]52;c;aGk=\x1b\\z", "z", {}},
      // screen's `ESC P` breaks at the inner ESC: the OSC 52 inside is judged on its own.
      {"screen-wrapped", "\x1bP\x1b]52;c;" + b64 + "\a\x1b\\.", "\x1b\\.", {{C, "c", b64}}},
      {"UTF-8 around and in a sequence", "\xc3\xa9\x1b]52;c\xc3\xa9;w6k=\a\xe2\x9c\x93",
       "\xc3\xa9\xe2\x9c\x93", {{C, "c\xc3\xa9", "w6k="}}},
      {"unterminated at the end", "ok\x1b]52;c;aGk=", "ok", {}},
      {"a prefix at the end is dropped", "ok\x1b]5", "ok", {}},
  };
  for (const Case& c : cases) {
    SECTION(c.name) { check_all_splits(c.in, {c.out, c.events}, lim); }
  }
}

TEST_CASE("osc52 filter: pass-writes mode lets writes through and never a read", "[osc52]") {
  ClipboardLimits lim;
  lim.mode = Mode::PassWrites;
  const std::string w = "\x1b]52;c;aGk=\a";
  const std::string tw = "\x1bPtmux;\x1b\x1b]52;c;aGk=\a\x1b\\";
  check_all_splits("a" + w + "b", {"a" + w + "b", {{C, "c", "aGk="}}}, lim);
  check_all_splits(tw, {tw, {{C, "c", "aGk=", Wrap::Tmux}}}, lim);
  check_all_splits("a\x1b]52;c;?\ab", {"ab", {{C, "c", "?"}}}, lim);
  check_all_splits("a\x1b]52;?\ab", {"ab", {{Outcome::Malformed, "?", ""}}}, lim);
  check_all_splits("\x1bPtmux;\x1b\x1b]52;p;?\a\x1b\\", {"", {{C, "p", "?", Wrap::Tmux}}}, lim);
}

TEST_CASE("osc52 filter: a 2 MiB payload is discarded, not shown", "[osc52]") {
  std::string in = "before\x1b]52;c;" + std::string(2 * 1024 * 1024, 'Q') + "\aafter";
  Result whole = run({in});
  CHECK(whole.out == "beforeafter");
  std::vector<std::string> chunks;
  for (size_t i = 0; i < in.size(); i += 4093) chunks.push_back(in.substr(i, 4093));
  CHECK(run(chunks).out == whole.out);
  // Exactly at the 1 MiB cap is still accepted.
  Result r = run({"\x1b]52;c;" + std::string(1024 * 1024, 'Q') + "\a"});
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].outcome == Outcome::Complete);
}

TEST_CASE("osc52 filter: copies reach the sink, decoded", "[osc52]") {
  auto sink = std::make_unique<Copies>();
  Copies* got = sink.get();
  auto f = make_filter(std::move(sink), ClipboardLimits{});
  std::string out;
  f->feed("x\x1b]52;c;aGVs", 0, out);
  f->feed("bG8=\a\x1bPtmux;\x1b\x1b]52;p;d29ybGQ=\a\x1b\\y\x1b]52;c;?\a", 1, out);
  f->finish(out);
  CHECK(out == "xy");
  REQUIRE(got->got.size() == 2);
  CHECK(got->got[0].text == "hello");
  CHECK(got->got[1].text == "world");
}

// Random streams built from segments whose fate is known: the output must be the input minus
// the OSC 52 sequences, however the stream is cut into reads.
TEST_CASE("osc52 filter: output = input minus the OSC 52 sequences", "[osc52]") {
  const std::vector<std::string> others = {
      "\x1b[0m", "\x1b[38;5;208m", "\x1b[?25l", "\x1b" "7", "\x1b]0;title\a", "\x1b]8;;http://u\x1b\\",
      "\x1bPq#0\x1b\\", "\x1bPtmux;\x1b\x1b[1m\x1b\\", "\x1b(B",
  };
  const std::vector<std::string> seqs = {
      "\x1b]52;c;aGk=\a", "\x1b]52;;aGk=\x1b\\", "\x1b]52;p;?\a", "\x1b]52;c;a\r\nGk=\a",
      "\x1bPtmux;\x1b\x1b]52;c;aGk=\a\x1b\\", "\x1b]52;c;" + std::string(300, 'A') + "\a",
  };
  std::mt19937 rng(12345);
  ClipboardLimits lim;
  lim.max_payload = 256;
  for (int round = 0; round < 300; ++round) {
    std::string in, want;
    size_t intercepted = 0;
    int segs = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < segs; ++k) {
      switch (rng() % 3) {
        case 0: {  // text: printable ASCII and whole UTF-8 characters, newlines, tabs
          static const std::vector<std::string> bits = {"a", "Z", " ", "\r\n", "\t", "\xc3\xa9", "\xe2\x9d\xaf", "\xf0\x9f\x98\x80", "\x07"};
          for (int n = static_cast<int>(rng() % 20); n > 0; --n) {
            const std::string& t = bits[rng() % bits.size()];
            in += t;
            want += t;
          }
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
