#include "common/pipe.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/platform.hpp"

namespace blaude {

namespace {

#if !BLAUDE_LINUX_CALLS
// pipe() then fcntl(): not atomic, but blaude makes pipes and starts children on one thread,
// and its fork path (pty/spawn.cpp) closes every descriptor it does not keep before exec.
bool set_flags(int fd, bool nonblock) {
  int fd_flags = ::fcntl(fd, F_GETFD);
  if (fd_flags < 0 || ::fcntl(fd, F_SETFD, fd_flags | FD_CLOEXEC) != 0) return false;
  if (!nonblock) return true;
  int fl = ::fcntl(fd, F_GETFL);
  return fl >= 0 && ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}
#endif

#if BLAUDE_LINUX_CALLS
int sock_flags(bool nonblock) { return SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0); }
#endif

}  // namespace

bool make_pipe(UniqueFd& read_end, UniqueFd& write_end, bool nonblock) {
  int fds[2];
#if BLAUDE_LINUX_CALLS
  if (::pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0)) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
#else
  if (::pipe(fds) != 0) return false;
  UniqueFd r(fds[0]), w(fds[1]);
  if (!set_flags(r.get(), nonblock) || !set_flags(w.get(), nonblock)) return false;
  read_end = std::move(r);
  write_end = std::move(w);
  return true;
#endif
}

int make_socket(int domain, int type, bool nonblock) {
#if BLAUDE_LINUX_CALLS
  return ::socket(domain, type | sock_flags(nonblock), 0);
#else
  UniqueFd fd(::socket(domain, type, 0));
  if (!fd || !set_flags(fd.get(), nonblock)) return -1;
  return fd.release();
#endif
}

int make_socketpair(int domain, int type, int sv[2], bool nonblock) {
#if BLAUDE_LINUX_CALLS
  return ::socketpair(domain, type | sock_flags(nonblock), 0, sv);
#else
  int fds[2];
  if (::socketpair(domain, type, 0, fds) != 0) return -1;
  UniqueFd a(fds[0]), b(fds[1]);
  if (!set_flags(a.get(), nonblock) || !set_flags(b.get(), nonblock)) return -1;
  sv[0] = a.release();
  sv[1] = b.release();
  return 0;
#endif
}

}  // namespace blaude
