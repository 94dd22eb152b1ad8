// libFuzzer: the audit's git config parser on any bytes. Invariants: it never crashes or loops;
// what it writes back reads back to the same entries (so a sanitized config holds exactly the
// entries the audit kept); sanitizing a text against itself removes nothing, and against an
// empty "before" leaves no entry that classify() flags.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "audit/diff.hpp"
#include "common/git_config.hpp"
#include "audit/git_keys.hpp"

using namespace blaude;
using namespace blaude::audit;

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "git config invariant violated: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParsedConfig p = parse_git_config(text);
  int dropped = 0;
  const std::string written = write_git_config(p.entries, &dropped);
  const ParsedConfig back = parse_git_config(written);
  if (back.error_line) fail("written config does not parse");
  if (back.entries.size() + size_t(dropped) != p.entries.size()) fail("entries lost in writing");
  size_t j = 0;
  for (const auto& e : p.entries) {
    const KeyParts k = split_key(e.key);
    if (k.section.empty()) continue;
    if (j < back.entries.size() && back.entries[j] == e) ++j;
  }
  if (j != back.entries.size()) fail("written entries differ");
  std::vector<std::string> removed;
  sanitize_config(text, text, &removed);
  if (!removed.empty()) fail("sanitizing against itself removed something");
  for (const auto& e : parse_git_config(sanitize_config("", text, nullptr)).entries)
    if (classify(e).risk != Risk::None) fail("a dangerous entry survived sanitizing");
  return 0;
}
