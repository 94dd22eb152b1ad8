// The broker: the one place where blaude answers requests from inside the sandbox. Each service
// (the signing-only ssh-agent today) listens on a unix socket in a per-session 0700 directory
// that the sandbox, and nothing else, has bound at kSandboxServicesDir (a directory under the
// host's $XDG_RUNTIME_DIR, which every sandbox replaces by a tmpfs of its own). Messages are
// framed the ssh-agent way (a uint32 length, then the body); the service parses the body, looks
// it up in its decision table, logs the decision (escaped) and counts it for the summary after
// the session. A new service is a new Service (parser + decision table), not another server.
//
// All on a libuv loop of its own, on a thread of blaude with every signal blocked (the net
// proxy's pattern: the session's own loop and signal handling are untouched). Bounded: message
// size (per service), clients at once, time to finish a message once it started, bytes
// waiting to be written to a client that does not read.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/frame.hpp"

struct uv_loop_s;

namespace blaude::broker {

// Where the services' sockets are inside the sandbox.
inline constexpr const char* kSandboxServicesDir = "/run/blaude/services";

// One client's connection to a service: answers its messages in order.
class Conversation {
public:
  virtual ~Conversation() = default;
  // A whole message body; the reply body, or nullopt to close the connection (malformed).
  virtual std::optional<std::string> answer(std::string_view body) = 0;
};

class Service {
public:
  virtual ~Service() = default;
  virtual std::string name() const = 0;  // the socket's name in the directory, and the log's
  virtual uint32_t max_message() const = 0;
  virtual std::unique_ptr<Conversation> open() = 0;
  // The broker's loop, before it runs (a service that starts host programs on it).
  virtual void attach(uv_loop_s*) {}
  // After the broker stopped: lines for the summary after the session ("" lines are skipped).
  virtual std::vector<std::string> summary() const = 0;
};

struct Limits {
  size_t max_clients = 32;           // per broker; more are closed unanswered
  uint64_t message_ms = 10'000;      // a message started must be complete within this
  size_t max_backlog = 1 << 20;      // reply bytes a client leaves unread before it is dropped
};

class Broker {
public:
  // Listens for every service in `dir` (a directory the caller made 0700 for this session) and
  // starts the thread. The error, one line, when a socket cannot be made.
  static std::variant<std::unique_ptr<Broker>, std::string> start(const std::string& dir,
                                                                  std::vector<std::unique_ptr<Service>> services,
                                                                  Limits limits = {});
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;
  // Closes every client and listener, removes the sockets, joins the thread.
  void stop();
  // After stop(): every service's summary lines.
  std::vector<std::string> summary() const;

private:
  Broker() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace blaude::broker
