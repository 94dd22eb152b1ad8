#include "net/refusals.hpp"

#include <algorithm>

namespace blaude::net {

void RefusalTally::add(const std::string& dest) {
  ++total_;
  for (Entry& e : entries_)
    if (e.dest == dest) {
      ++e.count;
      return;
    }
  if (entries_.size() < kMaxDistinct) {
    entries_.push_back({dest.substr(0, 300), 1});
  } else {
    ++unlisted_;
  }
}

std::string RefusalTally::summary_line() const {
  if (total_ == 0) return "";
  std::vector<Entry> by_count = entries_;
  std::stable_sort(by_count.begin(), by_count.end(), [](const Entry& a, const Entry& b) { return a.count > b.count; });
  std::string out = "blaude: refused " + std::to_string(total_) + (total_ == 1 ? " connection: " : " connections: ");
  size_t shown = std::min(by_count.size(), kShown);
  for (size_t i = 0; i < shown; ++i) {
    if (i) out += ", ";
    out += by_count[i].dest;
    if (by_count[i].count > 1) out += " (" + std::to_string(by_count[i].count) + ")";
  }
  size_t more = by_count.size() - shown;
  if (unlisted_) out += ", and more destinations";
  else if (more) out += ", and " + std::to_string(more) + (more == 1 ? " more destination" : " more destinations");
  return out + "; allow with --allow-domain";
}

}  // namespace blaude::net
