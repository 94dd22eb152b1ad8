#include "net/mode.hpp"

#include <algorithm>

namespace blaude::net {

std::vector<std::pair<std::string, std::string>> proxy_env(uint16_t port) {
  const std::string http = "http://127.0.0.1:" + std::to_string(port);
  const std::string socks = "socks5h://127.0.0.1:" + std::to_string(port);
  const std::string none = "localhost,127.0.0.1,::1";
  return {{"HTTP_PROXY", http},  {"HTTPS_PROXY", http}, {"http_proxy", http}, {"https_proxy", http},
          {"ALL_PROXY", socks},  {"all_proxy", socks},  {"NO_PROXY", none},   {"no_proxy", none}};
}

const std::vector<std::string>& replaced_env_names() {
  static const std::vector<std::string> names{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
                                              "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
                                              "SOCKS_PROXY", "socks_proxy", "FTP_PROXY", "ftp_proxy"};
  return names;
}

std::string capture_resolv_conf() {
  return std::string("# blaude proxy mode: the relay inside answers every name (transparent capture)\nnameserver ") +
         kCaptureDns + "\n";
}

std::string capture_hosts() {
  return "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n127.0.1.1 blaude\n";
}

ModePlan plan_mode(const ModeInputs& in) {
  ModePlan m;
  m.bwrap_args = {"--unshare-net", "--dir", kSandboxDir, "--ro-bind", in.host_exe, kSandboxExe};
  m.env = proxy_env(kProxyPort);
  m.relay.forwards = loopback_forwards(in.policy);
  m.relay.publish = in.publish;
  m.relay.control_token = in.control_token;
  if (in.capture) {
    m.bwrap_args.insert(m.bwrap_args.end(), {"--cap-add", "CAP_NET_ADMIN", "--cap-add", "CAP_NET_BIND_SERVICE",
                                             "--cap-add", "CAP_SETPCAP", "--ro-bind-data", "@fd:net-resolv",
                                             "/etc/resolv.conf", "--ro-bind-data", "@fd:net-hosts", "/etc/hosts"});
    m.data = {{"@fd:net-resolv", capture_resolv_conf()}, {"@fd:net-hosts", capture_hosts()}};
    m.relay.capture = capture_ports(in.policy, in.publish);
    m.relay.dns = kCaptureDns;
  }
  return m;
}

std::vector<std::string> ModePlan::wrap(const std::vector<std::string>& command) const {
  RelaySpec s = relay;
  s.command = command;
  return relay_argv(s);
}

std::string check_ports(const Policy& policy, const std::vector<uint16_t>& publish) {
  auto fwd = loopback_forwards(policy);
  for (uint16_t p : publish) {
    if (p == kProxyPort)
      return "--publish " + std::to_string(p) + ": that port is blaude's proxy inside the sandbox";
    for (const Forward& f : fwd)
      if (f.port == p)
        return "--publish " + std::to_string(p) + " and --allow-domain " + f.connect_to +
               " both want port " + std::to_string(p) + " inside the sandbox";
  }
  for (const Forward& f : fwd)
    if (f.port == kProxyPort)
      return "--allow-domain " + f.connect_to + ": port " + std::to_string(kProxyPort) +
             " inside the sandbox is blaude's proxy";
  return "";
}

}  // namespace blaude::net
