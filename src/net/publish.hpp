// The host side of --publish PORT: a listener on the host's 127.0.0.1:PORT. Each connection
// becomes a fresh socketpair: blaude keeps one end (spliced to the host client) and hands the
// other to the in-sandbox relay over the control channel, which connects 127.0.0.1:PORT inside.
// The sandbox never gets a socket of the host's network namespace.
#pragma once
#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "net/bridge.hpp"
#include "net/relay_channel.hpp"

namespace blaude::net {

class Publisher {
public:
  // `channel`: to the relay (not owned; outlives the publisher's connections).
  Publisher(uv_loop_t* loop, RelayChannel* channel, ReadScratch* scratch, size_t max_connections = 256);
  ~Publisher();
  // Listens on 127.0.0.1:port. Returns a uv error (UV_EADDRINUSE: something on the host has it).
  int listen(uint16_t port);
  void close(std::function<void()> done);
  size_t connections() const { return bridges_.size(); }

private:
  struct Listener {
    Publisher* self;
    uint16_t port;
    uv_tcp_t tcp{};
  };
  static void on_connection(uv_stream_t* server, int status);
  void maybe_closed();

  uv_loop_t* loop_;
  RelayChannel* channel_;
  ReadScratch* scratch_;
  size_t max_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  size_t open_listeners_ = 0;
  BridgeSet bridges_;
  std::function<void()> closed_;
  bool bridges_closed_ = false;
};

}  // namespace blaude::net
