// Proxy mode's host side for one session: the proxy, its channel to the relay, the published
// ports and the control socket of `blaude net log/allow` (live_control.hpp) on a libuv loop of
// their own, on a thread of blaude (all signals blocked there: the
// session's signal handling is untouched, and a write to a closed socket cannot kill blaude).
// The published ports are bound before the session starts, so "port in use" is an error before
// anything runs; stop() ends every connection and closes every listener.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/unique_fd.hpp"
#include "net/proxy.hpp"

namespace blaude::net {

struct ServiceConfig {
  Policy policy;
  ProxyLimits limits;
  std::vector<uint16_t> publish;  // host 127.0.0.1 ports
  int control_fd = -1;            // blaude's end of the relay's control channel (not owned)
  // Where `blaude net log` / `blaude net allow` reach this session (live_control.hpp); "" for
  // nowhere. A socket that cannot be made there is logged, and the session runs without it.
  std::string live_socket;
};

class Service {
public:
  // A running service, or the error (one line, for "blaude: <error>").
  static std::variant<std::unique_ptr<Service>, std::string> start(ServiceConfig cfg);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  void stop();
  // After stop(): the refusal summary ("" when nothing was refused) and the counters.
  std::string summary_line() const;
  ProxyStats stats() const;
  // After stop(): what `blaude net allow` added during the session, in order.
  std::vector<std::string> allowed_live() const { return live_; }

private:
  Service() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string summary_;
  ProxyStats stats_;
  std::vector<std::string> live_;
};

}  // namespace blaude::net
