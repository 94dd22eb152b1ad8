#include "inside/selftest_probe.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>

namespace blaude::inside {

namespace {

void put(const char* name, int err) { std::printf("%s=%d\n", name, err); }

int connect_unix(const char* path, bool abstract) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return errno;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  size_t n = std::strlen(path);
  if (n + 2 > sizeof a.sun_path) n = sizeof a.sun_path - 2;
  std::memcpy(a.sun_path + (abstract ? 1 : 0), path, n);
  socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + n + (abstract ? 1 : 0));
  int r = ::connect(fd, reinterpret_cast<sockaddr*>(&a), len);
  int e = r == 0 ? 0 : errno;
  ::close(fd);
  return e;
}

int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return errno;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int r = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  int e = r == 0 ? 0 : errno;
  ::close(fd);
  return e;
}

int write_file(const char* path) {
  int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return errno;
  int e = ::write(fd, "# selftest\n", 11) == 11 ? 0 : errno;
  ::close(fd);
  return e;
}

// TIOCSTI on a pty of its own, as its controlling terminal, the command's high bits set (the
// form a 64-bit compare misses): in a child, which leads a session of its own for it.
int tiocsti() {
  int p[2];
  if (::pipe(p) != 0) return errno;
  pid_t pid = ::fork();
  if (pid < 0) return errno;
  if (pid == 0) {
    int e = 0;
    int m = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || ::grantpt(m) != 0 || ::unlockpt(m) != 0 || ::setsid() < 0) e = errno;
    int s = e ? -1 : ::open(::ptsname(m), O_RDWR);
    if (!e && s < 0) e = errno;
    if (!e && ::ioctl(s, TIOCSCTTY, 0) != 0) e = errno;
    if (!e) {
      char c = 'x';
      e = ::ioctl(s, (1UL << 32) | (unsigned long)TIOCSTI, &c) == 0 ? 0 : errno;
    }
    (void)!::write(p[1], &e, sizeof e);
    ::_exit(0);
  }
  ::close(p[1]);
  int e = EIO;
  if (::read(p[0], &e, sizeof e) != sizeof e) e = EIO;
  ::close(p[0]);
  ::waitpid(pid, nullptr, 0);
  return e;
}

#ifdef __linux__
int in_child_unshare_user() {
  pid_t pid = ::fork();
  if (pid < 0) return errno;
  if (pid == 0) ::_exit(::unshare(CLONE_NEWUSER) == 0 ? 0 : errno & 0x7f);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}
#endif

}  // namespace

int selftest_probe(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "__probe: ABSTRACT TMP_SOCKET PORT FILE... (blaude selftest runs it)\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  put("abstract_socket", connect_unix(argv[0], true));
  put("tmp_socket", connect_unix(argv[1], false));
  put("loopback_port", connect_loopback(std::atoi(argv[2])));
  for (int i = 3; i < argc; ++i) std::printf("write:%s=%d\n", argv[i], write_file(argv[i]));
  put("tiocsti_high_bits", tiocsti());
#if defined(__linux__) && defined(SYS_io_uring_setup)
  {
    // Valid arguments, so that only a refusal (not EFAULT) fails it.
    alignas(8) unsigned char params[120] = {0};
    long fd = ::syscall(SYS_io_uring_setup, 1, params);
    put("io_uring_setup", fd >= 0 ? 0 : errno);
    if (fd >= 0) ::close(int(fd));
  }
#endif
#ifdef __linux__
  {
    // BPF_MAP_CREATE of a one-entry array.
    alignas(8) uint32_t attr[32] = {2, 4, 4, 1};
    long fd = ::syscall(SYS_bpf, 0, attr, sizeof attr);
    put("bpf", fd >= 0 ? 0 : errno);
    if (fd >= 0) ::close(int(fd));
  }
  put("unshare_user", in_child_unshare_user());
#endif
  struct rlimit r{};
  const bool nproc = ::getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY;
  char buf[64] = {0};
  int fd = ::open("/sys/fs/cgroup/pids.max", O_RDONLY | O_CLOEXEC);
  bool cg = false;
  if (fd >= 0) {
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    cg = n > 0 && std::strncmp(buf, "max", 3) != 0;
    ::close(fd);
  }
  // 1 when bounded (the kernel refuses past it), 0 when nothing bounds the count.
  put("tasks_bounded", nproc || cg ? 1 : 0);
  return 0;
}

}  // namespace blaude::inside
