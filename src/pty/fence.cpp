#include "pty/fence.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "term/reply_fence.hpp"

namespace blaude::pty {

namespace {

uint64_t now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000 + static_cast<uint64_t>(t.tv_nsec) / 1000000;
}

constexpr int kWriteMs = 1000;  // as the undo's own write

}  // namespace

bool fenceable(const Endpoint& ep) {
  return ep.in_fd >= 0 && ep.out_fd >= 0 && isatty(ep.in_fd) && isatty(ep.out_fd);
}

FenceReport fence_terminal(const Endpoint& ep, std::string_view before) {
  FenceReport r;
  std::string out(before);
  out += term::ReplyFence::kQuery;
  if (!write_bounded(ep.out_fd, out, kWriteMs)) {
    spdlog::info("terminal: the reply fence's query did not go out; not waiting for an answer");
    return r;
  }
  r.sent = true;
  const uint64_t t0 = now_ms();
  term::ReplyFence fence(t0);
  char buf[4096];
  for (;;) {
    const uint64_t now = now_ms();
    const uint64_t wait = fence.wait_ms(now);
    if (wait == 0) break;
    pollfd p{ep.in_fd, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(wait));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // the wait is over: wait_ms() says so next round
    ssize_t k = read(ep.in_fd, buf, sizeof buf);
    if (k > 0) {
      fence.feed(std::string_view(buf, static_cast<size_t>(k)), now_ms());
      continue;
    }
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    break;  // the terminal is gone: nothing more will come from it
  }
  r.answered = fence.answered();
  r.ms = now_ms() - t0;
  r.discarded = fence.discarded();
  if (r.answered)
    spdlog::debug("terminal: reply fence answered after {} ms ({} input bytes discarded)", r.ms,
                  r.discarded);
  else
    spdlog::info("terminal: no answer to the reply fence within {} ms ({} input bytes discarded)",
                 r.ms, r.discarded);
  return r;
}

}  // namespace blaude::pty
