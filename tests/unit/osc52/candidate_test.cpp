// The scanner's vectorised candidate search against its byte-at-a-time definition: dense and
// sparse escapes, every start offset, every position relative to the 16-byte blocks and the end.
#include <random>
#include <string>

#include "catch.hpp"
#include "osc52/candidate.hpp"

using namespace blaude::osc52;

TEST_CASE("next_candidate: what opens ours, and what is decided as plain text") {
  CHECK(next_candidate("plain text, no escape at all", 0) == 28);
  CHECK(next_candidate("a\x1b[1mb\x1b]0;t\x07\x1b]52;c;x\x07", 0) == 12);
  CHECK(next_candidate("a\x1bPtmux;", 0) == 1);
  CHECK(next_candidate("a\x1bP\x1b]52;", 0) == 1);
  CHECK(next_candidate("a\x1bPq", 0) == 4);    // sixel DCS: not ours
  CHECK(next_candidate("a\x1b\x1b", 0) == 1);
  CHECK(next_candidate("ab\x1b", 0) == 2);     // last byte: undecided
  CHECK(next_candidate("ab\x1b]", 0) == 2);    // ']' needs the next byte
  CHECK(next_candidate("ab\x1b[", 0) == 4);    // '[' decides: CSI
  CHECK(next_candidate("\x1b]52;", 1) == 5);   // from an offset
  // Controls a terminal skips inside an opening keep it open: `ESC ] ^A 5 2` is an OSC 52.
  CHECK(next_candidate("a\x1b\x01]52;", 0) == 1);
  CHECK(next_candidate("a\x1b\x7f]52;", 0) == 1);
  CHECK(next_candidate("a\x1b]\x01" "52;", 0) == 1);
  CHECK(next_candidate("a\x1bP\x7ftmux;", 0) == 1);
  CHECK(next_candidate("a\x1b]\x7f" "52;", 0) == 7);  // DEL after `ESC ]` is OSC text
  CHECK(next_candidate("a\x1b]0;t\x07", 0) == 7);      // OSC 0 title: plain text here
}

TEST_CASE("next_candidate agrees with the reference on random streams") {
  std::mt19937 rng(7);
  const std::string dense = std::string("\x1b\x1b\x1b\x1b[[]]]55P2tm;x\x01\x07\x7f\x18") + '\0';
  const std::string sparse = "abcdefghijklmnopqrstuvwxyz \x1b[]5Pt";
  for (int round = 0; round < 20000; ++round) {
    const std::string& alpha = round % 2 ? dense : sparse;
    std::string in;
    size_t len = rng() % 80;
    for (size_t i = 0; i < len; ++i) in.push_back(alpha[rng() % alpha.size()]);
    for (size_t from = 0; from <= in.size(); ++from) {
      INFO("round " << round << " from " << from);
      REQUIRE(next_candidate(in, from) == next_candidate_reference(in, from));
    }
  }
}

TEST_CASE("next_candidate: one candidate at every position of a long escape-heavy run") {
  std::string base;
  while (base.size() < 200) base += "\x1b[1;3" + std::to_string(base.size() % 8) + "mxy";
  for (size_t at = 0; at + 4 < base.size(); ++at) {
    std::string in = base;
    in.replace(at, 4, "\x1b]52");
    INFO("at " << at);
    CHECK(next_candidate(in, 0) == next_candidate_reference(in, 0));
  }
}
