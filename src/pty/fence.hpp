// Handing the user's terminal back (at the end of a session, on Ctrl-Z): the reply fence
// (term/reply_fence.hpp) as blocking I/O on the endpoint.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pty/terminal.hpp"

namespace blaude::pty {

// Whether blaude fences this endpoint: its input and output are terminals. (A terminal that is
// not the one the output goes to never sees the query: the fence then waits out its bound.)
bool fenceable(const Endpoint& ep);

struct FenceReport {
  bool sent = false;      // the query went out in full
  bool answered = false;  // the terminal's answer came
  uint64_t ms = 0;        // time spent reading
  size_t discarded = 0;   // input bytes read and thrown away, the answer included
};

// Writes `before` (what must reach the terminal ahead of the query) and the fence's query, then
// reads and discards the terminal's input until the answer is in, at most
// term::ReplyFence::kBoundMs (plus up to a second for a terminal that takes no output).
// The caller then restores the modes with TCSAFLUSH, which drops what came after.
FenceReport fence_terminal(const Endpoint& ep, std::string_view before);

}  // namespace blaude::pty
