// libFuzzer: the git index reader (audit/git_index.hpp) on any bytes, as both object name
// lengths. Invariants: it never crashes, reads out of bounds or loops; an answer without an
// error holds at most the cap's number of gitlinks; a split index's link is a hex name of the
// hash's length; and the bytes cut anywhere never read as a whole index with more gitlinks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "audit/git_index.hpp"

using namespace blaude::audit;

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "git index invariant violated: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (size_t hash : {size_t(20), size_t(32)}) {
    const IndexGitlinks g = index_gitlinks(text, hash, 8);
    if (!g.error.empty()) continue;
    if (g.paths.size() > 8) fail("more gitlinks than the cap");
    if (!g.shared.empty() && g.shared.size() != 2 * hash) fail("shared index name of the wrong length");
    for (const auto& p : g.paths)
      if (p.size() > size) fail("a path longer than the input");
    // A prefix of a whole index is never a whole index too (the checksum's place is fixed).
    if (size > hash) {
      const IndexGitlinks cut = index_gitlinks(text.substr(0, size - 1), hash, 8);
      if (cut.error.empty() && cut.paths.size() > g.paths.size()) fail("a cut index has more gitlinks");
    }
    for (const auto& p : g.paths) (void)gitlink_path_ok(p);
  }
  return 0;
}
