// One connection handed over a SOCK_SEQPACKET socket: a 2-byte port and one descriptor
// (SCM_RIGHTS). blaude only ever sends descriptors into the sandbox (its own end of a fresh
// socketpair, never a host TCP socket, which connect(AF_UNSPEC) would turn into a socket of the
// host's network); the relay is the only receiver.
#pragma once
#include <cstdint>

#include "common/unique_fd.hpp"

namespace blaude::net {

// Non-blocking, no SIGPIPE. Returns 0 or -errno (EAGAIN: the relay is not keeping up).
int send_connection(int sock, uint16_t port, int fd);

struct Received {
  int err = 0;       // -errno; -EAGAIN: nothing pending
  bool eof = false;  // the other end closed
  uint16_t port = 0;
  UniqueFd fd;       // close-on-exec; empty when the message carried none (or more than one)
};
Received receive_connection(int sock);

}  // namespace blaude::net
