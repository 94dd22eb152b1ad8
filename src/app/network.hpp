// Proxy mode in the app layer: deciding it (which destinations, from the command
// line, the policies and the provider's defaults), running its host side around the session,
// and the text --help, --print-policy and `blaude doctor` show about it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/failure.hpp"
#include "cli/options.hpp"
#include "common/host_env.hpp"
#include "net/decision.hpp"
#include "net/netns.hpp"
#include "net/provider.hpp"
#include "sandbox/env_policy.hpp"
#include "sandbox/grant.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/request.hpp"

namespace blaude::net {
class Service;
}

namespace blaude::app {

// A session in proxy mode, as decided (nothing exists yet on the host).
struct NetLaunch {
  net::Policy policy;              // everything the proxy allows, in the order shown
  std::vector<uint16_t> publish;
};

// The allow-domain grants of the policies (and the command line's) as proxy rules, plus the
// provider's defaults unless the user's policy says no-default-domains. Pure.
net::Policy network_policy(const cli::Options& o, const sandbox::Grants& policy_grants,
                           const std::string& no_default_origin, const net::ProviderDefaults& defaults);

// Splits a policy's grants: paths stay in `grants`, destinations move to the result.
sandbox::Grants take_network_grants(sandbox::Grants& grants);

// Proxy mode for this launch, if asked for (any allow-domain or --publish): fills `req.proxy`,
// replaces the proxy variables in `env` and adds notices (nothing to prepare on the host: the
// relay reaches the proxy through a descriptor it inherits). nullopt when the session keeps the host network (or --no-network).
struct NetDecision {
  std::optional<NetLaunch> launch;
  // The default mode where Landlock cannot scope abstract sockets: the sandbox's own network
  // namespace, joined to the host's network by this pasta (net/netns.hpp). "" otherwise.
  std::string netns_pasta;
  std::optional<Failure> failure;
};
NetDecision decide_network(const cli::Options& o, sandbox::Grants net_grants, const std::string& no_default_origin,
                           sandbox::EnvList& env, sandbox::SandboxRequest& req, std::vector<std::string>& notices,
                           const net::NetnsFacts& netns);
// The channel's descriptor in the default mode's argv until NetnsLink::start replaces it.
inline constexpr const char* kNetnsToken = "@fd:netns";
// What choose_netns() needs of this host: bwrap's facts, the pasta in PATH, /dev/net/tun, and
// BLAUDE_NETNS.
net::NetnsFacts netns_facts(const HostEnv& host, int landlock_abi, bool bwrap_setuid);

// The runtime dir under which `blaude net log` / `blaude net allow` and the session meet
// (net::live_runtime_dir): $XDG_RUNTIME_DIR, else the user's own /run/user/UID when it is a
// directory (not a link) of theirs with mode 0700; "" with neither.
std::string control_runtime_dir(const std::string& xdg_runtime_dir);

// The host side while the session runs: started before the child (a port in use fails here,
// before anything runs), stopped after it. `argv`/`keep_fds` get the relay's control channel.
class NetSession {
public:
  // `runtime_dir`: control_runtime_dir(), where `blaude net log` / `blaude net allow` find the
  // session (net/live.hpp; none when it is "" or not under /run).
  static std::variant<std::unique_ptr<NetSession>, Failure> start(const NetLaunch& l, const std::string& runtime_dir,
                                                                   std::vector<std::string>& argv,
                                                                   std::vector<int>& keep_fds);
  ~NetSession();
  // Stops the proxy and returns the summary ("" when nothing was refused or allowed live).
  std::string finish();

private:
  NetSession() = default;
  std::unique_ptr<net::Service> service_;
  int control_parent_ = -1, control_child_ = -1;
};

// Lines about proxy mode for --help, --print-policy and doctor: the provider's default hosts
// in this environment and which mode a plain `blaude` would use here.
std::vector<std::string> network_report(const net::ProviderDefaults& defaults, const sandbox::Grants& policy_net,
                                        const std::string& no_default_origin);
std::string help_text(const HostEnv& host);
// The provider's default hosts for the host's environment (with --env applied).
net::ProviderDefaults host_defaults(const HostEnv& host, const cli::Options& o);

}  // namespace blaude::app
