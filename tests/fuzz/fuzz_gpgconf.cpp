// libFuzzer: gpgconf --list-dirs parsing never crashes, only yields absolute paths, and the
// binds it leads to never name the agent's ssh socket unless gpgconf itself put it there.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sandbox/bwrap/probe/gpg.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto d = blaude::sandbox::bwrap::parse_gpgconf_dirs(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto& [k, v] : d)
    if (k.empty() || v.empty() || v.front() != '/') std::abort();
  auto b = blaude::sandbox::bwrap::gpg_binds(d);
  if (d.count("agent-extra-socket") && b.agent_source != d.at("agent-extra-socket")) std::abort();
  return 0;
}
