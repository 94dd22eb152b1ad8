// Where accepted copies go. The helper sink runs the chosen clipboard tool with uv_spawn on the
// session's loop: the payload is its stdin (an in-memory file, so nothing is written
// asynchronously), stdout and stderr are /dev/null (xclip and friends fork a background owner
// that would otherwise hold a pipe open), and it is killed after a timeout. The proxy never
// waits for it. One helper runs at a time, so copies land in order; while one runs, a burst of
// newer copies keeps only the last.
#pragma once
#include <uv.h>

#include <cstdint>
#include <memory>

#include "osc52/backend.hpp"
#include "osc52/decode.hpp"

namespace blaude::osc52 {

class Sink {
public:
  virtual ~Sink() = default;
  virtual void copy(Copy c) = 0;
};

// The sink may be destroyed before the loop has run to completion: a helper still running
// keeps its own handles (and the newest pending copy) alive until it exits or its timeout
// kills it, so the last copy of a session is not lost and the loop stays bounded.
std::unique_ptr<Sink> make_helper_sink(uv_loop_t* loop, Backend backend, uint64_t timeout_ms);

}  // namespace blaude::osc52
