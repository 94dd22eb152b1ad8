// libFuzzer: the journal's record of the repositories' start (app/journal.hpp) on any bytes.
// Invariants: no crash or loop; what it accepts, written again, reads back to the same walk
// and snapshot (so nothing is half read or read differently the second time).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "app/journal.hpp"

using namespace blaude;

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "git journal invariant violated: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  audit::WalkInput w;
  audit::Snapshot s;
  if (!app::parse_git_journal(text, w, s)) return 0;
  const std::string again = app::git_journal_text(w, s);
  audit::WalkInput w2;
  audit::Snapshot s2;
  if (!app::parse_git_journal(again, w2, s2)) fail("its own text does not read back");
  if (w2.roots != w.roots || w2.home != w.home) fail("the walk differs");
  if (!(s2.files == s.files) || s2.repos != s.repos || s2.own_hook_dirs != s.own_hook_dirs ||
      s2.configured_hook_dirs != s.configured_hook_dirs || s2.unchecked != s.unchecked ||
      s2.claude_names != s.claude_names || s2.complete != s.complete)
    fail("the snapshot differs");
  if (app::git_journal_text(w2, s2) != again) fail("the text differs");
  return 0;
}
