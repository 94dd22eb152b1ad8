// blaude's descriptor budget. The proxy holds up to kFdsPerConnection descriptors a connection
// (the client, the upstream socket, a splice pipe each way), so proxy mode raises blaude's soft
// RLIMIT_NOFILE toward the hard limit; every child blaude starts gets the limit blaude had
// before (child_prologue), as a shell would have given it: a program using select() must not
// meet descriptors past FD_SETSIZE because blaude needed them.
#pragma once
#include <sys/resource.h>

#include <cstddef>

namespace blaude {

inline constexpr size_t kFdsPerConnection = 6;

// Raises the soft limit to the hard one (capped at 1 << 20); the soft limit in force after.
// Once per process; later calls only return the limit.
size_t raise_fd_limit();

// The limit before raise_fd_limit, for children; nullptr when it did not change anything.
// Async-signal-safe (a pointer to static storage).
const struct rlimit* original_fd_limit();

// How many proxy connections fit in `soft` descriptors, keeping `reserve` for everything else
// blaude holds (its own few dozen, and one for each connection answered 503 past the cap): at
// least 16, at most 4096. Pure.
size_t connection_cap(size_t soft, size_t reserve = 256);

}  // namespace blaude
