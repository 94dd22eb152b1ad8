// Proxy mode as the app layer decides it: which rules, from where; the request, environment and
// host preparation it adds; and what stays untouched outside proxy mode.
#include <string>
#include <vector>

#include "app/network.hpp"
#include "catch.hpp"

using namespace blaude;
using namespace blaude::app;

namespace {
sandbox::Grants net_grants(std::vector<std::string> pats) {
  sandbox::Grants g;
  int n = 0;
  for (auto& p : pats) g.push_back({sandbox::Access::Net, p, "/w/.blaude:" + std::to_string(++n)});
  return g;
}
struct Run {
  NetDecision d;
  sandbox::SandboxRequest req;
  sandbox::EnvList env{{"HOME", "/home/u"}, {"HTTP_PROXY", "http://corp:8080"}, {"no_proxy", "corp.example"},
                       {"ANTHROPIC_BASE_URL", "http://127.0.0.1:41234"}};
  std::vector<std::string> notices;
};
// A kernel whose Landlock scopes abstract sockets unless said otherwise (net/netns.hpp).
Run decide(const cli::Options& o, sandbox::Grants g = {}, std::string no_default = "",
           net::NetnsFacts netns = {6, false, "", "", ""}) {
  Run r;
  r.d = decide_network(o, std::move(g), no_default, r.env, r.req, r.notices, netns);
  return r;
}
std::string env_of(const Run& r, const std::string& k) {
  std::string v = "<unset>";
  for (const auto& [key, value] : r.env)
    if (key == k) v = value;
  return v;
}
}  // namespace

TEST_CASE("app net: default mode is untouched", "[net]") {
  Run r = decide(cli::Options{});
  CHECK_FALSE(r.d.launch);
  CHECK_FALSE(r.d.failure);
  CHECK_FALSE(r.req.proxy);
  CHECK(env_of(r, "HTTP_PROXY") == "http://corp:8080");
}

TEST_CASE("app net: proxy mode from the command line and the policy", "[net]") {
  cli::Options o;
  o.allow_domains = {"example.com"};
  Run r = decide(o, net_grants({"*.npmjs.org:443"}));
  REQUIRE(r.d.launch);
  const auto& rules = r.d.launch->policy.rules;
  REQUIRE(rules.size() == 3);
  CHECK(rules[0].pattern.text() == "example.com");
  CHECK(rules[0].source == "--allow-domain");
  CHECK(rules[1].source == "/w/.blaude:1");
  CHECK(rules[2].pattern.text() == "127.0.0.1:41234");  // the sandbox's ANTHROPIC_BASE_URL
  CHECK(rules[2].source == "ANTHROPIC_BASE_URL");
  REQUIRE(r.req.proxy);
  CHECK(r.req.proxy->bwrap_args.front() == "--unshare-net");
  CHECK(r.req.proxy->command_prefix.back() == "--");
  // The loopback default is reachable inside at its own address too.
  std::string prefix;
  for (const auto& a : r.req.proxy->command_prefix) prefix += a + " ";
  CHECK(prefix.find("--forward 41234=127.0.0.1:41234@127.0.0.1") != std::string::npos);
  CHECK(env_of(r, "HTTP_PROXY") == "http://127.0.0.1:3128");
  CHECK(env_of(r, "no_proxy") == "localhost,127.0.0.1,::1");
  CHECK(env_of(r, "ALL_PROXY") == "socks5h://127.0.0.1:3128");
  // Nothing of the proxy's is bound into the sandbox or made on the host: the relay reaches it
  // through the control channel it inherits (its descriptor fills the token at launch).
  CHECK(prefix.find("proxy.sock") == std::string::npos);
  CHECK(prefix.find("--control-fd @fd:net-control") != std::string::npos);
  for (const auto& a : r.req.proxy->bwrap_args) CHECK(a.find("proxy.sock") == std::string::npos);
}

TEST_CASE("app net: no-default-domains, --publish alone, --no-network over a policy", "[net]") {
  cli::Options o;
  o.allow_domains = {"example.com"};
  Run r = decide(o, {}, "/home/u/.config/blaude/policy:1");
  REQUIRE(r.d.launch);
  CHECK(r.d.launch->policy.rules.size() == 1);

  cli::Options p;
  p.publish = {5173};
  Run q = decide(p);
  REQUIRE(q.d.launch);
  CHECK(q.d.launch->publish == std::vector<uint16_t>{5173});

  cli::Options n;
  n.no_network = true;
  Run s = decide(n, net_grants({"example.com"}));
  CHECK_FALSE(s.d.launch);
  CHECK_FALSE(s.req.proxy);
  REQUIRE(s.notices.size() == 1);
  CHECK(s.notices[0].find("--no-network: the allow-domain lines of the policy (/w/.blaude:1") != std::string::npos);
}

TEST_CASE("app net: port conflicts are usage errors", "[net]") {
  cli::Options o;
  o.publish = {41234};  // the default loopback forward of ANTHROPIC_BASE_URL
  Run r = decide(o);
  REQUIRE(r.d.failure);
  CHECK(r.d.failure->exit_code == 2);
  CHECK(r.d.failure->what == "--publish 41234 and --allow-domain 127.0.0.1:41234 both want port 41234 inside the sandbox");
}

TEST_CASE("app net: the report says which mode plain blaude uses", "[net]") {
  auto defaults = net::provider_defaults(net::env_from({}), false);
  auto plain = network_report(defaults, {}, "");
  CHECK(plain[0].starts_with("network: plain blaude uses the host's network here"));
  CHECK(plain[1] == "  proxy mode allows by default, for Anthropic API:");
  CHECK(plain[2] == "    api.anthropic.com:443  (Anthropic API)");
  auto proxy = network_report(defaults, net_grants({"example.com"}), "");
  CHECK(proxy[0].starts_with("network: plain blaude uses proxy mode here (/w/.blaude:1 allows destinations)"));
  auto none = network_report(defaults, {}, "/h/policy:2");
  CHECK(none[1] == "  proxy mode allows no default hosts (no-default-domains, /h/policy:2)");
  sandbox::Grants mixed{{sandbox::Access::Read, "/x", "o"}, {sandbox::Access::Net, "a.example", "o"}};
  auto taken = take_network_grants(mixed);
  CHECK(taken.size() == 1);
  CHECK(mixed.size() == 1);
  CHECK(mixed[0].path == "/x");
}

TEST_CASE("app net: the default mode before Landlock ABI 6 gets its own namespace, joined by pasta", "[net]") {
  const net::NetnsFacts old{5, false, "/usr/bin/pasta", "", ""};
  Run r = decide(cli::Options{}, {}, "", old);
  REQUIRE(r.req.proxy);
  CHECK(r.req.proxy->bwrap_args.front() == "--unshare-net");
  CHECK(r.req.proxy->command_prefix == net::netns_prefix(kNetnsToken));
  CHECK(r.d.netns_pasta == "/usr/bin/pasta");
  CHECK_FALSE(r.d.launch);  // no proxy
  CHECK(r.notices.empty());
  CHECK(env_of(r, "HTTP_PROXY") == "http://corp:8080");  // the host's network: its variables stay
  cli::Options none;
  none.no_network = true;  // loopback only already: nothing to add
  Run n = decide(none, {}, "", old);
  CHECK_FALSE(n.req.proxy);
  CHECK(n.d.netns_pasta.empty());
  CHECK(n.notices.empty());
  net::NetnsFacts missing = old;
  missing.pasta = "";  // the host's network, and the warning that names the fix
  Run m = decide(cli::Options{}, {}, "", missing);
  CHECK_FALSE(m.req.proxy);
  REQUIRE(m.notices.size() == 1);
  CHECK(m.notices[0].find("apt install passt") != std::string::npos);
}
