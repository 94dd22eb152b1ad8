// The kernel splice pump (net/splice) on real sockets: 16 MiB each way at once through one loop,
// with a reader slower than the pump (so the destination fills and a direction blocks, keeps its
// pipe and resumes), bytes intact and in order, the half-close passed on each way, `done(true)`
// once both have ended, and at most one pipe's worth held while blocked. A preamble per
// direction arrives first.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "catch.hpp"
#include "common/unique_fd.hpp"
#include "net/splice.hpp"

using namespace blaude;
using namespace blaude::net;

namespace {

std::string pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed;
  for (char& c : s) {
    x = x * 1103515245u + 12345u;
    c = char(x >> 24);
  }
  return s;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, std::min<size_t>(s.size() - off, 100000));
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Reads to EOF in small steps (slower than the pump: the sockets between fill up).
std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.append(buf, size_t(n));
  }
}

// splice(2) to a socket whose peer is gone raises SIGPIPE (it has no MSG_NOSIGNAL): the splice's
// users block it (blaude's proxy thread) or ignore it (the relay); so does this test.
struct IgnoreSigpipe {
  IgnoreSigpipe() { ::signal(SIGPIPE, SIG_IGN); }
} ignore_sigpipe;

}  // namespace

TEST_CASE("net splice: 16 MiB both ways, backpressure, half-close each way", "[net][splice]") {
  int pa[2], pb[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pa) == 0);
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pb) == 0);
  UniqueFd a_peer(pa[0]), b_peer(pb[0]);  // the test's ends; pa[1] / pb[1] go to the loop

  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_pipe_t a{}, b{};
  uv_pipe_init(&loop, &a, 0);
  uv_pipe_init(&loop, &b, 0);
  REQUIRE(uv_pipe_open(&a, pa[1]) == 0);
  REQUIRE(uv_pipe_open(&b, pb[1]) == 0);
  ReadScratch scratch;
  std::atomic<int> result{-1};
  size_t max_buffered = 0;
  Splice sp(reinterpret_cast<uv_stream_t*>(&a), reinterpret_cast<uv_stream_t*>(&b), &scratch, [&](bool ok) {
    result = ok ? 1 : 0;
    uv_close(reinterpret_cast<uv_handle_t*>(&a), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&b), nullptr);
  });
  // Samples what the splice holds on every loop turn (a prepare handle runs before each poll).
  uv_prepare_t sample{};
  uv_prepare_init(&loop, &sample);
  std::atomic<bool> blocked_seen{false};
  struct Ctx {
    Splice* sp;
    size_t* max;
    std::atomic<bool>* blocked;
  } ctx{&sp, &max_buffered, &blocked_seen};
  sample.data = &ctx;
  uv_prepare_start(&sample, [](uv_prepare_t* p) {
    auto* c = static_cast<Ctx*>(p->data);
    *c->max = std::max(*c->max, c->sp->buffered());
    if (c->sp->buffered() > 0) *c->blocked = true;
    if (c->sp->finished()) uv_close(reinterpret_cast<uv_handle_t*>(p), nullptr);
  });
  sp.start("to-b:", "to-a:");

  const std::string ab = pattern(16 << 20, 1), ba = pattern(16 << 20, 2);
  std::string got_b, got_a;
  std::thread wa([&] {
    write_all(a_peer.get(), ab);
    ::shutdown(a_peer.get(), SHUT_WR);
  });
  std::thread wb([&] {
    write_all(b_peer.get(), ba);
    ::shutdown(b_peer.get(), SHUT_WR);
  });
  std::thread ra([&] { got_a = read_all(a_peer.get()); });
  // b's reader starts only once a direction has blocked: nobody reads b, so a → b must fill the
  // socket and stop with bytes in its pipe. The backpressure path runs every time, no timing.
  std::thread rb([&] {
    while (!blocked_seen) std::this_thread::yield();
    got_b = read_all(b_peer.get());
  });
  uv_run(&loop, UV_RUN_DEFAULT);  // returns once the splice has finished and closed its handles
  wa.join();
  wb.join();
  ra.join();
  rb.join();
  uv_loop_close(&loop);

  CHECK(result == 1);
  CHECK(got_b.size() == ab.size() + 5);
  CHECK(got_b == "to-b:" + ab);
  CHECK(got_a == "to-a:" + ba);
  // Blocked directions hold at most their pipe (1 MiB asked, the kernel may give less) each.
  CHECK(blocked_seen);
  CHECK(max_buffered <= 2 * scratch.pipe_size + 10);
  CHECK(scratch.free_pipes.size() <= ReadScratch::kKeepFree);
}

TEST_CASE("net splice: a peer that resets ends the splice with done(false)", "[net][splice]") {
  int pa[2], pb[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pa) == 0);
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pb) == 0);
  UniqueFd a_peer(pa[0]), b_peer(pb[0]);
  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_pipe_t a{}, b{};
  uv_pipe_init(&loop, &a, 0);
  uv_pipe_init(&loop, &b, 0);
  REQUIRE(uv_pipe_open(&a, pa[1]) == 0);
  REQUIRE(uv_pipe_open(&b, pb[1]) == 0);
  ReadScratch scratch;
  int result = -1;
  Splice sp(reinterpret_cast<uv_stream_t*>(&a), reinterpret_cast<uv_stream_t*>(&b), &scratch, [&](bool ok) {
    result = ok ? 1 : 0;
    uv_close(reinterpret_cast<uv_handle_t*>(&a), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&b), nullptr);
  });
  sp.start();
  // b's peer goes away unread while a's peer sends: writing on b fails (EPIPE), the splice ends.
  b_peer.reset();
  write_all(a_peer.get(), pattern(1 << 16, 3));
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  CHECK(result == 0);
}
