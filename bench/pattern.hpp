// The payload every throughput run carries, and the marker that says where it starts.
// Bytes are printable ASCII only ('!'..'~'), so no line discipline setting (ONLCR, ICRNL, ISIG,
// IEXTEN) can alter them: anything the driver sees that differs was lost, duplicated or reordered.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ptybench {

// Prime period: no read or write size lines up with it, so a lost or repeated chunk shifts the
// stream against the table and shows up as a mismatch.
inline constexpr size_t kPeriod = 1048573;

// Written by the producer before the payload. The proxy may print something first (blaude's
// "--no-sandbox" notice); everything before the marker is preamble and is not counted.
inline constexpr std::string_view kStartMarker = "<<PTYBENCH-START>>";
inline constexpr std::string_view kEchoReady = "<<PTYBENCH-ECHO>>";
inline constexpr std::string_view kWinchReady = "<<PTYBENCH-WINCH>>";

// The pattern, stored twice in a row so that any window of up to kPeriod bytes starting at
// offset % kPeriod is contiguous (one memcmp per read).
inline const std::vector<char>& pattern_table() {
  static const std::vector<char> table = [] {
    std::vector<char> t(2 * kPeriod);
    uint32_t x = 0x2545F491u;
    for (size_t i = 0; i < kPeriod; ++i) {
      x = x * 1664525u + 1013904223u;  // LCG: a counter-derived sequence, cheap to regenerate
      t[i] = t[i + kPeriod] = static_cast<char>('!' + (x >> 24) % 94);
    }
    return t;
  }();
  return table;
}

}  // namespace ptybench
