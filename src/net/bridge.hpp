// A TCP stream and a unix stream joined by a Splice and owned together: the unit of the relay
// (sandbox TCP ↔ its socketpair to the proxy, or a published port's socketpair ↔ sandbox TCP) and of
// --publish on the host (host TCP ↔ socketpair). Closes both when the splice ends; `release`
// runs after both handles are closed, and the owner frees it then.
#pragma once
#include <uv.h>

#include <functional>
#include <list>
#include <memory>
#include <string>

#include "net/splice.hpp"

namespace blaude::net {

class Bridge {
public:
  using Release = std::function<void(Bridge*)>;
  Bridge(uv_loop_t* loop, ReadScratch* scratch, Release release);
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;

  uv_stream_t* tcp() { return reinterpret_cast<uv_stream_t*>(&tcp_); }
  uv_stream_t* unix_stream() { return reinterpret_cast<uv_stream_t*>(&pipe_); }
  uv_loop_t* loop() const { return loop_; }

  // Accepts the TCP side from a listener.
  bool accept_tcp(uv_stream_t* server);
  // Adopts `fd` (a connected unix stream socket) as the unix side.
  bool open_unix(int fd);
  // Connects the TCP side to `addr`; `then(ok)` on completion.
  void connect_tcp(const sockaddr* addr, std::function<void(bool)> then);

  // Starts moving bytes, after writing `to_unix` / `to_tcp` first.
  void tunnel(std::string to_unix = {}, std::string to_tcp = {});
  void close();
  bool closing() const { return closing_; }

  std::list<std::unique_ptr<Bridge>>::iterator pos;  // the owner's bookkeeping
  std::string scratch_text;                          // for preambles (the relay's CONNECT answer)

private:
  static void on_closed(uv_handle_t* h);
  static void on_tcp_connect(uv_connect_t* req, int status);

  uv_loop_t* loop_;
  ReadScratch* scratch_;
  Release release_;
  uv_tcp_t tcp_{};
  uv_pipe_t pipe_{};
  uv_connect_t creq_{};
  std::function<void(bool)> then_;
  std::unique_ptr<Splice> splice_;
  int open_ = 2;
  bool closing_ = false;
};

// The owner side: a list of bridges that frees each one when it has closed.
class BridgeSet {
public:
  Bridge* add(uv_loop_t* loop, ReadScratch* scratch);
  size_t size() const { return items_.size(); }
  void close_all(std::function<void()> done);

private:
  void maybe_done();
  std::list<std::unique_ptr<Bridge>> items_;
  std::function<void()> done_;
};

}  // namespace blaude::net
