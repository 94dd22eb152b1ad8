#include "common/strict_json.hpp"

#include <cmath>
#include <cstdlib>
#include <unordered_set>
#include <vector>

namespace blaude {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

void put_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

class Checker {
public:
  Checker(std::string_view s, size_t max_depth) : s_(s), max_depth_(max_depth) {}

  std::string run() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") return at("a byte order mark");
    // One frame per open object or array; an object's frame holds its keys so far.
    struct Frame {
      bool object;
      std::unordered_set<std::string> keys;
    };
    std::vector<Frame> stack;
    bool want_value = true;
    for (;;) {
      skip_ws();
      if (want_value) {
        if (i_ >= s_.size()) return at("the text ends where a value should be");
        const char c = s_[i_];
        if (c == '{' || c == '[') {
          if (stack.size() >= max_depth_) return at("nested deeper than " + std::to_string(max_depth_) + " levels");
          ++i_;
          stack.push_back({c == '{', {}});
          skip_ws();
          if (i_ < s_.size() && s_[i_] == (c == '{' ? '}' : ']')) {
            ++i_;
            stack.pop_back();
            want_value = false;
          } else if (c == '{' && !key(stack.back().keys)) {
            return err_;
          }
          continue;
        }
        if (c == '"') {
          if (!string(nullptr)) return err_;
        } else if (c == '-' || is_digit(c)) {
          if (!number()) return err_;
        } else if (!literal("true") && !literal("false") && !literal("null")) {
          return at("not a JSON value");
        }
        want_value = false;
        continue;
      }
      if (stack.empty()) return i_ == s_.size() ? std::string() : at("text after the JSON value");
      if (i_ >= s_.size()) return at("the text ends inside an object or array");
      const char c = s_[i_];
      Frame& top = stack.back();
      if (c == ',') {
        ++i_;
        if (top.object && !key(top.keys)) return err_;
        want_value = true;
      } else if (c == (top.object ? '}' : ']')) {
        ++i_;
        stack.pop_back();
      } else {
        return at(top.object ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
  }

private:
  std::string at(const std::string& why) {
    err_ = why + " (byte " + std::to_string(i_) + ")";
    return err_;
  }
  bool fail(const std::string& why) {
    at(why);
    return false;
  }

  void skip_ws() {
    while (i_ < s_.size() && is_ws(s_[i_])) ++i_;
  }

  bool literal(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }

  // A key, then ':'; a key seen before in the same object is refused.
  bool key(std::unordered_set<std::string>& keys) {
    skip_ws();
    if (i_ >= s_.size() || s_[i_] != '"') return fail("expected a key");
    const size_t start = i_;
    std::string k;
    if (!string(&k)) return false;
    if (!keys.insert(std::move(k)).second) {
      i_ = start;
      return fail("a key that the same object already has");
    }
    skip_ws();
    if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':'");
    ++i_;
    return true;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, within a double's range: JSON.parse reads
  // 1e999 as Infinity where nlohmann refuses the whole text, so the two would differ.
  bool number() {
    const size_t start = i_;
    if (!number_syntax()) return false;
    const std::string token(s_.substr(start, i_ - start));
    if (!std::isfinite(std::strtod(token.c_str(), nullptr))) {
      i_ = start;
      return fail("a number out of a double's range");
    }
    return true;
  }

  bool number_syntax() {
    if (s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !is_digit(s_[i_])) return fail("a malformed number");
    if (s_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !is_digit(s_[i_])) return fail("a malformed number");
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !is_digit(s_[i_])) return fail("a malformed number");
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    }
    return true;
  }

  bool hex4(unsigned& v) {
    if (s_.size() - i_ < 4) return fail("a short \\u escape");
    v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else return fail("a malformed \\u escape");
    }
    return true;
  }

  // One UTF-8 sequence starting at s_[i_] (>= 0x80), RFC 3629's table: no overlong form, no
  // surrogate, nothing above U+10FFFF.
  bool utf8(std::string* out) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s_[i_ + k]); };
    const unsigned char c = b(0);
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, lo = 0xA0;
    else if (c == 0xED) n = 3, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 3;
    else if (c == 0xF0) n = 4, lo = 0x90;
    else if (c == 0xF4) n = 4, hi = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else return fail("invalid UTF-8");
    if (s_.size() - i_ < n) return fail("invalid UTF-8");
    if (b(1) < lo || b(1) > hi) return fail("invalid UTF-8");
    for (size_t k = 2; k < n; ++k)
      if (b(k) < 0x80 || b(k) > 0xBF) return fail("invalid UTF-8");
    if (out) out->append(s_.substr(i_, n));
    i_ += n;
    return true;
  }

  // A string at s_[i_] == '"'; its decoded text into `out` when asked.
  bool string(std::string* out) {
    ++i_;
    for (;;) {
      if (i_ >= s_.size()) return fail("an unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return fail("a control character in a string");
      if (c >= 0x80) {
        if (!utf8(out)) return false;
        continue;
      }
      if (c != '\\') {
        if (out) *out += char(c);
        ++i_;
        continue;
      }
      if (++i_ >= s_.size()) return fail("an unterminated string");
      const char e = s_[i_++];
      unsigned cp;
      switch (e) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u': {
          if (!hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("a lone low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned low;
            if (s_.substr(i_, 2) != "\\u") return fail("a lone high surrogate in a \\u escape");
            i_ += 2;
            if (!hex4(low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("a lone high surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          break;
        }
        default: --i_; return fail("an unknown escape");
      }
      if (out) put_utf8(*out, cp);
    }
  }

  std::string_view s_;
  size_t max_depth_;
  size_t i_ = 0;
  std::string err_;
};

}  // namespace

std::string strict_json_error(std::string_view text, size_t max_depth) { return Checker(text, max_depth).run(); }

std::optional<nlohmann::ordered_json> strict_json_parse(std::string_view text, std::string* why, size_t max_depth) {
  std::string e = strict_json_error(text, max_depth);
  if (e.empty()) {
    auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/false);
    if (!j.is_discarded()) return j;
    e = "not JSON";  // not reached: what the check accepts, nlohmann reads
  }
  if (why) *why = std::move(e);
  return std::nullopt;
}

}  // namespace blaude
