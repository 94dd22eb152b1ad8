// libFuzzer: any input the policy parser accepts yields only the declared rules on the declared
// paths (see tests/unit/policy_invariants.hpp); rejected input grants nothing.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "../unit/policy/invariants.hpp"
#include "../unit/policy/test_context.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto why = blaude::sandbox::testing::check_policy_invariants(
      text, blaude::sandbox::testing::test_context());
  if (!why.empty()) {
    std::fprintf(stderr, "policy invariant violated: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
