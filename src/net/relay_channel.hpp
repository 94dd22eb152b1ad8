// blaude's end of the control channel to the in-sandbox relay (the messages: fdpass.hpp), on the
// service's loop. Each Request becomes a fresh socketpair: one end goes to the proxy as a client
// connection, the other to the relay in the answer. This is the only way into the proxy: it
// listens on nothing, so neither another sandbox nor another process of the user can reach it.
// Answers the relay is not ready for wait in a bounded queue (the loop polls for writable only
// while it holds something, so an idle session has no wake-ups).
#pragma once
#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>

#include "common/unique_fd.hpp"
#include "net/fdpass.hpp"

namespace blaude::net {

class Proxy;

class RelayChannel {
public:
  // `control`: blaude's end of the SOCK_SEQPACKET socketpair (not owned). `proxy` may be null
  // (then every request is refused).
  RelayChannel(uv_loop_t* loop, int control, Proxy* proxy, size_t max_queued = 4096);
  RelayChannel(const RelayChannel&) = delete;
  RelayChannel& operator=(const RelayChannel&) = delete;

  // Starts reading requests. Returns a uv error.
  int start();
  // Sends a message (now or once the relay reads again); false when the relay is gone or the
  // queue is full (then `fd` is closed: the connection it stood for ends).
  bool send(ChannelKind kind, uint32_t value, UniqueFd fd);
  void close(std::function<void()> done);

  size_t queued() const { return queue_.size(); }
  size_t requests() const { return requests_; }

private:
  struct Pending {
    ChannelKind kind;
    uint32_t value;
    UniqueFd fd;
  };
  static void on_event(uv_poll_t* p, int status, int events);
  void read_requests();
  void answer(uint32_t id);
  void flush();
  void watch();

  uv_loop_t* loop_;
  int control_;
  Proxy* proxy_;
  size_t max_queued_;
  uv_poll_t poll_{};
  bool started_ = false, closed_ = false, gone_ = false;
  int events_ = 0;
  std::deque<Pending> queue_;
  size_t requests_ = 0;
};

}  // namespace blaude::net
