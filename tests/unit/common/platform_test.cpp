// The build takes the calls it says it takes: with -DBLAUDE_POSIX_FALLBACKS=ON a Linux build must
// really run the fallbacks (else the fallbacks suite would test the Linux calls twice), and a
// normal Linux build the Linux calls. Observed from outside the code under test: what the kernel
// says a data fd is, and which pipe flags a made pipe has.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "catch.hpp"
#include "common/data_fd.hpp"
#include "common/pipe.hpp"
#include "common/platform.hpp"

using namespace blaude;

namespace {

std::string fd_target(int fd) {
  char buf[512];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

}  // namespace

TEST_CASE("platform: the build takes the calls it says", "[platform]") {
#if defined(BLAUDE_POSIX_FALLBACKS)
  CHECK_FALSE(kLinuxCalls);
#elif defined(__linux__)
  CHECK(kLinuxCalls);
#endif
  UniqueFd fd = data_fd("blaude-test", "abc");
  REQUIRE(fd);
  char got[4] = {};
  CHECK(::pread(fd.get(), got, 3, 0) == 3);
  CHECK(std::string(got) == "abc");
  CHECK((::fcntl(fd.get(), F_GETFD) & FD_CLOEXEC) != 0);
#ifdef __linux__
  // memfd_create's fds read "/memfd:NAME (deleted)"; the fallback's temp file is a path.
  INFO(fd_target(fd.get()));
  CHECK(fd_target(fd.get()).starts_with("/memfd:") == kLinuxCalls);
#endif

  // Either way the pipe ends are close-on-exec, and non-blocking when asked.
  UniqueFd r, w;
  REQUIRE(make_pipe(r, w, true));
  for (int e : {r.get(), w.get()}) {
    CHECK((::fcntl(e, F_GETFD) & FD_CLOEXEC) != 0);
    CHECK((::fcntl(e, F_GETFL) & O_NONBLOCK) != 0);
  }
  UniqueFd r2, w2;
  REQUIRE(make_pipe(r2, w2, false));
  CHECK((::fcntl(r2.get(), F_GETFL) & O_NONBLOCK) == 0);
  CHECK((::fcntl(w2.get(), F_GETFD) & FD_CLOEXEC) != 0);
}

TEST_CASE("platform: sockets and socketpairs are close-on-exec, non-blocking when asked", "[platform]") {
  for (bool nb : {true, false}) {
    INFO("nonblock " << nb);
    UniqueFd s(make_socket(AF_INET, SOCK_STREAM, nb));
    REQUIRE(s);
    CHECK((::fcntl(s.get(), F_GETFD) & FD_CLOEXEC) != 0);
    CHECK(((::fcntl(s.get(), F_GETFL) & O_NONBLOCK) != 0) == nb);
    int sv[2];
    REQUIRE(make_socketpair(AF_UNIX, SOCK_SEQPACKET, sv, nb) == 0);
    UniqueFd a(sv[0]), b(sv[1]);
    for (int e : {a.get(), b.get()}) {
      CHECK((::fcntl(e, F_GETFD) & FD_CLOEXEC) != 0);
      CHECK(((::fcntl(e, F_GETFL) & O_NONBLOCK) != 0) == nb);
    }
    int type = 0;
    socklen_t len = sizeof type;
    CHECK(::getsockopt(a.get(), SOL_SOCKET, SO_TYPE, &type, &len) == 0);
    CHECK(type == SOCK_SEQPACKET);  // the flags did not leak into the type
  }
}
