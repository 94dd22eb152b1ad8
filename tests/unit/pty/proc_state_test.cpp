// The stopped-foreground check (pty/session.cpp's check_foreground) over a real process, in
// whichever form the build takes: /proc on Linux, `ps` in the forced-fallbacks build.
#include "pty/proc_state.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catch.hpp"

using namespace blaude::pty;

TEST_CASE("proc_state: the letter from /proc/PID/stat and from ps", "[platform]") {
  CHECK(state_from_proc_stat("42 (a) b) c) T 1 42 42") == 'T');  // the last ')' ends the name
  CHECK(state_from_proc_stat("42 (sh) S 1") == 'S');
  CHECK(state_from_proc_stat("42 (sh)") == 0);
  CHECK(state_from_proc_stat("") == 0);
  CHECK(state_from_ps("T\n") == 'T');
  CHECK(state_from_ps("  Ts\n") == 'T');   // procps and BSD ps add flags after the letter
  CHECK(state_from_ps("S+\n") == 'S');
  CHECK(state_from_ps("") == 0);
  CHECK(state_from_ps("ps: no such process\n") == 0);
}

TEST_CASE("proc_state: a real child, stopped, continued, gone", "[platform]") {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (;;) pause();
  }
  int st = 0;
  REQUIRE(kill(pid, SIGSTOP) == 0);
  REQUIRE(waitpid(pid, &st, WUNTRACED) == pid);  // the kernel says it stopped: a condition
  REQUIRE(WIFSTOPPED(st));
  CHECK(process_state(pid) == 'T');
  REQUIRE(kill(pid, SIGCONT) == 0);
  REQUIRE(waitpid(pid, &st, WCONTINUED) == pid);
  char after = process_state(pid);
  CHECK(after != 'T');  // running or back in pause(): 'R' or 'S'
  CHECK(after != 0);
  REQUIRE(kill(pid, SIGKILL) == 0);
  REQUIRE(waitpid(pid, &st, 0) == pid);
  CHECK(process_state(pid) == 0);  // reaped: no such process
  CHECK(process_state(0) == 0);
}

TEST_CASE("proc_state: parent and group from /proc/PID/stat, and of a real child", "[platform]") {
  ProcParent p = parent_from_proc_stat("42 (a) b) c) T 7 9 9 0");  // the last ')' ends the name
  CHECK(p.ppid == 7);
  CHECK(p.pgrp == 9);
  CHECK(parent_from_proc_stat("42 (sh) S 1").ppid == 0);  // no group: nothing
  CHECK(parent_from_proc_stat("").pgrp == 0);

  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    for (;;) pause();
  }
  setpgid(pid, pid);  // either side may do it first
  ProcParent got;
  for (int i = 0; i < 200 && got.pgrp != pid; ++i) {
    got = process_parent(pid);
    if (got.pgrp != pid) usleep(10000);
  }
  CHECK(got.ppid == getpid());
  CHECK(got.pgrp == pid);
  int st = 0;
  REQUIRE(kill(pid, SIGKILL) == 0);
  REQUIRE(waitpid(pid, &st, 0) == pid);
  CHECK(process_parent(pid).ppid == 0);  // reaped: no such process
  CHECK(process_parent(0).ppid == 0);
}
