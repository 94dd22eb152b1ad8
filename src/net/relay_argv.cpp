// The pure half of the relay wrapper: which forwards a policy implies, and its argv both ways.
#include <algorithm>

#include "net/host.hpp"
#include "net/relay_argv.hpp"

namespace blaude::net {

std::vector<Forward> loopback_forwards(const Policy& policy) {
  std::vector<Forward> out;
  for (const Rule& r : policy.rules) {
    const Pattern& p = r.pattern;
    if (!p.port) continue;
    Forward f;
    f.port = *p.port;
    f.connect_to = p.text();
    if (p.kind == Pattern::Kind::Exact && p.name == "localhost") {
      f.binds = {"127.0.0.1", "::1"};
    } else if (p.kind == Pattern::Kind::Ip && classify(*p.ip) == AddressClass::Loopback) {
      f.binds = {format_address(embedded_v4_or_self(*p.ip))};
    } else {
      continue;
    }
    auto same = [&](const Forward& o) { return o.port == f.port; };
    if (std::none_of(out.begin(), out.end(), same)) out.push_back(std::move(f));
  }
  return out;
}

std::vector<uint16_t> capture_ports(const Policy& policy, const std::vector<uint16_t>& publish) {
  std::vector<uint16_t> out(std::begin(kCaptureAlways), std::end(kCaptureAlways));
  for (const Rule& r : policy.rules)
    if (r.pattern.port) out.push_back(*r.pattern.port);
  std::vector<uint16_t> taken = publish;
  taken.push_back(kProxyPort);
  for (const Forward& f : loopback_forwards(policy)) taken.push_back(f.port);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  std::erase_if(out, [&](uint16_t p) { return std::find(taken.begin(), taken.end(), p) != taken.end(); });
  return out;
}

std::vector<std::string> relay_argv(const RelaySpec& s) {
  std::vector<std::string> a{kSandboxExe, kRelayCommand, "--listen", std::to_string(s.proxy_port)};
  for (const Forward& f : s.forwards) {
    std::string binds;
    for (const auto& b : f.binds) binds += (binds.empty() ? "" : ",") + b;
    a.insert(a.end(), {"--forward", std::to_string(f.port) + "=" + f.connect_to + "@" + binds});
  }
  if (s.control_fd >= 0 || !s.control_token.empty())
    a.insert(a.end(), {"--control-fd", s.control_token.empty() ? std::to_string(s.control_fd) : s.control_token});
  for (uint16_t p : s.publish) a.insert(a.end(), {"--publish", std::to_string(p)});
  for (uint16_t p : s.capture) a.insert(a.end(), {"--capture", std::to_string(p)});
  if (!s.dns.empty()) a.insert(a.end(), {"--dns", s.dns});
  a.push_back("--");
  a.insert(a.end(), s.command.begin(), s.command.end());
  return a;
}

std::variant<RelaySpec, std::string> parse_relay_args(const std::vector<std::string>& args) {
  RelaySpec s;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& o = args[i];
    if (o == "--") {
      s.command.assign(args.begin() + long(i) + 1, args.end());
      if (s.command.empty()) return std::string("no command after --");
      if (s.control_fd < 0) return std::string("no --control-fd: the relay reaches the proxy only through it");
      return s;
    }
    if (i + 1 >= args.size()) return o + " needs a value";
    const std::string& val = args[++i];
    if (o == "--listen" || o == "--publish" || o == "--capture") {
      auto p = parse_port(val);
      if (!p) return o + ": not a port: " + val;
      if (o == "--listen") s.proxy_port = *p;
      else if (o == "--publish") s.publish.push_back(*p);
      else s.capture.push_back(*p);
    } else if (o == "--dns") {
      auto ip = parse_address(val);
      if (!ip || !ip->v4()) return "--dns: not an IPv4 address: " + val;
      s.dns = val;
    } else if (o == "--control-fd") {
      if (val.empty() || val.size() > 6 || !std::all_of(val.begin(), val.end(), [](char c) { return c >= '0' && c <= '9'; })) return "--control-fd: " + val;
      s.control_fd = std::stoi(val);
    } else if (o == "--forward") {
      size_t eq = val.find('='), at = val.rfind('@');
      if (eq == std::string::npos || at == std::string::npos || at < eq) return "--forward: " + val;
      auto p = parse_port(val.substr(0, eq));
      if (!p) return "--forward: " + val;
      Forward f{*p, val.substr(eq + 1, at - eq - 1), {}};
      std::string binds = val.substr(at + 1);
      for (size_t k = 0; k <= binds.size();) {
        size_t c = binds.find(',', k);
        if (c == std::string::npos) c = binds.size();
        if (c > k) f.binds.push_back(binds.substr(k, c - k));
        k = c + 1;
      }
      if (f.binds.empty() || f.connect_to.empty()) return "--forward: " + val;
      s.forwards.push_back(std::move(f));
    } else {
      return "unknown option " + o;
    }
  }
  return std::string("no -- before the command");
}

}  // namespace blaude::net
