// The OSC 52 filter as the session drives it (pass() first, feed() on the rest), with the
// terminal state tracker observing: the tracker must end exactly where a tracker fed the
// filter's whole output ends. The bytes pass() leaves in the session's queue never go through
// the scanner, so a filter that forgot to hand them over would leave the mode changes in them
// unseen (and the session's undo would miss them).
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

void check(const std::vector<std::string>& reads, bool intercept) {
  Run r;
  auto f = filter(intercept);
  drive(*f, r, reads);
  term::Tracker direct;
  direct.feed(r.out, 1);
  CHECK(r.tracker.state() == direct.state());
  CHECK(term::undo(r.tracker) == term::undo(direct));
  CHECK(term::reapply(r.tracker) == term::reapply(direct));
  CHECK(r.tracker.mid_sequence() == direct.mid_sequence());
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
