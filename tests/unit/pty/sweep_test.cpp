#include "pty/sweep.hpp"

#include <algorithm>

#include "catch.hpp"

using blaude::pty::ProcRow;
using blaude::pty::session_members;

TEST_CASE("sweep: the session's members and their descendants, not blaude, init or zombies") {
  // 100 = blaude (its own session 100), 200 = the child (session leader, reaped already),
  // 201 a member, 202 a member's child that setsid'd (session 202), 203 its child,
  // 300 a double-forked daemon whose parent is gone (ppid 1, session 300): out of reach,
  // 204 a zombie member, 400 an unrelated process.
  std::vector<ProcRow> rows = {
      {1, 0, 1},     {100, 50, 100}, {201, 1, 200},  {202, 201, 202},  {203, 202, 202},
      {300, 1, 300}, {204, 201, 200, true}, {400, 1, 400}, {205, 100, 200},
  };
  auto got = session_members(rows, 200, 100);
  CHECK(got == std::vector<pid_t>{201, 202, 203, 205});
}

TEST_CASE("sweep: never blaude itself, even in the leader's session; nothing when none is left") {
  std::vector<ProcRow> rows = {{100, 1, 200}, {101, 100, 7}};
  CHECK(session_members(rows, 200, 100).empty());
  CHECK(session_members({}, 200, 100).empty());
  CHECK(session_members({{1, 0, 200}}, 200, 100).empty());
}
