// The scanner's hot loop: where, in a run of output that is not inside any sequence, the next
// ESC is that could open one of ours (OSC 52, tmux's or screen's DCS wrapping: `ESC ] 5`,
// `ESC P t`, `ESC P ESC`, `ESC ESC`, also with the controls a terminal skips inside an opening:
// `ESC ] ^A 5`) or that sits too close to the end of the read to tell.
// Every other escape a TUI writes (CSI, OSC 0/8, charsets, ...) is decided by the one or two
// bytes after its ESC and is plain text here. Pure.
#pragma once
#include <cstddef>
#include <string_view>

namespace blaude::osc52 {

// The first such ESC at or after `from`, or in.size() if there is none.
size_t next_candidate(std::string_view in, size_t from);

// The same, one byte at a time: the definition next_candidate is tested against.
size_t next_candidate_reference(std::string_view in, size_t from);

}  // namespace blaude::osc52
