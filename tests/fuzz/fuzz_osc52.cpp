// libFuzzer target for the OSC 52 scanner and the decoder behind it. Invariants:
//  - the output is the input with bytes removed, never added or reordered;
//  - input without ESC passes byte-identical and yields no event;
//  - cutting the input into two reads changes neither the output nor the events;
//  - a copy that comes out of interpret() is valid UTF-8 without control characters but TAB,
//    LF and CR;
//  - pass-writes mode with the terminal tracker watching: split reads change nothing; the
//    output is the input with bytes removed plus only the CANs the scanner counts; and no read
//    request survives: a second scanner over the output finds none (in intercept mode, it finds
//    no sequence at all).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <utf8proc.h>

#include "osc52/decode.hpp"
#include "osc52/scanner.hpp"
#include "term/tracker.hpp"

using namespace blaude::osc52;

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

bool subsequence(std::string_view small, std::string_view big) {
  size_t j = 0;
  for (char c : small) {
    while (j < big.size() && big[j] != c) ++j;
    if (j == big.size()) return false;
    ++j;
  }
  return true;
}

bool same(const std::vector<Sequence>& a, const std::vector<Sequence>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].outcome != b[i].outcome || a[i].selection != b[i].selection ||
        a[i].payload != b[i].payload || a[i].wrap != b[i].wrap ||
        a[i].payload_bytes != b[i].payload_bytes)
      return false;
  }
  return true;
}

ScannerLimits limits() {
  ScannerLimits l;
  l.max_payload = 64;  // small, so the discard path is reached often
  return l;
}

void check_copy(const Copy& c) {
  require(valid_utf8(c.text));
  auto* p = reinterpret_cast<const utf8proc_uint8_t*>(c.text.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(c.text.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    require(n > 0);
    require(cp == '\t' || cp == '\n' || cp == '\r' ||
            utf8proc_category(cp) != UTF8PROC_CATEGORY_CC);
    p += n;
    left -= n;
  }
}

struct Watch : Observer {
  blaude::term::Tracker t;
  void observe(std::string_view b, uint64_t now) override { t.feed(b, now); }
  bool mid_sequence() const override { return t.mid_sequence(); }
};

struct Run {
  std::string out;
  std::vector<Sequence> ev;
  uint64_t cans = 0;
};

Run scan(std::string_view in, size_t cut, Mode mode, bool watch) {
  ScannerLimits l = limits();
  l.mode = mode;
  Scanner s(l);
  Watch w;
  if (watch) s.set_observer(&w);
  Run r;
  s.feed(in.substr(0, cut), 0, r.out, r.ev);
  s.feed(in.substr(cut), 0, r.out, r.ev);
  s.finish(r.out, r.ev);
  r.cans = s.cans();
  return r;
}

void check_modes(std::string_view in, size_t cut) {
  for (Mode mode : {Mode::PassWrites, Mode::Intercept}) {
    Run plain = scan(in, in.size(), mode, false);
    Run whole = scan(in, in.size(), mode, true);
    Run split = scan(in, cut, mode, true);
    require(whole.out == split.out);
    require(subsequence(plain.out, in));
    require(whole.out.size() == plain.out.size() + whole.cans);
    if (whole.cans == 0) require(whole.out == plain.out);
    require(subsequence(plain.out, whole.out));
    Run again = scan(whole.out, whole.out.size(), Mode::Intercept, false);
    for (const Sequence& s : again.ev) {
      require(!s.read_request);
      if (mode == Mode::Intercept)
        require(s.outcome != Outcome::Complete && s.outcome != Outcome::Oversized);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t cut = data[0] % size;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  cut = cut > in.size() ? in.size() : cut;

  Scanner whole(limits());
  std::string out1;
  std::vector<Sequence> ev1;
  whole.feed(in, 0, out1, ev1);
  whole.finish(out1, ev1);
  require(whole.idle());
  require(subsequence(out1, in));
  if (std::memchr(in.data(), 0x1b, in.size()) == nullptr) {
    require(out1 == in);
    require(ev1.empty());
  }

  Scanner split(limits());
  std::string out2;
  std::vector<Sequence> ev2;
  split.feed(in.substr(0, cut), 0, out2, ev2);
  split.feed(in.substr(cut), 0, out2, ev2);
  split.finish(out2, ev2);
  require(out1 == out2);
  require(same(ev1, ev2));

  for (const Sequence& s : ev1) {
    Verdict v = interpret(s);
    if (v.copy) check_copy(*v.copy);
  }

  check_modes(in, cut);

  // With the clock moving between reads, deadlines fire: still only deletions.
  Scanner timed(limits());
  std::string out3;
  std::vector<Sequence> ev3;
  uint64_t now = 0;
  for (size_t i = 0; i < in.size(); i += 7) {
    timed.feed(in.substr(i, 7), now, out3, ev3);
    now += data[i % size] % 3 == 0 ? 6000 : 3;
    if (timed.next_deadline_ms() >= 0 && static_cast<uint64_t>(timed.next_deadline_ms()) <= now)
      timed.tick(now, out3, ev3);
  }
  timed.finish(out3, ev3);
  require(subsequence(out3, in));
  return 0;
}
