// libFuzzer: the one git config parser (common/git_config.hpp) through the sandbox's view of it
// (sandbox/workspace/git_config.hpp). Never crashes, and the view is the parser's entries
// exactly: every entry whose section and name are git key words, in order, split at git's dots, with a lower-case section
// and key made only of the characters git allows there.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/git_config.hpp"
#include "sandbox/workspace/git_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto entries = blaude::sandbox::workspace::parse_git_config(text);
  const auto parsed = blaude::parse_git_config(text);
  size_t j = 0;
  for (const auto& p : parsed.entries) {
    const auto k = blaude::split_key(p.key);
    bool word = !k.section.empty() && !k.name.empty();
    for (char c : k.section + k.name)
      word &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    if (!word) continue;
    if (j >= entries.size()) std::abort();
    const auto& e = entries[j++];
    if (e.section != k.section || e.subsection != k.subsection || e.key != k.name) std::abort();
    if (e.has_value != p.value.has_value() || (p.value && e.value != *p.value)) std::abort();
  }
  if (j != entries.size()) std::abort();
  for (const auto& e : entries) {
    if (e.section.empty() || e.key.empty()) std::abort();
    for (char c : e.section + e.key)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) std::abort();
    if (!e.has_value && !e.value.empty()) std::abort();
  }
  (void)blaude::sandbox::workspace::git_config_facts(entries);
  return 0;
}
