// Proxy mode, decided and run (see network.hpp).
#include "app/network.hpp"

#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>

#include "cli/parse.hpp"
#include "common/file_io.hpp"
#include "common/pipe.hpp"
#include "common/path_search.hpp"
#include "common/self_exe.hpp"
#include "net/live.hpp"
#include "net/mode.hpp"
#include "net/service.hpp"

namespace blaude::app {

namespace {

net::Rule rule_of(const std::string& text, net::Origin origin, std::string source) {
  return {std::get<net::Pattern>(net::parse_pattern(text)), origin, std::move(source)};
}

net::EnvLookup lookup(const sandbox::EnvList& env) {
  return [&env](std::string_view k) -> std::string {
    for (const auto& [key, value] : env)
      if (key == k) return value;
    return "";
  };
}

}  // namespace

sandbox::Grants take_network_grants(sandbox::Grants& grants) {
  sandbox::Grants net;
  for (const auto& g : grants)
    if (g.access == sandbox::Access::Net) net.push_back(g);
  std::erase_if(grants, [](const sandbox::Grant& g) { return g.access == sandbox::Access::Net; });
  return net;
}

net::Policy network_policy(const cli::Options& o, const sandbox::Grants& policy_grants,
                           const std::string& no_default_origin, const net::ProviderDefaults& defaults) {
  net::Policy p;
  for (const auto& d : o.allow_domains) p.rules.push_back(rule_of(d, net::Origin::CommandLine, "--allow-domain"));
  for (const auto& g : policy_grants) p.rules.push_back(rule_of(g.path, net::Origin::ProjectPolicy, g.origin));
  if (no_default_origin.empty())
    p.rules.insert(p.rules.end(), defaults.rules.begin(), defaults.rules.end());
  return p;
}

net::NetnsFacts netns_facts(const HostEnv& host, int landlock_abi, bool bwrap_setuid) {
  net::NetnsFacts f;
  f.landlock_abi = landlock_abi;
  f.bwrap_setuid = bwrap_setuid;
  f.switch_value = host.get("BLAUDE_NETNS");
  if (landlock_abi >= 6 || bwrap_setuid || f.switch_value == "off") return f;
  f.pasta = find_executable("pasta", host.get("PATH"), RelativeEntries::Skip).value_or("");
  // pasta makes its interface with /dev/net/tun, as the user: opening it makes nothing yet.
  if (int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC); fd >= 0)
    ::close(fd);
  else
    f.tun_problem = "/dev/net/tun: " + errno_text();
  return f;
}

NetDecision decide_network(const cli::Options& o, sandbox::Grants net_grants, const std::string& no_default_origin,
                           sandbox::EnvList& env, sandbox::SandboxRequest& req, std::vector<std::string>& notices,
                           const net::NetnsFacts& netns) {
  NetDecision d;
  if (o.allow_domains.empty() && o.publish.empty() && net_grants.empty()) {
    if (o.no_network) return d;
    // The default mode: the host's network, in a namespace of the sandbox's own where Landlock
    // cannot keep the host's abstract sockets out.
    net::NetnsChoice c = net::choose_netns(netns);
    if (!c.warning.empty()) notices.push_back("blaude: warning: " + c.warning);
    if (c.isolate) {
      req.proxy = sandbox::NetworkProxy{net::netns_bwrap_args(self_exe()), net::netns_prefix(kNetnsToken)};
      d.netns_pasta = netns.pasta;
      spdlog::info("net: the sandbox's own network namespace, joined to the host's network by {}", netns.pasta);
    }
    return d;
  }
  if (o.no_network) {  // the command line's --no-network wins over a policy's destinations
    notices.push_back("blaude: note: --no-network: the allow-domain lines of the policy (" + net_grants.front().origin +
                      ", ...) are not used");
    return d;
  }
  // The defaults follow what claude inside will see (the sandbox's environment, --env included).
  net::ProviderDefaults defaults = net::provider_defaults(lookup(env), o.remote_control_mode());
  for (const auto& w : defaults.warnings) notices.push_back("blaude: warning: " + w);
  NetLaunch l;
  l.policy = network_policy(o, net_grants, no_default_origin, defaults);
  l.publish = o.publish;
  if (std::string why = net::check_ports(l.policy, l.publish); !why.empty()) {
    d.failure = usage(why);
    return d;
  }
  net::ModeInputs in;
  in.policy = l.policy;
  in.publish = l.publish;
  in.host_exe = self_exe();
  in.capture = !netns.bwrap_setuid;
  net::ModePlan m = net::plan_mode(in);
  req.proxy = sandbox::NetworkProxy{m.bwrap_args, m.wrap({}), m.data};
  if (!in.capture) spdlog::info("net: no transparent capture: a setuid bwrap refuses --cap-add");
  const auto& replaced = net::replaced_env_names();
  std::erase_if(env, [&](const auto& kv) { return std::find(replaced.begin(), replaced.end(), kv.first) != replaced.end(); });
  env.insert(env.end(), m.env.begin(), m.env.end());
  for (const auto& line : net::describe(l.policy)) spdlog::info("net: allows {}", line);
  d.launch = std::move(l);
  return d;
}

// ---------------------------------------------------------------------------------------------

std::string control_runtime_dir(const std::string& xdg) {
  const unsigned uid = unsigned(::getuid());
  struct stat st{};
  const std::string mine = "/run/user/" + std::to_string(uid);
  const bool private_dir = xdg.empty() && ::lstat(mine.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
                           st.st_uid == uid && (st.st_mode & 077) == 0;
  return net::live_runtime_dir(xdg, uid, private_dir);
}

namespace {

// The session's control socket for `blaude net log` / `blaude net allow`: in a 0700 directory of
// the user's runtime dir (under /run: no sandbox sees it), made here when missing. "" (logged)
// when there is none; the session runs without it.
std::string live_socket(const std::string& runtime_dir) {
  std::string why;
  const std::string dir = net::live_dir(runtime_dir, why);
  if (dir.empty()) {
    spdlog::info("net: blaude net log/allow cannot reach this session: {}", why);
    return "";
  }
  // mkdir does not follow a link in the last component (EEXIST), and lstat below refuses one.
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    spdlog::warn("net: no control socket: cannot make {}: {}", dir, errno_text());
    return "";
  }
  // Reached without a link anywhere on the way: a link in the runtime dir's path could lead to
  // a directory a sandbox sees (/tmp); then the socket's path is only for the same user on the
  // host, to whom the directory belongs.
  struct stat st{};
  UniqueFd held = open_dir_no_symlinks(dir);
  if (!held || ::fstat(held.get(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() ||
      (st.st_mode & 077) != 0) {
    spdlog::warn("net: no control socket: {} is not a directory of yours with mode 0700, reached without a link", dir);
    return "";
  }
  const std::string path = dir + "/" + net::live_socket_name(long(::getpid()));
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    spdlog::warn("net: no control socket: {} is too long for a socket", path);
    return "";
  }
  return path;
}

}  // namespace

std::variant<std::unique_ptr<NetSession>, Failure> NetSession::start(const NetLaunch& l, const std::string& runtime_dir,
                                                                      std::vector<std::string>& argv,
                                                                      std::vector<int>& keep_fds) {
  std::unique_ptr<NetSession> s(new NetSession);
  net::ServiceConfig cfg;
  cfg.policy = l.policy;
  cfg.publish = l.publish;
  cfg.live_socket = live_socket(runtime_dir);
  // The relay's only way to the proxy: a socketpair it inherits, named nowhere (fdpass.hpp).
  int sv[2];
  if (make_socketpair(AF_UNIX, SOCK_SEQPACKET, sv) != 0)
    return Failure{"cannot make the relay's control channel: " + errno_text(), ""};
  s->control_parent_ = sv[0];
  s->control_child_ = sv[1];
  cfg.control_fd = sv[0];
  keep_fds.push_back(sv[1]);
  for (auto& a : argv)
    if (a == net::ModeInputs{}.control_token) a = std::to_string(s->control_child_);
  auto r = net::Service::start(cfg);
  if (auto* e = std::get_if<std::string>(&r)) {
    bool port = e->starts_with("cannot publish port");
    return Failure{*e, port ? "Stop what listens there, or publish another port." : ""};
  }
  s->service_ = std::get<std::unique_ptr<net::Service>>(std::move(r));
  return s;
}

std::string NetSession::finish() {
  if (!service_) return "";
  service_->stop();
  std::string line = service_->summary_line();
  // The allowlist grew during the session: never silently.
  if (const auto live = service_->allowed_live(); !live.empty()) {
    std::string list;
    for (const auto& p : live) list += (list.empty() ? "" : ", ") + p;
    if (!line.empty()) line += "\n";
    line += "blaude: allowed during the session from another terminal (blaude net allow): " + list;
  }
  // Turned away at the limit: not the allowlist's refusals, but a session whose connections
  // failed must say so (the limit is in the log, with the descriptor limit it came from).
  if (const size_t over = service_->stats().over_limit) {
    if (!line.empty()) line += "\n";
    line += "blaude: the proxy turned away " + std::to_string(over) +
            (over == 1 ? " connection" : " connections") + " at its limit of connections open at once";
  }
  service_.reset();
  return line;
}

NetSession::~NetSession() {
  finish();
  if (control_parent_ >= 0) ::close(control_parent_);
  if (control_child_ >= 0) ::close(control_child_);
}

// ---------------------------------------------------------------------------------------------

std::vector<std::string> network_report(const net::ProviderDefaults& defaults, const sandbox::Grants& policy_net,
                                        const std::string& no_default_origin) {
  std::vector<std::string> out;
  if (policy_net.empty()) {
    out.push_back("network: plain blaude uses the host's network here; --allow-domain or --publish selects proxy mode");
  } else {
    out.push_back("network: plain blaude uses proxy mode here (" + policy_net.front().origin +
                  " allows destinations); only allowed destinations are reachable, through blaude's proxy");
  }
  if (!no_default_origin.empty()) {
    out.push_back("  proxy mode allows no default hosts (no-default-domains, " + no_default_origin + ")");
  } else {
    out.push_back("  proxy mode allows by default, for " + defaults.provider + ":");
    for (const auto& r : defaults.rules) out.push_back("    " + r.pattern.text() + "  (" + r.source + ")");
  }
  for (const auto& w : defaults.warnings) out.push_back("  warning: " + w);
  return out;
}

net::ProviderDefaults host_defaults(const HostEnv& host, const cli::Options& o) {
  std::vector<std::string> env = host.environ;
  for (const auto& [k, v] : o.env) env.insert(env.begin(), k + "=" + v);  // first definition wins
  return net::provider_defaults(net::env_from(env), o.remote_control_mode());
}

std::string help_text(const HostEnv& host) {
  std::string out = cli::help_text();
  auto defaults = host_defaults(host, cli::Options{});
  out += "\nProxy mode's default hosts here (" + defaults.provider + "):";
  for (const auto& r : defaults.rules) out += " " + r.pattern.text();
  out += "\n";
  return out;
}

}  // namespace blaude::app
