// libFuzzer: the hosts file parser (net/host_view.hpp) on any bytes. Invariants: no crash or
// loop; the names are lower case, sorted, each once, never empty, without blanks, and at most
// the cap; a name is only ever one the text holds (case aside).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "net/host_view.hpp"

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "hosts file invariant violated: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto names = blaude::net::parse_hosts_file(text, 16);
  if (names.size() > 16) fail("more names than the cap");
  if (!std::is_sorted(names.begin(), names.end())) fail("not sorted");
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) fail("a name twice");
  std::string lower(text);
  for (auto& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& n : names) {
    if (n.empty()) fail("an empty name");
    for (unsigned char c : n)
      if (std::isspace(c) || std::isupper(c) || c == '#') fail("a blank, an upper case letter or # in a name");
    if (lower.find(n) == std::string::npos) fail("a name the text does not hold");
  }
  return 0;
}
