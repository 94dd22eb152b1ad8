// Proxy mode's host side for one session: the proxy, its channel to the relay and the published
// ports on a libuv loop of their own, on a thread of blaude (all signals blocked there: the
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

private:
  Service() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string summary_;
  ProxyStats stats_;
};

}  // namespace blaude::net
