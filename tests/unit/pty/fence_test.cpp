// The reply fence's I/O on a real pty: the test plays the terminal on the master side, the fence
// runs on the slave (raw, as blaude's terminal is while the session runs).
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "common/unique_fd.hpp"
#include "pty/fence.hpp"
#include "term/reply_fence.hpp"

using namespace blaude;
using namespace std::chrono_literals;

namespace {

struct PtyPair {
  UniqueFd master, slave;
  PtyPair() {
    master.reset(posix_openpt(O_RDWR | O_NOCTTY));
    REQUIRE(master);
    REQUIRE(grantpt(master.get()) == 0);
    REQUIRE(unlockpt(master.get()) == 0);
    slave.reset(open(ptsname(master.get()), O_RDWR | O_NOCTTY | O_NONBLOCK));
    REQUIRE(slave);
    termios t{};
    REQUIRE(tcgetattr(slave.get(), &t) == 0);
    cfmakeraw(&t);
    REQUIRE(tcsetattr(slave.get(), TCSANOW, &t) == 0);
  }
  pty::Endpoint endpoint() const {
    pty::Endpoint e;
    e.in_fd = e.out_fd = e.size_fd = slave.get();
    return e;
  }
};

// The terminal: reads what the fence wrote (up to its query), then writes `parts` with `gap`
// between them. Returns what it read.
std::string play(int master, std::vector<std::string> parts, std::chrono::milliseconds gap) {
  std::string seen;
  char buf[256];
  while (seen.find(term::ReplyFence::kQuery) == std::string::npos) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 2000) <= 0) break;
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, static_cast<size_t>(n));
  }
  for (const auto& part : parts) {
    std::this_thread::sleep_for(gap);
    (void)!write(master, part.data(), part.size());
  }
  return seen;
}

}  // namespace

TEST_CASE("reply fence on a pty: the answer in pieces, after typeahead and a late reply",
          "[pty][fence]") {
  PtyPair pp;
  std::string seen;
  std::thread term([&] {
    seen = play(pp.master.get(), {"ls\r\x1b[7;13R", "\x1b[0", "n\x1b[?6", "2;22c"}, 20ms);
  });
  pty::FenceReport r = pty::fence_terminal(pp.endpoint(), "\x1b[23;0t");
  term.join();
  CHECK(seen == "\x1b[23;0t" + std::string(term::ReplyFence::kQuery));
  CHECK(r.sent);
  CHECK(r.answered);
  CHECK(r.discarded == 23);
  CHECK(r.ms >= 60 + term::ReplyFence::kQuietMs);  // the last piece, then the quiet
  CHECK(r.ms < term::ReplyFence::kBoundMs);
  // Nothing left to read: the fence took it all.
  char c;
  CHECK(read(pp.slave.get(), &c, 1) < 0);
}

TEST_CASE("reply fence on a pty: a terminal that never answers costs the bound", "[pty][fence]") {
  PtyPair pp;
  std::thread term([&] { play(pp.master.get(), {"typed"}, 10ms); });
  pty::FenceReport r = pty::fence_terminal(pp.endpoint(), "");
  term.join();
  CHECK(r.sent);
  CHECK_FALSE(r.answered);
  CHECK(r.discarded == 5);
  CHECK(r.ms >= term::ReplyFence::kBoundMs);
  CHECK(r.ms < term::ReplyFence::kBoundMs + 400);  // a loaded machine's scheduling, no more
}

TEST_CASE("reply fence on a pty: an answer after the bound is not waited for", "[pty][fence]") {
  PtyPair pp;
  std::thread term([&] { play(pp.master.get(), {"\x1b[0n\x1b[?62c"}, 700ms); });
  pty::FenceReport r = pty::fence_terminal(pp.endpoint(), "");
  CHECK_FALSE(r.answered);
  term.join();
  // It arrives afterwards: what TCSAFLUSH drops (and, later still, what the shell would read).
  pollfd p{pp.slave.get(), POLLIN, 0};
  CHECK(poll(&p, 1, 1000) == 1);
}
