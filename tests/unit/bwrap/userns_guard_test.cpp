// Nested user namespaces refused by blaude (inside/userns_guard.hpp, bwrap/run/userns_watch.hpp),
// with the real kernel: a forked child loads the shim's filter and asks for user namespaces; the
// watch answers and names it. The control: the same calls in a child without the filter work
// (as root; another user may be refused by the kernel itself, and the control says nothing then).
#include "sandbox/launch_plan.hpp"  // BLAUDE_USERNS_BY_SHIM
#if defined(__linux__) && BLAUDE_USERNS_BY_SHIM
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "catch.hpp"
#include "inside/userns_guard.hpp"
#include "sandbox/bwrap/plan/syscall_table.hpp"
#include "sandbox/bwrap/run/userns_watch.hpp"

using namespace blaude;
using namespace blaude::sandbox::bwrap;

namespace {

int err_of(long r) { return r < 0 ? errno : 0; }

// In a child named `name`: the guard over `sock` (unless guard is false), then unshare and clone
// with CLONE_NEWUSER. "<guard> <unshare errno> <clone errno>", or "" when the child failed.
std::string in_child(int sock, bool guard, const char* name) {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    ::prctl(PR_SET_NAME, name, 0, 0, 0);
    int g = guard ? inside::guard_user_namespaces(sock) : 0;
    // clone with the flag: a child that exits at once when the call works. Before unshare: in a
    // namespace of its own with no ids mapped, the kernel itself would refuse the next one.
    long c = ::syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0, 0, 0, 0);
    if (c == 0) _exit(0);
    int ce = c < 0 ? errno : 0;
    if (c > 0) ::waitpid(pid_t(c), nullptr, 0);
    int u = err_of(::syscall(SYS_unshare, (unsigned long)CLONE_NEWUSER));
    std::string out = std::to_string(g) + " " + std::to_string(u) + " " + std::to_string(ce);
    (void)!::write(p[1], out.data(), out.size());
    _exit(0);
  }
  ::close(p[1]);
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  ::close(p[0]);
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  return text;
}

}  // namespace

TEST_CASE("userns guard: the shim's filter hands the calls to blaude, which refuses and names them", "[bwrap][seccomp]") {
  auto watch = UsernsWatch::start();
  REQUIRE(watch);
  // A name with an escape sequence in it: shown escaped.
  CHECK(in_child(watch->inside_fd(), true, "evil\x1b]0;x\a") == "0 1 1");
  CHECK(watch->listening());
  const std::string line = watch->finish();
  CHECK(watch->refused() == 2);
  REQUIRE(watch->names().size() == 1);
  CHECK(watch->names()[0] == "evil\\e]0;x\\x07");
  CHECK(line.find("refused 2 request(s) for a user namespace") != std::string::npos);
  CHECK(line.find("(from evil\\e]0;x\\x07)") != std::string::npos);
  CHECK(line.find("--nested-sandbox") != std::string::npos);
  CHECK(line.find('\x1b') == std::string::npos);
  // The control: without the filter the kernel lets root make them.
  if (::geteuid() == 0) CHECK(in_child(-1, false, "control") == "0 0 0");
}

TEST_CASE("userns guard: without a socket it still refuses, with EPERM of its own", "[bwrap][seccomp]") {
  CHECK(in_child(-1, true, "nosock") == "-1 1 1");
  // A socket whose other end is gone: the listener cannot be handed over; EPERM all the same.
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
  ::close(sv[0]);
  CHECK(in_child(sv[1], true, "deadsock") == "-1 1 1");
  ::close(sv[1]);
}

TEST_CASE("userns guard: bwrap's program leaves exactly unshare's and clone's CLONE_NEWUSER rows to it", "[bwrap][seccomp]") {
  const auto all = active_rules({true, false, false});
  const auto by_shim = active_rules({true, false, true});
  CHECK(all.size() == by_shim.size() + 2);
  for (const SyscallRule* r : all) {
    bool kept = false;
    for (const SyscallRule* k : by_shim) kept = kept || k == r;
    INFO(r->call << " " << r->when);
    CHECK(kept == !answered_by_shim(*r));
    if (!kept) CHECK(std::string(r->when) == "CLONE_NEWUSER");
  }
  const std::string text = format_syscall_filter({true, false, true});
  CHECK(text.find("unshare (CLONE_NEWUSER), clone (CLONE_NEWUSER): EPERM from blaude") != std::string::npos);
  CHECK(format_syscall_filter({true, false, false}).find("EPERM from blaude") == std::string::npos);
}
#endif
