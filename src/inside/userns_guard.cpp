#include "inside/userns_guard.hpp"

#include <cerrno>
#include <cstddef>
#include <cstring>

#include <unistd.h>

#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#endif

namespace blaude::inside {

#if BLAUDE_USERNS_BY_SHIM

namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#else
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#endif
// The flags' low 32 bits (the kernel reads clone's and unshare's flags as an int there too): on
// a little-endian machine they come first in the 64-bit argument.
constexpr unsigned kArg0Low = offsetof(struct seccomp_data, args[0]);
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);

// With the kernel's headers, not libseccomp: blaude-exec is a static program of few sources.
// clone's flags are its first argument on both architectures (not on s390, which is not here).
}  // namespace

std::string userns_filter_program(bool notify) {
  const unsigned action = notify ? SECCOMP_RET_USER_NOTIF : (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  const struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0Low),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, action),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  return std::string(reinterpret_cast<const char*>(f), sizeof f);
}

namespace {

long load(const std::string& program, unsigned flags) {
  struct sock_fprog prog {
    static_cast<unsigned short>(program.size() / sizeof(struct sock_filter)),
        reinterpret_cast<struct sock_filter*>(const_cast<char*>(program.data()))
  };
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

bool send_fd(int sock, int fd) {
  char byte = 'L';
  struct iovec iov {&byte, 1};
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  std::memset(control, 0, sizeof control);
  struct msghdr m {};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = ::sendmsg(sock, &m, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

}  // namespace

int guard_user_namespaces(int sock) {
  // bwrap set no_new_privs already; again here so that the shim never depends on it.
  (void)::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (sock >= 0) {
    long listener = load(userns_filter_program(true), SECCOMP_FILTER_FLAG_NEW_LISTENER);
    if (listener >= 0) {
      const bool sent = send_fd(sock, int(listener));
      ::close(int(listener));
      ::close(sock);
      // Not handed over: with the listener closed the kernel answers ENOSYS, not the refusal
      // the table gives; the EPERM filter below answers first (the strictest answer wins).
      if (sent) return 0;
    } else {
      ::close(sock);
    }
  }
  if (load(userns_filter_program(false), 0) == 0) return -1;
  return errno ? errno : EPERM;
}

#else

std::string userns_filter_program(bool) { return {}; }
int guard_user_namespaces(int sock) {
  if (sock >= 0) ::close(sock);
  return ENOSYS;
}

#endif

}  // namespace blaude::inside
