// A close-on-exec pipe or socket (optionally non-blocking): the one place that makes them
// (pipe2 and SOCK_CLOEXEC on Linux, then fcntl with the POSIX fallbacks, see common/platform.hpp).
#pragma once
#include "common/unique_fd.hpp"

namespace blaude {

// Both ends close-on-exec; nonblock sets O_NONBLOCK on both. false (errno set) on failure.
bool make_pipe(UniqueFd& read_end, UniqueFd& write_end, bool nonblock = false);

// As socket(2) and socketpair(2) (-1, errno set, on failure), both ends close-on-exec; nonblock
// sets O_NONBLOCK. `type` is the plain type (SOCK_STREAM, SOCK_SEQPACKET), without flags.
int make_socket(int domain, int type, bool nonblock = false);
int make_socketpair(int domain, int type, int sv[2], bool nonblock = false);

}  // namespace blaude
