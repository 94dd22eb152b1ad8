// A close-on-exec pipe (optionally non-blocking): the one place that makes pipes (pipe2 on
// Linux, pipe + fcntl with the POSIX fallbacks, see common/platform.hpp).
#pragma once
#include "common/unique_fd.hpp"

namespace blaude {

// Both ends close-on-exec; nonblock sets O_NONBLOCK on both. false (errno set) on failure.
bool make_pipe(UniqueFd& read_end, UniqueFd& write_end, bool nonblock = false);

}  // namespace blaude
