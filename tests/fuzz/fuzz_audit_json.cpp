// libFuzzer: the strict JSON check in front of every parse of Claude Code's files, and the one
// sanitizer for what blaude prints of them. Invariants: nothing crashes (no recursion, whatever the
// nesting); what the check accepts nlohmann reads, and nlohmann's dump of it passes again;
// shown() gives one line of printable, valid UTF-8 with no bidi, zero-width or C1 character.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/shown.hpp"
#include "common/strict_json.hpp"

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "audit json invariant violated: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const std::string err = blaude::strict_json_error(in, 64);
  if (err.empty()) {
    auto j = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) fail("accepted text that nlohmann refuses");
    // Re-serialised, it passes again (nlohmann's dump recurses: safe only because the check
    // bounded the depth).
    const std::string again = j.dump();
    if (!blaude::strict_json_error(again, 64).empty()) fail("nlohmann's own dump of an accepted text is refused");
  }
  if (in.size() >= 3 && in.compare(0, 3, "\xEF\xBB\xBF") == 0 && err.empty()) fail("a BOM passed");
  const std::string s = blaude::shown(in);
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) fail("shown() left a control byte");
  // Valid UTF-8 throughout, and none of the hidden characters: as a JSON string it passes.
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\\\"") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  quoted += "\"";
  if (!blaude::strict_json_error(quoted).empty()) fail("shown() left invalid UTF-8");
  for (const char* hidden : {"\xe2\x80\xae", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xc2\x9b", "\xe2\x81\xa6", "\xd8\x9c"})
    if (s.find(hidden) != std::string::npos) fail("shown() left a hidden character");
  return 0;
}
