#include "inside/shim_isolation.hpp"

#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include <cerrno>
#include <cstdint>

namespace blaude::inside {

namespace {

#ifdef __linux__
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif

// Debian 12's <linux/landlock.h> predates `handled_access_net` and `scoped`; a kernel older than
// the struct accepts it as long as the fields it does not know are zero.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
#endif

}  // namespace

bool take_foreground(int tty_fd) {
  if (!isatty(tty_fd) || tcgetpgrp(tty_fd) != getpgrp()) return false;
  if (setpgid(0, 0) != 0) return false;
  // Now in a background group: tcsetpgrp would send us SIGTTOU unless it is blocked.
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &old);
  bool ok = tcsetpgrp(tty_fd, getpgrp()) == 0;
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

#ifndef __linux__
// The exec shim runs only inside bwrap (Linux): a Seatbelt launch execs the command directly under
// sandbox-exec, and macOS has no Landlock. Off Linux this is compiled and says "not here".
int nest_landlock_domain(bool) { return ENOSYS; }
#else
int nest_landlock_domain(bool nested) {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return errno ? errno : EOPNOTSUPP;
  if (nested && abi < 6) return ENOTSUP;
  // A ruleset must handle something: LANDLOCK_ACCESS_FS_MAKE_BLOCK, with no rule, denies mknod of
  // block devices, which a process without CAP_MKNOD in bwrap's user namespace cannot do anyway.
  // Not LANDLOCK_SCOPE_SIGNAL: the command may kill the proxy relay (its own network; net's
  // design), and it cannot name bwrap, whose pid has no number in the sandbox's pid namespace,
  // nor stop the init, which ignores signals from inside its namespace that it has no handler for.
  const RulesetAttr attr = nested ? RulesetAttr{0, 0, 1 /* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */}
                                  : RulesetAttr{LANDLOCK_ACCESS_FS_MAKE_BLOCK, 0, 0};
  long fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) return errno;
  int err = 0;
  // bwrap has set no_new_privs already; restrict_self requires it without CAP_SYS_ADMIN.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, int(fd), 0) != 0)
    err = errno;
  close(int(fd));
  return err;
}
#endif

}  // namespace blaude::inside
