// libFuzzer: the git config reader never crashes, and what it reports is consistent: every entry
// has a lower-case section and key made only of the characters git allows there.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sandbox/workspace/git_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto entries = blaude::sandbox::workspace::parse_git_config(text);
  for (const auto& e : entries) {
    if (e.section.empty() || e.key.empty()) std::abort();
    for (char c : e.section + e.key)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) std::abort();
    if (!e.has_value && !e.value.empty()) std::abort();
  }
  (void)blaude::sandbox::workspace::git_config_facts(entries);
  return 0;
}
