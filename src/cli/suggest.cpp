#include "cli/suggest.hpp"

#include <algorithm>
#include <vector>

#include "cli/option_table.hpp"

namespace blaude::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the DP table: i-2, i-1, i.
  std::vector<size_t> pp(b.size() + 1), p(b.size() + 1), c(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) p[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    c[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      c[j] = std::min({p[j] + 1, c[j - 1] + 1, p[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) c[j] = std::min(c[j], pp[j - 2] + 1);
    }
    std::swap(pp, p);
    std::swap(p, c);
  }
  return p[b.size()];
}

std::optional<std::string_view> suggest_option(std::string_view word) {
  if (!word.starts_with("--") || word.size() <= 2) return std::nullopt;
  const std::string_view name = word.substr(0, word.find('='));
  if (is_claude_option(name)) return std::nullopt;
  for (const OptionSpec& s : option_table()) {
    if (name == s.name) return name != word ? std::optional(s.name) : std::nullopt;
  }
  std::optional<std::string_view> best;
  size_t best_d = 3;
  for (const OptionSpec& s : option_table()) {
    size_t d = edit_distance(name, s.name);
    if (d < best_d) {
      best = s.name;
      best_d = d;
    }
  }
  return best;
}

bool is_claude_option(std::string_view name) {
  auto all = claude_options();
  return std::binary_search(all.begin(), all.end(), name);
}

}  // namespace blaude::cli
