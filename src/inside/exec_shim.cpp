#include "inside/exec_shim.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "inside/shim_isolation.hpp"
#include "inside/userns_guard.hpp"
#include "pty/spawn.hpp"
#include "sandbox/bwrap/run/mount_checks.hpp"
#include "sandbox/launch_plan.hpp"

extern char** environ;

namespace blaude::inside {

int exec_shim(int argc, char** argv, bool on_pty) {
  if (argc < 1) {
    std::fprintf(stderr, "blaude: %s needs a command\n", on_pty ? kExecShimOnPty : kExecShim);
    return 2;
  }
  // Before the command exists: from its first instruction it can neither stop bwrap nor touch
  // the sandbox's init (shim_isolation.hpp). No Landlock on this kernel: the group still helps,
  // and blaude continues a stopped bwrap (pty/session.cpp, reap).
  if (on_pty) take_foreground(0);
  // Every mount bwrap made by path is what blaude checked on the host, or nothing runs
  // (sandbox/bwrap/run/mount_checks.hpp). The variable comes from bwrap's --setenv: nothing in the
  // sandbox ran before this to remove it.
  if (const char* checks = std::getenv(sandbox::bwrap::kChecksEnv)) {
    std::string why = sandbox::bwrap::verify_mounts_file(checks);
    if (!why.empty()) {
      std::fprintf(stderr,
                   "blaude: the sandbox did not start: %s (changed while the sandbox was starting); nothing ran\n"
                   "Something renamed or replaced a path blaude mounts while it was starting (another session?). "
                   "Run blaude again.\n",
                   why.c_str());
      return 1;
    }
    ::unsetenv(sandbox::bwrap::kChecksEnv);
  }
  // The launcher left user namespaces out of bwrap's filter for this one (userns_guard.hpp).
  if (const char* fd = std::getenv(sandbox::kUsernsNotifyEnv)) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(fd, &end, 10);
    const int sock = (errno || end == fd || *end || n < 3 || n > 65535) ? -1 : int(n);
    ::unsetenv(sandbox::kUsernsNotifyEnv);
    if (int e = guard_user_namespaces(sock); e > 0) {
      std::fprintf(stderr, "blaude: the sandbox did not start: cannot load its user-namespace filter: %s; nothing ran\n",
                   std::strerror(e));
      return 1;
    }
  }
  const bool nested = std::getenv(sandbox::kNestedSandboxEnv) != nullptr;
  if (nested) ::unsetenv(sandbox::kNestedSandboxEnv);
  nest_landlock_domain(nested);
  const char* path = std::getenv("PATH");
  pty::Resolved r = pty::resolve_command(argv[0], path ? path : "/usr/local/bin:/usr/bin:/bin");
  if (r.exit_code) {
    std::fprintf(stderr, "blaude: %s\n", r.message.c_str());
    return r.exit_code;
  }
  ::execve(r.path.c_str(), argv, environ);
  // Found, yet not run: gone in between (127), or not a program the kernel takes (126).
  int e = errno;
  std::fprintf(stderr, "blaude: %s: %s\n", argv[0], std::strerror(e));
  return e == ENOENT ? 127 : 126;
}

}  // namespace blaude::inside
