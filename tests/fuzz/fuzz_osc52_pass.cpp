// libFuzzer target for Scanner::pass_through, the session's zero-copy fast path. Invariant:
// for any stream and any cutting into reads, passing each read's pass_through() prefix and
// feeding only the rest shows exactly the bytes, and yields exactly the events, of feeding
// every read whole. The first input byte seeds the read sizes (and its low bit picks the mode).
// With a terminal state tracker observing, each observer saw exactly the bytes shown, in order
// (on the fast path the caller hands the passed bytes over, as the OSC 52 filter does). And
// the vectorised candidate search agrees with its byte-at-a-time definition from every offset.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "osc52/candidate.hpp"
#include "osc52/scanner.hpp"
#include "term/tracker.hpp"

using namespace blaude::osc52;

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

ScannerLimits limits(bool pass_writes) {
  ScannerLimits l;
  l.max_payload = 64;
  l.mode = pass_writes ? Mode::PassWrites : Mode::Intercept;
  return l;
}

struct Seen : Observer {
  std::string bytes;
  blaude::term::Tracker tracker;
  void observe(std::string_view b, uint64_t now) override {
    bytes.append(b);
    tracker.feed(b, now);
  }
  bool mid_sequence() const override { return tracker.mid_sequence(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  unsigned seed = data[0];
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (size_t from = 0; from <= in.size(); from += 1 + from / 8)
    require(next_candidate(in, from) == next_candidate_reference(in, from));
  Scanner a(limits(seed & 1)), b(limits(seed & 1));
  Seen seen_a, seen_b;
  a.set_observer(&seen_a);
  b.set_observer(&seen_b);
  std::string out_a, out_b;
  std::vector<Sequence> ev_a, ev_b;
  for (size_t i = 0; i < in.size();) {
    seed = seed * 1103515245u + 12345u;
    size_t k = 1 + (seed >> 16) % 23;
    std::string_view read = in.substr(i, k);
    i += read.size();
    a.feed(read, i, out_a, ev_a);
    size_t p = b.pass_through(read);
    require(p <= read.size());
    out_b.append(read.substr(0, p));
    if (p > 0) seen_b.observe(read.substr(0, p), i);
    b.feed(read.substr(p), i, out_b, ev_b);
    require(out_a == out_b);
    require(a.idle() == b.idle());
  }
  a.finish(out_a, ev_a);
  b.finish(out_b, ev_b);
  require(out_a == out_b);
  require(seen_a.bytes == out_a && seen_b.bytes == out_b);
  require(seen_a.tracker.state() == seen_b.tracker.state());
  require(ev_a.size() == ev_b.size());
  for (size_t i = 0; i < ev_a.size(); ++i) {
    require(ev_a[i].outcome == ev_b[i].outcome && ev_a[i].payload == ev_b[i].payload &&
            ev_a[i].selection == ev_b[i].selection && ev_a[i].wrap == ev_b[i].wrap &&
            ev_a[i].payload_bytes == ev_b[i].payload_bytes);
  }
  return 0;
}
