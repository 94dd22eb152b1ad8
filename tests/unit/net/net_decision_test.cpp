// The egress decision: names first (before DNS), then the addresses they resolved to.
#include <string>
#include <vector>

#include "catch.hpp"
#include "net/decision.hpp"
#include "net/host_view.hpp"

using namespace blaude::net;

namespace {

Policy policy(std::vector<std::string> pats) {
  Policy p;
  for (auto& s : pats) p.rules.push_back({std::get<Pattern>(parse_pattern(s)), Origin::CommandLine, "--allow-domain"});
  return p;
}

Target target(const std::string& authority) {
  return {std::get<Authority>(parse_authority(authority, true)).host,
          std::get<Authority>(parse_authority(authority, true)).port};
}

std::vector<Address> addrs(std::vector<std::string> v) {
  std::vector<Address> out;
  for (auto& s : v) out.push_back(*parse_address(s));
  return out;
}

// The whole decision as the proxy takes it.
struct Result {
  bool allowed;
  std::string reason;
};
Result decide(const Policy& p, const std::string& dest, std::vector<std::string> resolved = {"93.184.216.34"}) {
  Target t = target(dest);
  NameDecision n = decide_name(p, t);
  if (!n.allowed) return {false, n.reason};
  auto a = t.host.is_ip() ? std::vector<Address>{*t.host.ip} : addrs(resolved);
  AddressDecision d = decide_addresses(p, t, n, a);
  return {d.allowed, d.reason};
}

}  // namespace

TEST_CASE("net decision: names and ports", "[net]") {
  Policy p = policy({"example.com", "*.cdn.example:443", "api.example.org:8443"});
  CHECK(decide(p, "example.com:80").allowed);
  CHECK(decide(p, "EXAMPLE.com.:443").allowed);
  CHECK_FALSE(decide(p, "www.example.com:443").allowed);  // exact means exact
  CHECK(decide(p, "a.cdn.example:443").allowed);
  CHECK(decide(p, "a.b.cdn.example:443").allowed);
  CHECK_FALSE(decide(p, "cdn.example:443").allowed);  // *.x: strict subdomains only
  CHECK_FALSE(decide(p, "evilcdn.example:443").allowed);
  CHECK_FALSE(decide(p, "a.cdn.example:80").allowed);
  CHECK(decide(p, "api.example.org:8443").allowed);
  CHECK_FALSE(decide(p, "api.example.org:443").allowed);
  auto r = decide(p, "evil.example:443");
  CHECK(r.reason == "evil.example:443 is not allowed");
  CHECK(allow_hint(target("evil.example:443")) == "--allow-domain evil.example:443");
  CHECK_FALSE(decide(policy({}), "example.com:443").allowed);  // empty policy: nothing
}

TEST_CASE("net decision: IP literals need their own rule or *", "[net]") {
  Policy p = policy({"10.0.0.5:22", "[2001:db8::1]"});
  CHECK(decide(p, "10.0.0.5:22").allowed);
  CHECK_FALSE(decide(p, "10.0.0.5:23").allowed);
  CHECK(decide(p, "[::ffff:10.0.0.5]:22").allowed);  // the mapped spelling is the same host
  CHECK(decide(p, "[2001:db8:0::1]:9").allowed);
  CHECK_FALSE(decide(p, "10.0.0.6:22").allowed);
  Policy any = policy({"*"});
  CHECK(decide(any, "93.184.216.34:443").allowed);
  auto r = decide(any, "10.0.0.5:22");
  CHECK_FALSE(r.allowed);
  CHECK(r.reason == "10.0.0.5:22 is a private address and needs its own rule");
  CHECK_FALSE(decide(any, "127.0.0.1:80").allowed);
  CHECK_FALSE(decide(any, "[::1]:80").allowed);
  CHECK_FALSE(decide(any, "[::ffff:127.0.0.1]:80").allowed);
  CHECK_FALSE(decide(any, "169.254.169.254:80").allowed);
  CHECK_FALSE(decide(any, "0.0.0.0:80").allowed);
  CHECK_FALSE(decide(any, "224.0.0.1:80").allowed);
  CHECK(decide(policy({"*", "127.0.0.1:8080"}), "127.0.0.1:8080").allowed);
}

TEST_CASE("net decision: a name that resolves to a refused address", "[net]") {
  Policy any = policy({"*"});
  auto r = decide(any, "localhost:8080", {"127.0.0.1", "::1"});
  CHECK_FALSE(r.allowed);
  CHECK(r.reason == "localhost resolves to 127.0.0.1, a loopback address, which needs a rule for localhost");
  auto inward = decide_addresses(policy({"api.example.com"}), target("api.example.com:443"),
                                 decide_name(policy({"api.example.com"}), target("api.example.com:443")),
                                 std::vector<Address>{*parse_address("10.0.0.7")});
  CHECK(inward.reason == "api.example.com resolves to 10.0.0.7, a private address, which needs a rule for that address");
  CHECK(inward.hint == "--allow-domain 10.0.0.7:443");
  CHECK_FALSE(decide(any, "metadata.evil:80", {"169.254.169.254"}).allowed);
  CHECK_FALSE(decide(policy({"*.evil.example"}), "a.evil.example:80", {"127.0.0.2"}).allowed);
  // One bad address refuses the whole answer (DNS rebinding).
  CHECK_FALSE(decide(any, "mixed.example:443", {"93.184.216.34", "127.0.0.1"}).allowed);
  CHECK_FALSE(decide(any, "mapped.example:443", {"::ffff:127.0.0.1"}).allowed);
  CHECK(decide(any, "v6.example:443", {"2606:4700::1111"}).allowed);
  // localhost by its rule; any other name only where the address itself has a rule.
  CHECK(decide(policy({"localhost:8080"}), "localhost:8080", {"127.0.0.1", "::1"}).allowed);
  CHECK(decide(policy({"*", "localhost"}), "localhost:8080", {"127.0.0.1"}).allowed);
  CHECK(decide(policy({"*.evil.example", "127.0.0.2"}), "a.evil.example:80", {"127.0.0.2"}).allowed);
  CHECK_FALSE(decide(policy({"*.evil.example", "127.0.0.2:81"}), "a.evil.example:80", {"127.0.0.2"}).allowed);
  // An exact rule for a name DNS points inward is not enough: the resolver may be the attacker's.
  CHECK_FALSE(decide(policy({"api.example.com"}), "api.example.com:443", {"127.0.0.1"}).allowed);
  CHECK_FALSE(decide(policy({"api.example.com"}), "api.example.com:443", {"10.0.0.7"}).allowed);
  CHECK_FALSE(decide(policy({"api.example.com"}), "api.example.com:443", {"169.254.169.254"}).allowed);
  // Private addresses: a rule for the address (a domain rule or * is not enough).
  CHECK_FALSE(decide(policy({"*.corp.example"}), "git.corp.example:443", {"10.1.2.3"}).allowed);
  CHECK(decide(policy({"*.corp.example", "10.1.2.3"}), "git.corp.example:443", {"10.1.2.3"}).allowed);
  CHECK_FALSE(decide(any, "git.corp.example:443", {"10.1.2.3"}).allowed);
  // Nothing resolved.
  CHECK(decide(any, "none.example:443", {}).reason == "none.example has no address");
}

TEST_CASE("net decision: names the hosts file answers may point inward", "[net]") {
  Policy p = policy({"dev.local", "*.corp.example", "*", "ads.example", "multi.example"});
  p.hosts_file_names = parse_hosts_file("127.0.0.2 dev.local\n10.1.2.3 git.corp.example # corp\n"
                                        "0.0.0.0 ads.example\n169.254.5.5 multi.example\n");
  CHECK(decide(p, "dev.local:3000", {"127.0.0.2"}).allowed);          // exact rule, hosts file
  CHECK(decide(p, "git.corp.example:443", {"10.1.2.3"}).allowed);     // private: a domain rule
  CHECK_FALSE(decide(policy({"*"}), "git.corp.example:443", {"10.1.2.3"}).allowed);  // control: no hosts file
  CHECK_FALSE(decide(p, "ads.example:443", {"0.0.0.0"}).allowed);     // never 0.0.0.0
  CHECK(decide(p, "multi.example:80", {"169.254.5.5"}).allowed);      // link-local: exact rule
  Policy star = policy({"*"});
  star.hosts_file_names = p.hosts_file_names;
  CHECK_FALSE(decide(star, "dev.local:3000", {"127.0.0.2"}).allowed);  // * reaches no inward address
  CHECK_FALSE(decide(star, "git.corp.example:443", {"10.1.2.3"}).allowed);
}

TEST_CASE("net decision: the host's own addresses are loopback by another name", "[net]") {
  Policy any = policy({"*"});
  any.host_addresses = {*parse_address("203.0.114.5"), *parse_address("2606:4700::5")};
  // The host's public address: * reaches every public address but this one.
  CHECK(decide(policy({"*"}), "203.0.114.5:22").allowed);  // control: not the host's
  auto r = decide(any, "203.0.114.5:22");
  CHECK_FALSE(r.allowed);
  CHECK(r.reason == "203.0.114.5:22 is an address of this host and needs its own rule");
  CHECK_FALSE(decide(any, "[::ffff:203.0.114.5]:22").allowed);
  CHECK_FALSE(decide(any, "me.example:443", {"2606:4700::5"}).allowed);
  CHECK(decide(any, "other.example:443", {"2606:4700::6"}).allowed);
  Policy named = policy({"*", "203.0.114.5:22"});
  named.host_addresses = any.host_addresses;
  CHECK(decide(named, "203.0.114.5:22").allowed);
}

TEST_CASE("net decision: the hosts file's names", "[net]") {
  auto n = parse_hosts_file("127.0.0.1\tlocalhost Localhost.Localdomain\n# 1.2.3.4 commented\n"
                            "::1 ip6-localhost # trailing\nnot-an-ip name\n 10.0.0.1   a  b \r\n\n1.2.3.4\n");
  CHECK(n == std::vector<std::string>{"a", "b", "ip6-localhost", "localhost", "localhost.localdomain"});
  CHECK(parse_hosts_file("1.1.1.1 a b c d", 2).size() == 2);
}

TEST_CASE("net decision: describe lists rules with their source", "[net]") {
  Policy p = policy({"*.example.com:443"});
  p.rules.push_back({std::get<Pattern>(parse_pattern("api.anthropic.com:443")), Origin::Default, "Anthropic API"});
  auto d = describe(p);
  REQUIRE(d.size() == 2);
  CHECK(d[0] == "*.example.com:443  (--allow-domain)");
  CHECK(d[1] == "api.anthropic.com:443  (Anthropic API)");
}
