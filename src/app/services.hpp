// Host services the sandbox reaches through the broker (broker/server.hpp): deciding them from
// the command line, the user's policy and git's config, and running the broker around the session.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/clipboard_host.hpp"
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
  // `clipboard-paste off|text` ("" when not said) and where.
  std::string clipboard_paste, clipboard_paste_origin;
};

struct ServicesLaunch {
  std::string dir;  // host: the session's 0700 directory of sockets, bound at kSandboxServicesDir
  bool agent_on = false;
  broker::agent::AgentPolicy agent;
  std::string upstream;  // the user's real agent
  // The clipboard stand-ins' service (every bwrap session).
  bool clipboard = false;
  ClipTools clip_tools;
  std::string copy_off;  // why copies are refused ("" when taken)
  broker::clipboard::PastePolicy paste = broker::clipboard::PastePolicy::Gated;
  std::string paste_origin;
};

// nullopt when no service is asked for. Reads ~/.gitconfig for user.signingkey's key when no
// key is named (and the public key file it names), and looks for the clipboard tools on PATH.
// `clipboard`: the session gets the clipboard stand-ins (a bwrap sandbox); without a private
// directory for the sockets they are left out (logged), not an error.
struct ServicesDecision {
  std::optional<ServicesLaunch> launch;
  std::optional<Failure> failure;
  std::vector<std::string> bwrap_args;  // the bind of `dir`
  std::string ssh_auth_sock;            // inside
  bool standins = false;                // the clipboard stand-ins' links and PATH entry (standin_args)
};
ServicesDecision decide_services(const HostEnv& host, const cli::Options& o, const SshPolicy& policy,
                                 const std::string& runtime_dir, bool clipboard = false);
// bwrap's arguments for the stand-ins' links in inside::kStandinDir to `binary` (the blaude or
// blaude-exec the sandbox has).
std::vector<std::string> standin_args(const std::string& binary);

// The broker while the session runs: the directory made and the sockets listening before the
// child exists; stopped, the directory removed and the summary made after it.
class ServicesSession {
public:
  // `terminal`: a pty session, where the user's paste key can open the read window (pipes mode
  // copies only).
  static std::variant<std::unique_ptr<ServicesSession>, Failure> start(const ServicesLaunch& l, bool terminal = false);
  // The paste window the session's input opens (nullptr without the clipboard or a terminal).
  std::shared_ptr<broker::clipboard::PasteGate> paste_gate() const { return gate_; }
  ~ServicesSession();
  // Stops the broker; the summary lines for after the session.
  std::vector<std::string> finish();

private:
  ServicesSession() = default;
  std::unique_ptr<broker::Broker> broker_;
  std::shared_ptr<broker::clipboard::PasteGate> gate_;
  std::string dir_;
};

}  // namespace blaude::app
