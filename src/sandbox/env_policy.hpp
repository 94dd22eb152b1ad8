// The sandbox's environment, decided from the host environment and the options alone (pure).
// The seed's policy: clear, set the basics, pass an allowlist (prefixes and enumerated names),
// force blaude's own values, drop names an outer claude session leaks, then --env last.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>


namespace blaude::sandbox {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// What the user asked for that the policy reads (from the command line, via the app layer).
struct EnvRules {
  bool keep_env = false;        // --keep-env
  bool remote_control = false;  // --remote-control or the remote-control subcommand
  bool git = false;             // GH_TOKEN/GITHUB_TOKEN pass
  bool ssh = false;             // SSH_AUTH_SOCK (the validated one, EnvContext) passes
  bool keyring = false;         // DBUS_SESSION_BUS_ADDRESS passes
  bool no_network = false;      // only for a notice
  EnvList user_env;             // --env KEY=VALUE, in order, applied last
};

// Facts computed elsewhere (the bwrap planner, HostFacts): the policy only places them.
struct EnvContext {
  // false under --no-sandbox: the host's own PATH/HOME/tool dirs stay (as with --keep-env), only
  // the forced values, the unsets, Remote Control's changes and --env apply.
  bool sandboxed = true;
  std::string home;  // HOME inside the sandbox
  std::string user;  // USER inside ("" → host USER, else LOGNAME, else "root")
  std::string path;  // PATH inside (sandbox_path(HostFacts)); the host PATH is never used
  unsigned uid = 0;  // sandbox uid → XDG_RUNTIME_DIR=/run/user/<uid>
  // GOPATH/CARGO_HOME are derived from home; these come after them (NVM_DIR when the planner
  // mounts nvm's node).
  EnvList tool_env;
  std::string ssh_auth_sock;  // agent socket path inside the sandbox; "" unless --ssh found one
};

// host_env: KEY=VALUE strings as in environ (order irrelevant; duplicates: first wins).
// Returns the child's complete environment, each name once, in the order the rules set them.
EnvList filter_env(const std::vector<std::string>& host_env, const EnvRules& rules,
                   const EnvContext& ctx);

// Lines for stderr before launch: CLAUDE_CODE_RESTRICTED, Remote Control notices.
std::vector<std::string> env_notices(const std::vector<std::string>& host_env, const EnvRules& rules);

// The rule tables, exposed for tests and documentation.
const std::vector<std::string_view>& forced_names(bool remote_control);  // set to "1"
const std::vector<std::string_view>& unset_names(bool remote_control);
bool passthrough_allowed(std::string_view name);  // prefix or enumerated allowlist
bool denied(std::string_view name, bool remote_control);

// "KEY=VALUE" strings, as execve wants them.
std::vector<std::string> to_environ(const EnvList& env);

}  // namespace blaude::sandbox
