// libFuzzer target for the OSC 52 scanner and the decoder behind it. Invariants:
//  - the output is the input with bytes removed, never added or reordered;
//  - input without ESC passes byte-identical and yields no event;
//  - cutting the input into two reads changes neither the output nor the events;
//  - a copy that comes out of interpret() is valid UTF-8 without control characters but TAB,
//    LF and CR.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <utf8proc.h>

#include "osc52/decode.hpp"
#include "osc52/scanner.hpp"

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
