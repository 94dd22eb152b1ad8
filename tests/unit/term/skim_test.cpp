// skim(): the 64-byte window of the tracker's ground state, held to its byte-at-a-time
// reference on windows built from the pieces a TUI sends (and the ones skim() must stop at), at
// every offset; and the tracker that uses it held to the state machine alone (one byte per
// feed never takes a window) on streams of the same pieces, whole and cut at every point.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "term/emit.hpp"
#include "term/skim.hpp"
#include "term/tracker.hpp"

using namespace blaude::term;
using namespace std::string_literals;

namespace {

const std::vector<std::string> kPieces = {
    "text ", "xxxxxxxxxxxxxxxxxxxx", "\r\n", "\t\a\x7f\x18\x1a", "h\xc3\xa9llo \xe2\x9c\x93",
    "\x1b[m", "\x1b[0m", "\x1b[00m", "\x1b[0;1m", "\x1b[00;1m", "\x1b[01m", "\x1b[1;31m",
    "\x1b[38;5;196m", "\x1b[38:2::1:2:3m", "\x1b[0:1m", "\x1b[;1m", "\x1b[12;40H", "\x1b[K",
    "\x1b[2J", "\x1b[3A", "\x1b[?25l", "\x1b[?25h", "\x1b[?2026h", "\x1b[?1049h", "\x1b[?1049l",
    "\x1b[4h", "\x1b[1;?2m", "\x1b[>4;2m", "\x1b[>1u", "\x1b[<u", "\x1b[2 q", "\x1b[!p",
    "\x1b[5;20r", "\x1b[r", "\x1b[s", "\x1b[u", "\x1b[22;0t", "\x1b[23;0t", "\x1b[5i", "\x1b[o",
    "\x1b[1\x7fm", "\x1b[1\x0em", "\x1b[1\x1b[m", "\x1b[3\xc3m", "\x1b" "7", "\x1b" "8", "\x1b=", "\x1b>",
    "\x1b(0", "\x1b(B", "\x0e", "\x0f", "\x1b]0;title\x07", "\x1b]8;;http://x/\x1b\\", "\x1bPq#0\x1b\\",
    "\x1b_apc\x1b\\", "\x1b\\", "\x1b\x1b[m", "\x1b[", "\x1b",
    // OSCs: one-digit numbers ended by BEL or ESC are taken (titles kept), the rest stop it.
    "\x1b]0;t\x07", "\x1b]1;icon\x1b\\", "\x1b]2;\x07", "\x1b]2;w\x1b[m", "\x1b]3;x\x07",
    "\x1b]8;;https://example.invalid/1\x1b\\link\x1b]8;;\x1b\\", "\x1b]9;\xc3\xa9\x7f\x07",
    "\x1b]0;a\nb\x07", "\x1b]0;a\x0e\x07", "\x1b]0;a\x18", "\x1b]00;t\x07", "\x1b];t\x07",
    "\x1b]52;c;?\x07", "\x1b]133;A\x07", "\x1b]:;x\x07", "\x1b]0", "\x1b]", "\x1b]0;",
    "\x1b]0;open title with no end yet ",
};

std::string random_stream(std::mt19937& rng, size_t n) {
  std::string s;
  while (s.size() < n) s += kPieces[rng() % kPieces.size()];
  return s;
}

void check_same(const Window& a, const Window& b) {
  CHECK(a.stop == b.stop);
  CHECK(a.esc == b.esc);
  CHECK(a.sgr == b.sgr);
  CHECK(a.osc == b.osc);
  CHECK(a.osc_end == b.osc_end);
}

// skim() and every classifier this CPU can run (AVX-512, AVX2, SSE2, scalar) against the reference.
void check_window(const std::string& w) {
  REQUIRE(w.size() >= Window::kSize);
  const Window ref = skim_reference(w.data());
  INFO("window " << Catch::Detail::stringify(w.substr(0, Window::kSize)));
  check_same(skim(w.data()), ref);
  for (Isa isa : {Isa::Scalar, Isa::Sse2, Isa::Avx2, Isa::Avx512}) {
    if (!isa_supported(isa)) continue;
    INFO("classifier " << static_cast<int>(isa));
    check_same(skim_with(isa, w.data()), ref);
  }
}

bool same_title(const Tracker& a, const Tracker& b) {
  return a.title().set == b.title().set && a.title().code == b.title().code &&
         a.title().view() == b.title().view();
}

Tracker fed(const std::vector<std::string_view>& parts) {
  Tracker t;
  for (auto p : parts) t.feed(p);
  return t;
}

// The state machine alone: one byte per feed never takes a window.
Tracker byte_at_a_time(const std::string& in) {
  Tracker t;
  for (size_t i = 0; i < in.size(); ++i) t.feed(std::string_view(in).substr(i, 1));
  return t;
}

void require_agree(const Tracker& a, const Tracker& b) {
  REQUIRE(a.state() == b.state());
  REQUIRE(a.mid_sequence() == b.mid_sequence());
  REQUIRE(same_title(a, b));
}

void check_title(const std::string& in, uint8_t code, std::string_view text) {
  Tracker t;
  t.feed(in);
  CHECK(t.title().set);
  CHECK(t.title().code == code);
  CHECK(t.title().view() == text);
}

}  // namespace

TEST_CASE("term skim: each piece at every offset of a window", "[term]") {
  const std::string text(2 * Window::kSize, 'x');
  for (const auto& piece : kPieces)
    for (size_t at = 0; at < Window::kSize; ++at) {
      std::string w = text.substr(0, at) + piece + text;
      check_window(w);
      check_window("\x1b[0m" + w);  // and after a sequence the window takes
    }
}

TEST_CASE("term skim: random windows of TUI pieces", "[term]") {
  std::mt19937 rng(12);
  for (int i = 0; i < 20000; ++i) check_window(random_stream(rng, Window::kSize));
}

TEST_CASE("term skim: a window stops where the bytes are not what it takes", "[term]") {
  std::string w = "\x1b[1;31mred\x1b[0m \x1b[5;5H\x1b[?25l" + std::string(64, 'x');
  Window a = skim(w.data());
  CHECK(a.stop == w.find("\x1b[?25l"));
  CHECK(a.sgr == ((uint64_t{1} << w.find('m')) | (uint64_t{1} << (w.find("0m") + 1))));
  CHECK(skim(std::string(64, 'x').data()).stop == 64);
}

// ptybench's escapes mix has a title or a link every ~100 bytes: a window takes them whole, so
// that the state machine is not entered once per OSC, and the tracker keeps the last title.
TEST_CASE("term skim: titles and links are taken inside a window", "[term]") {
  const std::string head = "\x1b]0;one\x07" "ab\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\\x1b]2;two\x1b\\";
  const std::string w = head + std::string(64, 'x');
  const Window a = skim(w.data());
  CHECK(a.stop == 64);
  uint64_t oscs = 0;
  for (size_t at = w.find("\x1b]"); at < head.size(); at = w.find("\x1b]", at + 1)) oscs |= uint64_t{1} << at;
  CHECK(a.osc == oscs);
  check_title(w, 2, "two");
  // An OSC ended by the ESC of the next one: the next one is the last title, not the first.
  check_title("\x1b]0;a\x1b]2;w\x07" + std::string(64, 'x'), 2, "w");
  // A link after the last title does not replace it; a title the state machine reads (a control
  // inside) after the window's titles does.
  const std::string title_link = "\x1b]1;icon\x07\x1b]8;;u\x1b\\" + std::string(64, 'x');
  check_title(title_link, 1, "icon");
  check_title(title_link + "\x1b]2;a\tb\x07", 2, "ab");
}

// The same streams through the tracker: fed whole (windows), cut at every point, and one byte
// per feed (the state machine alone) must agree on the state, the undo bytes and whether the
// stream ended inside a sequence.
TEST_CASE("term tracker: windows agree with the state machine at every split", "[term]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const std::string in = random_stream(rng, 40 + rng() % 400);
    INFO("stream " << Catch::Detail::stringify(in));
    const Tracker slow = byte_at_a_time(in);
    const Tracker whole = fed({in});
    require_agree(whole, slow);
    REQUIRE(undo(whole) == undo(slow));
    for (size_t cut = 1; cut < in.size(); ++cut) {
      const std::string_view v(in);
      INFO("cut at " << cut);
      require_agree(fed({v.substr(0, cut), v.substr(cut)}), slow);
    }
  }
}

// A read long enough to fill the tracker's log of window findings several times (it is applied
// when full, in the middle of a feed): the same state and title as one byte per feed.
TEST_CASE("term tracker: long feeds fill the window log and agree with the state machine", "[term]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    const std::string in = random_stream(rng, 20000);
    require_agree(fed({in}), byte_at_a_time(in));
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(BLAUDE_SKIM_SCALAR)
// isa_supported reads glibc's CPU features (no CPUID constructor in blaude, skim.cpp); libgcc's
// __builtin_cpu_supports, linked into this test binary only, must agree with it.
TEST_CASE("skim: the CPU check agrees with libgcc's") {
  CHECK(isa_supported(Isa::Avx2) == (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")));
  CHECK(isa_supported(Isa::Avx512) == (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2")));
  CHECK(isa_supported(Isa::Sse2));
  CHECK(isa_supported(Isa::Scalar));
}
#endif
