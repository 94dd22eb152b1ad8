#include "osc52/candidate.hpp"

#include <cstdint>
#include <cstring>

namespace blaude::osc52 {

namespace {

constexpr unsigned char ESC = 0x1b;

constexpr unsigned char DEL = 0x7f;

// Can `ESC b c` open one of ours? Controls count: inside an opening the terminal skips most C0
// controls (and DEL right after ESC or `ESC P`), so `ESC ] ^A 5 2` is an OSC 52 to it and to the
// scanner. With c unknown (the read ends), b alone decides unless it is ']' or 'P'; with b
// unknown (ESC is the read's last byte), nothing is decided.
bool could_be_ours(std::string_view in, size_t j) {
  const size_t n = in.size();
  if (j + 1 >= n) return true;
  auto b = static_cast<unsigned char>(in[j + 1]);
  if (b < 0x20 || b == DEL) return true;  // ESC ESC (tmux's doubled ESC) or a skipped control
  if (b != ']' && b != 'P') return false;
  if (j + 2 >= n) return true;
  auto c = static_cast<unsigned char>(in[j + 2]);
  if (c < 0x20) return true;
  return b == ']' ? c == '5' : (c == 't' || c == DEL);
}

// 32 bytes at a time with the compiler's portable vector extension (SSE2 on x86-64, NEON on
// arm64): escape-heavy TUI output has an ESC every ~10-15 bytes, where a memchr call per ESC
// costs more than the rest of the proxy's work on the bytes.
typedef unsigned char v16 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline bool any(v16 m) {
  uint64_t lo, hi;
  std::memcpy(&lo, &m, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
  return (lo | hi) != 0;
}

[[gnu::always_inline]] inline v16 load(const unsigned char* p) {
  v16 v;
  std::memcpy(&v, p, 16);
  return v;
}

// Lanes i of p[0..16) where `ESC b c` (b = p[i+1], c = p[i+2]) opens one of ours: exactly
// could_be_ours for a position with two bytes after it.
[[gnu::always_inline]] inline v16 ours(const unsigned char* p, v16& esc) {
  v16 a = load(p), b = load(p + 1), c = load(p + 2);
  esc = a == ESC;
  v16 c_ctl = c < 0x20;
  v16 skip = (b < 0x20) | (b == DEL);
  v16 osc = (b == ']') & ((c == '5') | c_ctl);
  v16 dcs = (b == 'P') & ((c == 't') | c_ctl | (c == DEL));
  return esc & (skip | osc | dcs);
}

}  // namespace

size_t next_candidate_reference(std::string_view in, size_t from) {
  for (size_t j = from; j < in.size(); ++j)
    if (in[j] == '\x1b' && could_be_ours(in, j)) return j;
  return in.size();
}

size_t next_candidate(std::string_view in, size_t from) {
  const size_t n = in.size();
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  size_t j = from;
  while (j < n) {
    // Sparse escapes (plain text): the C library's memchr skips to the next ESC fastest.
    const void* hit = std::memchr(s + j, ESC, n - j);
    if (!hit) return n;
    j = static_cast<size_t>(static_cast<const unsigned char*>(hit) - s);
    // Dense escapes: 32 bytes (and 2 of lookahead) at a time, for as long as they hold an ESC.
    for (;;) {
      if (j + 34 > n) {  // the read's last bytes: one at a time
        for (; j < n; ++j)
          if (s[j] == ESC && could_be_ours(in, j)) return j;
        return n;
      }
      v16 e0, e1;
      if (any(ours(s + j, e0) | ours(s + j + 16, e1))) {
        for (;; ++j)  // the mask is exact: it is in this block
          if (s[j] == ESC && could_be_ours(in, j)) return j;
      }
      j += 32;
      if (!any(e0 | e1)) break;  // plain text again: back to memchr
    }
  }
  return n;
}

}  // namespace blaude::osc52
