// libFuzzer target for the reply fence's matcher (term/reply_fence.hpp). Invariants:
//  - the verdict (DA1 seen, DSR seen) is the same whole, cut in two anywhere, and byte by byte;
//  - every byte fed counts as discarded;
//  - the wait never exceeds the bound, and the fence is over at the bound whatever came.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "term/reply_fence.hpp"

using blaude::term::ReplyFence;

namespace {
void require(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t cut = data[0] % size;
  cut = cut > in.size() ? in.size() : cut;
  const uint64_t t0 = 1000;

  ReplyFence whole(t0);
  whole.feed(in, t0 + 1);
  ReplyFence split(t0);
  split.feed(in.substr(0, cut), t0 + 1);
  split.feed(in.substr(cut), t0 + 2);
  ReplyFence bytes(t0);
  for (char c : in) bytes.feed(std::string_view(&c, 1), t0 + 3);
  require(split.saw_da1() == whole.saw_da1() && split.saw_dsr() == whole.saw_dsr());
  require(bytes.saw_da1() == whole.saw_da1() && bytes.saw_dsr() == whole.saw_dsr());
  require(whole.discarded() == in.size() && bytes.discarded() == in.size());
  require(whole.wait_ms(t0) <= ReplyFence::kBoundMs);
  require(whole.done(t0 + ReplyFence::kBoundMs));
  return 0;
}
