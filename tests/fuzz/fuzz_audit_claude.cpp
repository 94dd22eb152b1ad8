// libFuzzer: the audit's projection and restore of Claude Code's files on any bytes (the agent
// writes them). Input: "before" NUL "after". Invariants: nothing crashes or throws; the text the
// audit writes back parses, its projection equals the start's (no code-bearing key of the agent's
// survives, none of the user's is lost), and a file compared with itself has no change.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "audit/claude_files.hpp"

using namespace blaude::audit;

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "claude files invariant violated: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  const std::string before_text = in.substr(0, nul);
  const std::string after_text = nul == std::string::npos ? in : in.substr(nul + 1);
  for (ClaudeFile kind : {ClaudeFile::Settings, ClaudeFile::State}) {
    const auto before = project_claude(kind, before_text);
    const auto after = project_claude(kind, after_text);
    // A file compared with itself has no change, unless it does not parse: that is hostile always.
    if (after.parsed && !claude_changes(after, after).empty()) fail("a file differs from itself");
    if (!after.parsed && claude_changes(before, after).empty()) fail("an unparseable file passed");
    std::string how;
    const auto clean = claude_clean_text(kind, before_text, after_text, &how);
    if (!clean) {
      if (after.parsed) fail("nothing to write back although the agent's text parses");
      continue;  // no text at the start, and the agent's is hostile: only the aside copy
    }
    const auto back = project_claude(kind, *clean);
    if (!back.parsed) {
      if (*clean != before_text) fail("wrote back text that does not parse");
      continue;  // the start's own text, unparseable as it was: only when before did not parse
    }
    // Against the start: the same code-bearing keys (none when the start had none or did not parse).
    const auto want = before.parsed ? before.keys : decltype(before.keys){};
    if (back.keys != want) fail("the written file's code-bearing keys differ from the start's");
  }
  return 0;
}
