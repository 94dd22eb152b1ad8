// A running session's control socket for `blaude net log` and `blaude net allow` (net/live.hpp):
// a unix socket in a 0700 directory of $XDG_RUNTIME_DIR (under /run, which no sandbox sees), on
// the service's loop. A client must be the same user (SO_PEERCRED) in blaude's own user
// namespace (a sandboxed process is in one of bwrap's), else it is closed unanswered. One
// request line per connection (anything after it is ignored; a line that does not parse gets
// "error ..." and changes nothing):
//   log            every decision from now on, one line each ("refused ...", "allowed ...",
//                  "added ..."), until the client or the session ends
//   allow PATTERN  adds PATTERN to the proxy's rules for the rest of the session; the answer is
//                  "ok ..." or "error ...". The allowlist only grows, and each addition is logged
//                  and named in the summary after the session.
#pragma once
#include <uv.h>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>

namespace blaude::net {

class Proxy;

class LiveControl {
public:
  // `request_ms`: how long a client has to send its request line before it is closed (so idle
  // connections cannot hold every slot).
  LiveControl(uv_loop_t* loop, Proxy* proxy, uint64_t request_ms = 10'000);
  ~LiveControl();
  LiveControl(const LiveControl&) = delete;
  LiveControl& operator=(const LiveControl&) = delete;

  // Listens at `path` (its directory made and checked by the caller; a stale socket of a
  // session that is gone is replaced). Returns a uv error.
  int listen(const std::string& path);
  // Closes the listener and every client, and removes the socket.
  void close(std::function<void()> done);
  // To every `log` client (the proxy calls this on each decision), made one line of plain text
  // of bounded length (live_line): host names and reasons are the sandbox's choice.
  void event(const std::string& line);
  size_t log_clients() const;

private:
  struct Client;
  static void on_connection(uv_stream_t* server, int status);
  void handle(Client* c, const std::string& line);
  void send(Client* c, std::string text, bool then_close);
  void drop(Client* c);
  void maybe_closed();

  uv_loop_t* loop_;
  Proxy* proxy_;
  static void on_tick(uv_timer_t* t);
  uint64_t request_ms_;
  uv_pipe_t listener_{};
  uv_timer_t tick_{};  // drops clients past request_ms_ without a request
  bool listening_ = false, listener_open_ = false, tick_open_ = false, closing_ = false;
  std::string path_;
  std::list<std::unique_ptr<Client>> clients_;
  std::function<void()> closed_;
};

}  // namespace blaude::net
