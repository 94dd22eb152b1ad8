// Host services the sandbox reaches through the broker (broker/server.hpp): deciding them from
// the command line, the user's policy and git's config, and running the broker around the session.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/failure.hpp"
#include "broker/agent_policy.hpp"
#include "cli/options.hpp"
#include "common/host_env.hpp"

namespace blaude::broker {
class Broker;
}

namespace blaude::app {

// What the user's policy says about the agent (sandbox::policy::Policy's ssh lines).
struct SshPolicy {
  std::string agent_origin;  // "file:line" of `ssh-agent`, "" when not said
  std::vector<std::pair<std::string, std::string>> keys;  // (key, origin) of each `ssh-key`
};

struct ServicesLaunch {
  std::string dir;  // host: the session's 0700 directory of sockets, bound at kSandboxServicesDir
  broker::agent::AgentPolicy agent;
  std::string upstream;  // the user's real agent
};

// nullopt when no service is asked for. Reads ~/.gitconfig for user.signingkey's key when no
// key is named (and the public key file it names). Pure otherwise.
struct ServicesDecision {
  std::optional<ServicesLaunch> launch;
  std::optional<Failure> failure;
  std::vector<std::string> bwrap_args;  // the bind of `dir`
  std::string ssh_auth_sock;            // inside
};
ServicesDecision decide_services(const HostEnv& host, const cli::Options& o, const SshPolicy& policy,
                                 const std::string& runtime_dir);

// The broker while the session runs: the directory made and the sockets listening before the
// child exists; stopped, the directory removed and the summary made after it.
class ServicesSession {
public:
  static std::variant<std::unique_ptr<ServicesSession>, Failure> start(const ServicesLaunch& l);
  ~ServicesSession();
  // Stops the broker; the summary lines for after the session.
  std::vector<std::string> finish();

private:
  ServicesSession() = default;
  std::unique_ptr<broker::Broker> broker_;
  std::string dir_;
};

}  // namespace blaude::app
