// The host side of proxy mode: serves the unix stream sockets it is handed (one end of a fresh
// socketpair per connection, the other end in the sandbox's relay: relay_channel.hpp; it listens
// on nothing), speaks HTTP (absolute-URI and CONNECT) and SOCKS5 on each, takes the decision from
// decision.hpp, resolves names on the host (uv_getaddrinfo, async) and connects with
// uv_tcp_connect, then only moves bytes (splice.hpp). Every decision goes to the log; refusals
// are tallied for the line after the session.
// Bounded: at most `max_connections` at once (more are answered 503, then refused), a request head of at
// most `max_head` bytes, and timers only while a connection is being set up (head, DNS,
// connect, the short drain after a refusal). An idle proxy has no timer and no poll running.
#pragma once
#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "net/decision.hpp"
#include "net/http_head.hpp"
#include "net/refusals.hpp"
#include "net/splice.hpp"

namespace blaude::net {

struct ProxyLimits {
  // Connections at once; 0: what blaude's descriptor limit holds (Service::start: raised toward
  // the hard limit, common/fd_limit.hpp). Past it, up to `turnaways` more are read as far as
  // their request and answered 503 (HTTP) or a general failure (SOCKS5), counted in
  // ProxyStats::over_limit; past those, closed at once (counted too).
  size_t max_connections = 0;
  size_t turnaways = 64;
  size_t max_head = 64 * 1024;
  uint64_t head_timeout_ms = 10'000;     // from accept to a complete request
  uint64_t resolve_timeout_ms = 10'000;
  uint64_t connect_timeout_ms = 10'000;  // per address tried
  uint64_t linger_ms = 2'000;            // after a refusal: let the client read it, then close
  size_t chunk = 64 * 1024;              // the shared read buffer
};

struct ProxyStats {
  size_t accepted = 0, over_limit = 0, allowed = 0, refused = 0, failed = 0;
};

class ProxyConn;

class Proxy {
public:
  Proxy(uv_loop_t* loop, Policy policy, ProxyLimits limits = {});
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  // Serves `fd` (a connected unix stream socket) as a client. false when the proxy is closing, or
  // past its limit and its 503 answers too: `fd` is closed then, and the client sees the close.
  bool adopt(UniqueFd fd);
  // Adds a rule for the rest of the session (`blaude net allow`); false when the same pattern is
  // already a rule. The list only grows.
  bool allow(Rule rule);
  // The patterns allow() added, in order.
  const std::vector<std::string>& allowed_live() const { return live_; }
  // Called on the loop's thread with one line for each decision (`blaude net log`):
  // "refused PROTO DEST: REASON", "allowed PROTO DEST -> ADDRESS (rule PATTERN)", and
  // "added PATTERN ..." for each allow(). Raw: the receiver makes them safe to print.
  std::function<void(const std::string&)> on_decision;
  // Called with the port of each rule allow() adds that names one (transparent capture listens
  // on it from then on).
  std::function<void(uint16_t)> on_port;
  // Ends every connection; `done` runs once every handle is closed.
  void close(std::function<void()> done = {});

  const RefusalTally& refusals() const { return tally_; }
  const ProxyStats& stats() const { return stats_; }
  size_t connections() const { return conns_.size(); }

private:
  friend class ProxyConn;
  void release(ProxyConn* c);
  void maybe_closed();
  // The host's own addresses and hosts-file names in policy_, re-read when older than 2 s (an
  // interface gains an address, the user edits /etc/hosts).
  void refresh_host_view();
  uint64_t host_view_ms_ = 0;
  bool host_view_ = false;

  uv_loop_t* loop_;
  Policy policy_;
  ProxyLimits lim_;
  HttpLimits http_lim_;
  ReadScratch scratch_;
  bool closing_ = false;
  bool limit_warned_ = false;  // one warning per episode at the connection limit
  std::list<std::unique_ptr<ProxyConn>> conns_;
  std::function<void()> closed_;
  RefusalTally tally_;
  ProxyStats stats_;
  std::vector<std::string> live_;
};

}  // namespace blaude::net
