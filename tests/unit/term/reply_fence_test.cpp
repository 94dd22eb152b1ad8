// The reply fence's matcher: the terminal's answer found however the input is cut, after
// whatever came before it (typeahead, the replies to the child's queries, strings that contain
// what looks like an answer), and the bound kept with the clock passed in.
#include <string>
#include <vector>

#include "catch.hpp"
#include "term/reply_fence.hpp"

using namespace blaude::term;
using namespace std::string_literals;

namespace {

constexpr uint64_t kT0 = 1000;

// Feeds `in` in the given parts, all at kT0 + 10.
ReplyFence fed(const std::vector<std::string>& parts) {
  ReplyFence f(kT0);
  for (const auto& p : parts) f.feed(p, kT0 + 10);
  return f;
}

// Whole, cut in two at every byte, and byte by byte: the same verdict each way.
void check_splits(const std::string& in, bool da1, bool dsr) {
  INFO("input of " << in.size() << " bytes");
  ReplyFence w = fed({in});
  CHECK(w.saw_da1() == da1);
  CHECK(w.saw_dsr() == dsr);
  for (size_t i = 1; i < in.size(); ++i) {
    INFO("split at " << i);
    ReplyFence f = fed({in.substr(0, i), in.substr(i)});
    CHECK(f.saw_da1() == da1);
    CHECK(f.saw_dsr() == dsr);
  }
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  ReplyFence b = fed(bytes);
  CHECK(b.saw_da1() == da1);
  CHECK(b.saw_dsr() == dsr);
}

}  // namespace

TEST_CASE("reply fence: the answers, at every split", "[term][fence]") {
  check_splits("\x1b[0n\x1b[?62;22c", true, true);         // both queries answered
  check_splits("\x1b[?1;2c", true, false);                  // DA1 only (a VT100)
  check_splits("\x1b[?6c", true, false);                    // the Linux console
  check_splits("\x1b[0n", false, true);                     // a terminal without DA1
  check_splits("\x1b[3n", false, true);                     // DSR: "malfunction" is an answer too
  check_splits("\x9b" "0n\x9b?64;1c", true, true);          // 8-bit answers (S8C1T)
}

TEST_CASE("reply fence: what comes before the answer", "[term][fence]") {
  // Typeahead, UTF-8, Alt+key, a cursor report, an OSC colour reply ended by BEL and one by ST,
  // then the answers.
  check_splits("ls -l\r\xc3\xb6\xe2\x9d\xaf\x1bx\x1b[7;13R\x1b]11;rgb:0000/0000/0000\a"
               "\x1b]10;rgb:ffff/ffff/ffff\x1b\\\x1b[0n\x1b[?62c",
               true, true);
  // kitty's echo of an unknown DECRQSS, with an answer-shaped text in it: not the answer.
  check_splits("\x1bP0$r\x1b[?62c\x1b[0n:!touch pwned\r\x1b\\", false, false);
  // ... nor inside an APC, a PM or an SOS, nor in an 8-bit DCS.
  check_splits("\x1b_G\x1b[?62c\x1b\\\x1b^\x1b[?62c\x1b\\\x1bX\x1b[?62c\x1b\\", false, false);
  check_splits("\x90" "0$r\x1b[?62c\x9c", false, false);
  // An 8-bit ST inside a 7-bit string is UTF-8 text (U+045C is d1 9c): it ends nothing.
  check_splits("\x1bP0$r\xd1\x9c\x1b[?62c\x1b\\", false, false);
  // Not the answers: DA2 and DA3, a DSR that is not 0 or 3, a CPR, a key with a modifier.
  check_splits("\x1b[>1;4000;29c\x1b=c\x1b[6n\x1b[00n\x1b[10n\x1b[1;5A\x1b[?62:1c", false, false);
  // UTF-8 text whose continuation bytes are C1 codes (U+00DB is c3 9b): text, not a CSI.
  check_splits("\xc3\x9b?62c\xc3\x9d\xc3\x90", false, false);
  // ... and after it, the answer still counts.
  check_splits("\xc3\x9b?62c\x1b[?62c", true, false);
  // A sequence cut by CAN, then the answer.
  check_splits("\x1b[?6\x18\x1b[?62c", true, false);
}

TEST_CASE("reply fence: the wait, with the clock passed in", "[term][fence]") {
  SECTION("no answer: the bound, and not a millisecond more") {
    ReplyFence f(kT0);
    CHECK(f.wait_ms(kT0) == ReplyFence::kBoundMs);
    f.feed("typeahead", kT0 + 100);
    CHECK(f.wait_ms(kT0 + 100) == ReplyFence::kBoundMs - 100);
    CHECK_FALSE(f.done(kT0 + ReplyFence::kBoundMs - 1));
    CHECK(f.done(kT0 + ReplyFence::kBoundMs));
    CHECK_FALSE(f.answered());
    CHECK(f.discarded() == 9);
  }
  SECTION("answered: done once input is quiet") {
    ReplyFence f(kT0);
    f.feed("\x1b[0n\x1b[?62c", kT0 + 30);
    CHECK(f.answered());
    CHECK(f.wait_ms(kT0 + 30) == ReplyFence::kQuietMs);
    CHECK_FALSE(f.done(kT0 + 30 + ReplyFence::kQuietMs - 1));
    CHECK(f.done(kT0 + 30 + ReplyFence::kQuietMs));
  }
  SECTION("more input after an answer (the child asked the same): the quiet starts again") {
    ReplyFence f(kT0);
    f.feed("\x1b[0n\x1b[?62c", kT0 + 10);  // the answers to the child's copy of the query
    f.feed("\x1b[7;13R", kT0 + 40);          // a late reply behind them
    CHECK(f.wait_ms(kT0 + 40) == ReplyFence::kQuietMs);
    f.feed("\x1b[0n\x1b[?62c", kT0 + 60);  // the fence's own answers
    CHECK_FALSE(f.done(kT0 + 60 + ReplyFence::kQuietMs - 1));
    CHECK(f.done(kT0 + 60 + ReplyFence::kQuietMs));
  }
  SECTION("input that never stops: the bound still ends it") {
    ReplyFence f(kT0);
    for (uint64_t t = kT0; t < kT0 + ReplyFence::kBoundMs; t += 10) f.feed("\x1b[?62cx", t);
    CHECK(f.done(kT0 + ReplyFence::kBoundMs));
  }
}
