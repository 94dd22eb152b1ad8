#include "common/limits.hpp"

#include <cstdio>

namespace blaude {

std::optional<uint64_t> parse_memory_size(std::string_view t, std::string* why) {
  auto bad = [&](std::string w) -> std::optional<uint64_t> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  const std::string shown(t.substr(0, 40));
  const std::string form = "'" + shown + "' is not a size (a number with K, M, G or T: 8G, 512M, 1.5G)";
  size_t i = 0;
  uint64_t whole = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    if (whole > (UINT64_MAX - 9) / 10) return bad(form);
    whole = whole * 10 + uint64_t(t[i++] - '0');
  }
  if (i == 0) return bad(form);
  // One to three decimals (1.5G): in thousandths.
  uint64_t frac = 0, scale = 1;
  if (i < t.size() && t[i] == '.') {
    ++i;
    size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - start < 3) {
      frac = frac * 10 + uint64_t(t[i++] - '0');
      scale *= 10;
    }
    if (i == start || (i < t.size() && t[i] >= '0' && t[i] <= '9')) return bad(form);
  }
  uint64_t unit = 1;
  if (i < t.size()) {
    switch (t[i] | 0x20) {
      case 'k': unit = 1ULL << 10; break;
      case 'm': unit = 1ULL << 20; break;
      case 'g': unit = 1ULL << 30; break;
      case 't': unit = 1ULL << 40; break;
      default: return bad(form);
    }
    ++i;
    std::string_view rest = t.substr(i);
    if (!(rest.empty() || rest == "B" || rest == "b" || rest == "iB" || rest == "ib")) return bad(form);
  } else if (scale != 1) {
    return bad(form);  // "1.5" bytes
  }
  if (whole > (1ULL << 50) / unit) return bad("'" + shown + "' is more memory than any machine has");
  const uint64_t bytes = whole * unit + frac * unit / scale;
  if (bytes < kMinMemoryMax)
    return bad("'" + shown + "' is too little for the sandbox to start (at least " + format_size(kMinMemoryMax) + ")");
  return bytes;
}

std::optional<uint64_t> parse_pids_count(std::string_view t, std::string* why) {
  const std::string shown(t.substr(0, 40));
  uint64_t n = 0;
  bool ok = !t.empty() && t.size() <= 9;
  for (char c : t) ok = ok && c >= '0' && c <= '9', n = ok ? n * 10 + uint64_t(c - '0') : 0;
  if (!ok) {
    if (why) *why = "'" + shown + "' is not a number of processes (a whole number such as 4096)";
    return std::nullopt;
  }
  if (n < kMinPidsMax) {
    if (why) *why = "'" + shown + "' is too few for the sandbox to start (at least " + std::to_string(kMinPidsMax) + ")";
    return std::nullopt;
  }
  return n;
}

std::string format_size(uint64_t b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  uint64_t div = 1;
  while (u < 4 && b >= div * 1024) div *= 1024, ++u;
  char buf[48];
  if (b % div == 0)
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(b / div), units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", double(b) / double(div), units[u]);
  return buf;
}

}  // namespace blaude
