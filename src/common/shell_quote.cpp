#include "common/shell_quote.hpp"

namespace blaude {

namespace {

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
         c == '.' || c == '_' || c == '-' || c == ':' || c == '@' || c == '=' || c == ',' ||
         c == '+' || c == '%';
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (s.empty()) return "''";
  bool safe = true;
  for (char c : s) safe = safe && safe_char(c);
  if (safe) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

}  // namespace blaude
