// libFuzzer: the exec shim's record of the mounts to check (mount_checks.hpp) never crashes the
// parser; what it accepts formats back to exactly the input (one reading of the record only).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sandbox/bwrap/run/mount_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto v = blaude::sandbox::bwrap::parse_check_lines(in);
  if (!v) return 0;
  for (const auto& c : *v)
    if (c.dst.empty() || c.dst.front() != '/') std::abort();
  // Numbers may carry leading zeros in the input; the canonical form parses to the same lines.
  auto again = blaude::sandbox::bwrap::parse_check_lines(blaude::sandbox::bwrap::format_check_lines(*v));
  if (!again || *again != *v) std::abort();
  return 0;
}
