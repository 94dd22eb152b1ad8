// What the proxy refused during a session, for the one line blaude prints after it:
//   blaude: refused 3 connections: evil.example:443 (2), 10.0.0.5:22; allow with --allow-domain
// Bounded: at most kMaxDistinct destinations are remembered; the rest are counted together.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace blaude::net {

class RefusalTally {
public:
  static constexpr size_t kMaxDistinct = 256;
  static constexpr size_t kShown = 5;

  void add(const std::string& destination);
  size_t total() const { return total_; }
  // "" when nothing was refused.
  std::string summary_line() const;

private:
  struct Entry {
    std::string dest;
    size_t count;
  };
  std::vector<Entry> entries_;  // first-seen order
  size_t total_ = 0;
  size_t unlisted_ = 0;  // refusals of destinations past kMaxDistinct
};

}  // namespace blaude::net
