#include "common/shown.hpp"

namespace blaude {

namespace {

const char* kHex = "0123456789abcdef";

void hex_byte(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

bool hidden(unsigned cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

// Length of a valid UTF-8 sequence at s[i] (>= 0x80) and its code point; 0 when invalid.
size_t utf8_at(std::string_view s, size_t i, unsigned& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c == 0xE0) n = 3, lo = 0xA0, cp = c & 0x0F;
  else if (c == 0xED) n = 3, hi = 0x9F, cp = c & 0x0F;
  else if (c >= 0xE1 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c == 0xF0) n = 4, lo = 0x90, cp = c & 0x07;
  else if (c == 0xF4) n = 4, hi = 0x8F, cp = c & 0x07;
  else if (c >= 0xF1 && c <= 0xF3) n = 4, cp = c & 0x07;
  else return 0;
  if (s.size() - i < n || b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 1; k < n; ++k) {
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  return n;
}

// Calls plain(i, n) for each run of bytes shown as they are and esc(i, n, cp) for each
// character or byte that is escaped (cp: its code point, or ~0u for a byte of invalid UTF-8).
template <class Plain, class Esc>
void scan(std::string_view s, Plain plain, Esc esc) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F || c == '\\') esc(i, 1, unsigned(c));
      else plain(i, 1);
      ++i;
      continue;
    }
    unsigned cp = 0;
    const size_t n = utf8_at(s, i, cp);
    if (n == 0) {
      esc(i, 1, ~0u);
      ++i;
    } else {
      if (hidden(cp)) esc(i, n, cp);
      else plain(i, n);
      i += n;
    }
  }
}

}  // namespace

std::string shown(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  scan(
      s, [&](size_t i, size_t n) { out.append(s.substr(i, n)); },
      [&](size_t i, size_t, unsigned cp) {
        switch (cp) {
          case '\\': out += "\\\\"; return;
          case '\n': out += "\\n"; return;
          case '\r': out += "\\r"; return;
          case '\t': out += "\\t"; return;
          case 0x1B: out += "\\e"; return;
          default: break;
        }
        if (cp == ~0u || cp < 0x80) return hex_byte(out, static_cast<unsigned char>(s[i]));
        out += "\\u";
        for (int sh = 12; sh >= 0; sh -= 4) out += kHex[(cp >> sh) & 15];
      });
  return out;
}

bool shows_as_is(std::string_view s) {
  bool as_is = true;
  scan(s, [](size_t, size_t) {}, [&](size_t, size_t, unsigned) { as_is = false; });
  return as_is;
}

std::string shell_word_shown(std::string_view s) {
  if (shows_as_is(s)) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  std::string out = "$'";
  scan(
      s,
      [&](size_t i, size_t n) {
        for (char c : s.substr(i, n)) {
          if (c == '\'') out += "\\'";
          else out += c;
        }
      },
      [&](size_t i, size_t n, unsigned) {
        for (size_t k = 0; k < n; ++k) hex_byte(out, static_cast<unsigned char>(s[i + k]));
      });
  return out + "'";
}

}  // namespace blaude
