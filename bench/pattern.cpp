#include "pattern.hpp"

#include <cstdio>
#include <string>

namespace ptybench {

namespace {

constexpr size_t kTextPeriod = 1048573;  // prime
constexpr size_t kEscapeTarget = 1048000;

struct Lcg {
  uint32_t x = 0x2545F491u;
  uint32_t next() {
    x = x * 1664525u + 1013904223u;  // counter-derived and cheap to regenerate
    return x >> 8;
  }
  uint32_t below(uint32_t n) { return next() % n; }
};

void text(Lcg& g, std::vector<char>& out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    g.x = g.x * 1664525u + 1013904223u;
    out.push_back(static_cast<char>('!' + (g.x >> 24) % 94));
  }
}

bool is_prime(size_t n) {
  if (n < 2) return false;
  for (size_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

void append(std::vector<char>& out, const std::string& s) { out.insert(out.end(), s.begin(), s.end()); }

// One token of TUI output: a short run of words, or one of the sequences a full-screen program
// writes most (no private modes, no OSC 52, no DCS: nothing a proxy may consume or must undo).
void escape_token(Lcg& g, std::vector<char>& out) {
  char b[96];
  // Each draw in its own statement: the order of a call's arguments is unspecified, and the
  // table must not depend on the compiler.
  uint32_t kind = g.below(12), x = g.below(256), y = g.below(200);
  switch (kind) {
    case 0:
    case 1:
    case 2:
    case 3: {  // words
      size_t n = 4 + x % 30;
      for (size_t i = 0; i < n; ++i)
        out.push_back(g.below(6) == 0 ? ' ' : static_cast<char>('a' + g.below(26)));
      return;
    }
    case 4:
      std::snprintf(b, sizeof b, "\x1b[38;5;%um", x);
      break;
    case 5:
      std::snprintf(b, sizeof b, "\x1b[%u;%uH", 1 + x % 50, 1 + y);
      break;
    case 6:
      std::snprintf(b, sizeof b, "\x1b[0m");
      break;
    case 7:
      std::snprintf(b, sizeof b, "\x1b[K\r\n");
      break;
    case 8:
      std::snprintf(b, sizeof b, "\x1b[1;4%um", x % 8);
      break;
    case 9:
      std::snprintf(b, sizeof b, "\x1b[%uA\x1b[%uC", 1 + x % 9, 1 + y % 80);
      break;
    case 10:
      std::snprintf(b, sizeof b, y % 2 ? "\x1b]0;task %u\x07" : "\x1b]0;task %u\x1b\\", x);
      break;
    default:
      std::snprintf(b, sizeof b, "\x1b]8;;https://example.invalid/%u\x1b\\link\x1b]8;;\x1b\\",
                    x * 200 + y);
      break;
  }
  append(out, b);
}

Pattern build(Payload p) {
  Pattern r;
  Lcg g;
  std::vector<char> t;
  if (p == Payload::Text) {
    text(g, t, kTextPeriod);
  } else {
    while (t.size() < kEscapeTarget) escape_token(g, t);
    // Pad with text so that the period (ending in an SGR reset) is prime.
    while (!is_prime(t.size() + 4)) t.push_back('x');
    append(t, "\x1b[0m");
  }
  r.period = t.size();
  r.table = t;
  r.table.insert(r.table.end(), t.begin(), t.end());
  return r;
}

}  // namespace

const Pattern& pattern(Payload p) {
  static const Pattern text = build(Payload::Text);
  if (p == Payload::Text) return text;
  static const Pattern esc = build(Payload::Escapes);
  return esc;
}

std::vector<char> pattern_prefix(Payload p, size_t n) {
  if (p != Payload::Text || n > kTextPeriod) {
    const Pattern& full = pattern(p);
    std::vector<char> r;
    for (size_t i = 0; i < n; ++i) r.push_back(full.table[i % full.period]);
    return r;
  }
  Lcg g;
  std::vector<char> r;
  text(g, r, n);
  return r;
}

}  // namespace ptybench
