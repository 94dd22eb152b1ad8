// The control channel between blaude and the in-sandbox relay: one SOCK_SEQPACKET socketpair,
// inherited by the relay, carrying short messages (a kind byte and a 32-bit value) and at most
// one descriptor each:
//   relay → blaude  Request(id)           "a connection to the proxy, please" (never a descriptor)
//   blaude → relay  Proxy(id) + fd        the answer: one end of a fresh socketpair whose other
//                                         end the proxy serves; without fd: refused (at the limit)
//   blaude → relay  Published(port) + fd  a host connection to --publish PORT, to connect inside
//   blaude → relay  Capture(port)         `blaude net allow` named PORT: capture it too (no fd)
// The channel has no name anywhere, so nothing outside this session can reach the proxy through
// it. Descriptors only ever go into the sandbox (blaude's own ends of fresh socketpairs, never a
// host TCP socket, which connect(AF_UNSPEC) would turn into a socket of the host's network);
// blaude reads the relay's messages with no room for descriptors, so the kernel discards any.
#pragma once
#include <cstdint>

#include "common/unique_fd.hpp"

namespace blaude::net {

enum class ChannelKind : uint8_t { Request = 'R', Proxy = 'C', Published = 'P', Capture = 'L' };

// Non-blocking, no SIGPIPE; `fd` -1 sends none. Returns 0 or -errno (-EAGAIN: the other side is
// not keeping up).
int send_message(int sock, ChannelKind kind, uint32_t value, int fd = -1);

struct Received {
  int err = 0;       // -errno; -EAGAIN: nothing pending; -EPROTO: a malformed message (skipped)
  bool eof = false;  // the other end closed
  ChannelKind kind = ChannelKind::Request;
  uint32_t value = 0;
  UniqueFd fd;       // close-on-exec; a socket, or empty
};
// `take_fd`: false reads with no room for descriptors (the kernel closes any that came).
// A message with more than one descriptor, or one that is not a socket, is malformed.
Received receive_message(int sock, bool take_fd);

}  // namespace blaude::net
