// The one way blaude starts a child (common/child.hpp): what the child has when its own code
// begins, whatever the parent had open, installed, ignored or blocked.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "common/child.hpp"
#include "catch.hpp"

using namespace blaude;

namespace {

void on_signal(int) {}

// pipe2 is Linux's; the unit tests also build where only pipe is.
void make_pipe(int p[2], bool cloexec) {
  REQUIRE(::pipe(p) == 0);
  if (cloexec)
    for (int k = 0; k < 2; ++k) REQUIRE(::fcntl(p[k], F_SETFD, FD_CLOEXEC) == 0);
}

// The child's exit status: 0 when `check` held in it, else the number of the failed check.
template <class Check>
int child_status(const ChildSetup& s, Check check) {
  pid_t pid = fork_child(s, [&check] { ::_exit(check()); });
  REQUIRE(pid > 0);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  REQUIRE(WIFEXITED(st));
  return WEXITSTATUS(st);
}

void (*handler_of(int sig))(int) {
  struct sigaction sa {};
  ::sigaction(sig, nullptr, &sa);
  return sa.sa_handler;
}

// Installs (or ignores) for the test's length.
struct Installed {
  int sig;
  struct sigaction old {};
  Installed(int s, void (*h)(int)) : sig(s) {
    struct sigaction sa {};
    sa.sa_handler = h;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, &old);
  }
  ~Installed() { ::sigaction(sig, &old, nullptr); }
};

}  // namespace

TEST_CASE("a child keeps only the listed descriptors, besides 0-2", "[child]") {
  int kept[2], dropped[2];
  make_pipe(kept, true);
  make_pipe(dropped, false);
  ChildSetup s;
  s.keep = &kept[1];
  s.n_keep = 1;
  s.report_fd = kept[0];
  const int k = kept[1], r = kept[0], d0 = dropped[0], d1 = dropped[1];
  CHECK(child_status(s, [=] {
          if (::fcntl(k, F_GETFD) != 0) return 1;             // kept, close-on-exec cleared
          if (::fcntl(r, F_GETFD) != FD_CLOEXEC) return 2;    // the report pipe, still close-on-exec
          if (::fcntl(d0, F_GETFD) >= 0 || errno != EBADF) return 3;
          if (::fcntl(d1, F_GETFD) >= 0 || errno != EBADF) return 4;
          if (::fcntl(0, F_GETFD) < 0 && ::fcntl(1, F_GETFD) < 0 && ::fcntl(2, F_GETFD) < 0) return 5;
          return 0;
        }) == 0);
  for (int fd : {kept[0], kept[1], dropped[0], dropped[1]}) ::close(fd);
}

TEST_CASE("a child starts with default handlers and an empty mask", "[child]") {
  Installed usr1(SIGUSR1, on_signal), usr2(SIGUSR2, SIG_IGN);
  sigset_t one, old;
  sigemptyset(&one);
  sigaddset(&one, SIGUSR1);
  ::sigprocmask(SIG_BLOCK, &one, &old);
  ChildSetup s;
  CHECK(child_status(s, [] {
          if (handler_of(SIGUSR1) != SIG_DFL) return 1;
          if (handler_of(SIGUSR2) != SIG_DFL) return 2;  // an ignore goes too
          sigset_t now;
          ::sigprocmask(SIG_SETMASK, nullptr, &now);
          if (sigismember(&now, SIGUSR1) || sigismember(&now, SIGTERM)) return 3;
          return 0;
        }) == 0);
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
}

TEST_CASE("keep_ignored keeps blaude's ignores; the ignore list adds its own", "[child]") {
  Installed usr1(SIGUSR1, on_signal), usr2(SIGUSR2, SIG_IGN), term(SIGTERM, on_signal);
  ChildSetup s;
  s.keep_ignored = true;
  CHECK(child_status(s, [] {
          if (handler_of(SIGUSR1) != SIG_DFL) return 1;
          if (handler_of(SIGUSR2) != SIG_IGN) return 2;
          if (handler_of(SIGTERM) != SIG_DFL) return 3;
          return 0;
        }) == 0);
  static const int kIgnore[] = {SIGTERM};
  ChildSetup t;
  t.ignore = kIgnore;
  t.n_ignore = 1;
  CHECK(child_status(t, [] {
          if (handler_of(SIGTERM) != SIG_IGN) return 1;
          if (handler_of(SIGUSR1) != SIG_DFL || handler_of(SIGUSR2) != SIG_DFL) return 2;
          return 0;
        }) == 0);
}

TEST_CASE("the parent's mask and errno are as they were after the start", "[child]") {
  sigset_t before, after;
  ::sigprocmask(SIG_SETMASK, nullptr, &before);
  ChildSetup s;
  CHECK(child_status(s, [] { return 0; }) == 0);
  ::sigprocmask(SIG_SETMASK, nullptr, &after);
  for (int sig = 1; sig < 32; ++sig) CHECK(sigismember(&before, sig) == sigismember(&after, sig));
}

TEST_CASE("a child's failure reaches the parent as {errno, step}; EOF as none", "[child]") {
  int p[2];
  make_pipe(p, true);
  ChildSetup s;
  s.report_fd = p[1];
  const int w = p[1];
  pid_t pid = fork_child(s, [w] {
    report_to_parent(w, ChildFailure{EACCES, 3});
    ::_exit(1);
  });
  REQUIRE(pid > 0);
  ::close(p[1]);
  ChildFailure f;
  REQUIRE(read_child_report(p[0], f));
  CHECK(f.err == EACCES);
  CHECK(f.step == 3);
  CHECK_FALSE(read_child_report(p[0], f));  // EOF: nothing more
  ::close(p[0]);
  int st;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
}
