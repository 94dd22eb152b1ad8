#include "asciinema/procinfo.hpp"

#include <charconv>

namespace blaude::asciinema {

namespace {

template <class T>
bool to_num(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// Splits on runs of blanks; stat fields after comm never contain any.
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !blank(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

std::optional<ProcStat> parse_stat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');  // comm may itself contain ')'
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  ProcStat st;
  std::string_view head = text.substr(0, open);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  if (!to_num(head, st.pid)) return std::nullopt;
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  auto f = fields(text.substr(close + 1));
  // f[0]=state f[1]=ppid f[2]=pgrp f[3]=session f[4]=tty_nr f[5]=tpgid
  if (f.size() < 6 || f[0].size() != 1) return std::nullopt;
  st.state = f[0][0];
  if (!to_num(f[1], st.ppid) || !to_num(f[2], st.pgrp) || !to_num(f[3], st.session) ||
      !to_num(f[4], st.tty_nr) || !to_num(f[5], st.tpgid))
    return std::nullopt;
  return st;
}

std::optional<ProcStatus> parse_status(std::string_view text) {
  ProcStatus ps;
  bool have_uid = false;
  size_t i = 0;
  while (i < text.size()) {
    size_t eol = text.find('\n', i);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(i, eol - i);
    i = eol + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    auto clean = fields(line.substr(colon + 1));
    if (clean.empty()) continue;
    if (key == "Uid") {
      if (!to_num(clean[0], ps.uid)) return std::nullopt;
      have_uid = true;
    } else if (key == "SigBlk") {
      if (!to_num(clean[0], ps.sig_blk, 16)) return std::nullopt;
    } else if (key == "SigIgn") {
      if (!to_num(clean[0], ps.sig_ign, 16)) return std::nullopt;
    } else if (key == "SigCgt") {
      if (!to_num(clean[0], ps.sig_cgt, 16)) return std::nullopt;
    }
  }
  if (!have_uid) return std::nullopt;
  return ps;
}

std::vector<std::string> split_nul(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t z = text.find('\0', i);
    if (z == std::string_view::npos) z = text.size();
    out.emplace_back(text.substr(i, z - i));
    i = z + 1;
  }
  return out;
}

std::optional<std::string> env_value(const std::vector<std::string>& environ, std::string_view key) {
  for (const auto& kv : environ)
    if (kv.size() > key.size() && kv.compare(0, key.size(), key) == 0 && kv[key.size()] == '=')
      return kv.substr(key.size() + 1);
  return std::nullopt;
}

}  // namespace blaude::asciinema
