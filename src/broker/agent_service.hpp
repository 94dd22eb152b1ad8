// The signing-only ssh-agent: a broker service (server.hpp) that the sandbox sees as
// SSH_AUTH_SOCK. Each client connection gets its own connection to the user's real agent (the
// host's SSH_AUTH_SOCK), opened at its first request that passes; the decision table
// (agent_policy.hpp) says what passes. The identities answer is filtered to the allowed keys;
// a signature is counted with its key's fingerprint and what it was for (an ssh login's user
// and the server's host key, from the request or the connection's session-bind; a file
// signature's namespace).
//
// The real agent is asked synchronously, with a deadline (`upstream_ms`), on the broker's
// thread: a key that asks for confirmation holds the other clients for at most that long.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "broker/agent_policy.hpp"
#include "broker/server.hpp"

namespace blaude::broker::agent {

inline constexpr const char* kSocketName = "ssh-agent";

struct AgentConfig {
  AgentPolicy policy;
  std::string upstream;  // the real agent's socket
  uint64_t upstream_ms = 30'000;
};

std::unique_ptr<Service> make_agent_service(AgentConfig cfg);

}  // namespace blaude::broker::agent
