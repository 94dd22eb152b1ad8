// The sandbox's resource limits as values: what the user chose (flags, policy), the defaults,
// and the parsers both the command line and the policy file use. No I/O here; where the limits
// are enforced (a cgroup v2 leaf, else rlimits) is sandbox/bwrap/run/limits.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blaude {

// Defaults no normal Claude Code session meets (measured: docs/PERFORMANCE.md, "Resource
// limits"): Claude Code itself, a -j2 C++ build and a test suite stay far below both.
inline constexpr uint64_t kDefaultMemoryMax = 8ULL << 30;  // 8 GiB for the whole sandbox
inline constexpr uint64_t kDefaultPidsMax = 4096;          // tasks (processes and threads)
// Below these the sandbox's own start (bwrap, the shim, node) fails for want of them: refused.
inline constexpr uint64_t kMinMemoryMax = 256ULL << 20;
inline constexpr uint64_t kMinPidsMax = 64;

struct LimitSettings {
  bool off = false;  // --no-limits / `no-limits`: the account's limits only
  uint64_t memory_max = kDefaultMemoryMax;  // bytes
  uint64_t pids_max = kDefaultPidsMax;
  // Where each came from, for the exit line's hint: "--memory-max", "policy", "" = the default.
  std::string memory_from, pids_from, off_from;
};

// "8G", "512M", "8GiB", "1.5G", "1073741824": bytes (K/M/G/T binary, an optional "B"/"iB").
// nullopt with *why set when it is not a size, or is below the minimum.
std::optional<uint64_t> parse_memory_size(std::string_view text, std::string* why);
// A whole number of tasks, at least kMinPidsMax.
std::optional<uint64_t> parse_pids_count(std::string_view text, std::string* why);
// 8589934592 → "8 GiB", 1610612736 → "1.5 GiB", 300 MiB → "300 MiB".
std::string format_size(uint64_t bytes);

}  // namespace blaude
