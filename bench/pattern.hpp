// The payloads a throughput run carries. Both are periodic tables the producer writes and the
// driver compares every byte against, from the first byte of the stream on. No byte of either
// can be altered by a raw pty (no ISIG, IXON, ICRNL, OPOST): anything the driver sees that
// differs was lost, duplicated, reordered or added on the way.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ptybench {

enum class Payload : uint8_t {
  Text,     // printable ASCII ('!'..'~'), an LCG: a stream without a single control byte
  Escapes,  // TUI output: SGR colours, cursor moves, erases, titles, links (an ESC every ~14 B)
};

struct Pattern {
  size_t period = 0;        // the payload repeats with this period (a prime: no read or write
                            // size lines up with it, so a lost or repeated chunk shows)
  std::vector<char> table;  // the period stored twice: any window of <= period bytes at
                            // offset % period is contiguous (one memcmp per read)
};

// Built on first use (a few ms), then shared.
const Pattern& pattern(Payload p);

// The first n bytes of the payload without building the whole table (for tiny runs, so that
// time to first output measures the proxy's start, not the table's).
std::vector<char> pattern_prefix(Payload p, size_t n);

// The escape payload's period ends with an SGR reset and a complete sequence, so a run of whole
// periods leaves the terminal in its default state (a state guard then has nothing to add).
inline constexpr std::string_view kEchoReady = "<<PTYBENCH-ECHO>>";
inline constexpr std::string_view kWinchReady = "<<PTYBENCH-WINCH>>";

}  // namespace ptybench
