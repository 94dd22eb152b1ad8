// libFuzzer target for OSC 52 through the terminal firewall, and the decoder behind it.
// Invariants:
//  - the output is the input with bytes removed, never added or reordered;
//  - input without ESC and C1 bytes passes byte-identical and yields no sequence;
//  - cutting the input into two reads changes neither the output nor the sequences;
//  - a copy that comes out of interpret() is valid UTF-8 without control characters but TAB,
//    LF and CR;
//  - no read request survives in either mode, and intercept mode leaves no OSC 52 at all: a
//    second firewall over the output finds none;
//  - with the clock moving between reads (deadlines firing), still only deletions.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <utf8proc.h>

#include "osc52/decode.hpp"
#include "osc52/filter.hpp"
#include "term/firewall.hpp"

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

ClipboardLimits limits() {
  ClipboardLimits l;
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

struct Run {
  std::string out;
  std::vector<Sequence> ev;
};

Run scan(std::string_view in, size_t cut, Mode mode, uint64_t step_ms = 0) {
  ClipboardLimits l = limits();
  l.mode = mode;
  blaude::term::Firewall f(mode == Mode::PassWrites ? blaude::term::ClipboardMode::PassWrites
                                                    : blaude::term::ClipboardMode::Intercept);
  std::vector<blaude::term::Osc52> clips;
  Run r;
  if (step_ms == 0) {
    f.feed(in.substr(0, cut), 0, r.out, clips);
    f.feed(in.substr(cut), 0, r.out, clips);
  } else {
    uint64_t now = 0;
    for (size_t i = 0; i < in.size(); i += 7) {
      f.feed(in.substr(i, 7), now, r.out, clips);
      now += in[i] % 3 == 0 ? step_ms : 3;
      if (f.next_deadline_ms() >= 0 && static_cast<uint64_t>(f.next_deadline_ms()) <= now) f.tick(now, r.out, clips);
    }
  }
  f.finish(r.out, clips);
  require(f.idle());
  for (const auto& c : clips) r.ev.push_back(sequence_of(c, l));
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t cut = data[0] % size;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  cut = cut > in.size() ? in.size() : cut;

  for (Mode mode : {Mode::Intercept, Mode::PassWrites}) {
    Run whole = scan(in, in.size(), mode);
    require(subsequence(whole.out, in));
    bool plain = true;
    for (char c : in) plain &= c != '\x1b' && (static_cast<unsigned char>(c) & 0xe0) != 0x80 && c != '\x05';
    if (plain) {
      require(whole.out == in);
      require(whole.ev.empty());
    }
    Run split = scan(in, cut, mode);
    require(whole.out == split.out);
    require(same(whole.ev, split.ev));
    for (const Sequence& s : whole.ev) {
      Verdict v = interpret(s);
      if (v.copy) check_copy(*v.copy);
    }
    Run again = scan(whole.out, whole.out.size(), Mode::Intercept);
    for (const Sequence& s : again.ev) {
      require(!s.read_request);
      require(mode == Mode::PassWrites);
    }
    require(subsequence(scan(in, 0, mode, 6000).out, in));
  }
  return 0;
}
