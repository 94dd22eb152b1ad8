#include "net/fdpass.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/platform.hpp"

namespace blaude::net {

namespace {
constexpr size_t kSize = 5;  // kind, then the value big-endian
}

int send_message(int sock, ChannelKind kind, uint32_t value, int fd) {
  unsigned char payload[kSize] = {uint8_t(kind), uint8_t(value >> 24), uint8_t(value >> 16), uint8_t(value >> 8),
                                  uint8_t(value)};
  iovec iov{payload, sizeof payload};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  if (fd >= 0) {
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
#if BLAUDE_LINUX_CALLS
  constexpr int kNoSignal = MSG_NOSIGNAL;
#elif defined(SO_NOSIGPIPE)
  // Older macOS SDKs: the socket's own option instead (proxy mode is Linux-only for now).
  constexpr int kNoSignal = 0;
  int one = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#else
  constexpr int kNoSignal = 0;  // Linux's forced-fallbacks build: the relay ignores SIGPIPE
#endif
  for (;;) {
    ssize_t n = ::sendmsg(sock, &m, MSG_DONTWAIT | kNoSignal);
    if (n == ssize_t(sizeof payload)) return 0;
    if (n < 0 && errno == EINTR) continue;
    return n < 0 ? -errno : -EIO;
  }
}

Received receive_message(int sock, bool take_fd) {
  Received r;
  unsigned char payload[kSize + 1];  // one more: a longer message shows as too long, not as cut
  iovec iov{payload, sizeof payload};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int) * 4)] = {};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  if (take_fd) {
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
  }
  ssize_t n;
#if BLAUDE_LINUX_CALLS
  constexpr int kCloexec = MSG_CMSG_CLOEXEC;
#else
  constexpr int kCloexec = 0;  // POSIX has no MSG_CMSG_CLOEXEC: fcntl below (one thread forks)
#endif
  do n = ::recvmsg(sock, &m, MSG_DONTWAIT | kCloexec);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    r.err = -errno;
    return r;
  }
  if (n == 0) {
    r.eof = true;
    return r;
  }
  // Every descriptor that arrived is owned here, so none leaks whatever the message held.
  int fds[4];
  size_t nfds = 0;
  if (take_fd)
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < k && nfds < 4; ++i) std::memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
  bool ok = n == ssize_t(kSize) && nfds <= 1 && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
  for (size_t i = 0; i < nfds; ++i) {
    UniqueFd f(fds[i]);
    if (!kCloexec) ::fcntl(f.get(), F_SETFD, FD_CLOEXEC);
    struct stat st{};
    if (::fstat(f.get(), &st) != 0 || !S_ISSOCK(st.st_mode)) ok = false;
    else if (ok) r.fd = std::move(f);
  }
  const uint8_t k = payload[0];
  if (k != uint8_t(ChannelKind::Request) && k != uint8_t(ChannelKind::Proxy) && k != uint8_t(ChannelKind::Published) &&
      k != uint8_t(ChannelKind::Capture))
    ok = false;
  if (!ok) {
    r.fd.reset();
    r.err = -EPROTO;
    return r;
  }
  r.kind = ChannelKind(k);
  r.value = uint32_t(payload[1]) << 24 | uint32_t(payload[2]) << 16 | uint32_t(payload[3]) << 8 | payload[4];
  return r;
}

}  // namespace blaude::net
