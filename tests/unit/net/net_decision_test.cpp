// The egress decision: names first (before DNS), then the addresses they resolved to.
#include <string>
#include <vector>

#include "catch.hpp"
#include "net/decision.hpp"

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
  CHECK(r.reason == "localhost resolves to 127.0.0.1, a loopback address, which needs a rule naming that host");
  CHECK_FALSE(decide(any, "metadata.evil:80", {"169.254.169.254"}).allowed);
  CHECK_FALSE(decide(policy({"*.evil.example"}), "a.evil.example:80", {"127.0.0.2"}).allowed);
  // One bad address refuses the whole answer (DNS rebinding).
  CHECK_FALSE(decide(any, "mixed.example:443", {"93.184.216.34", "127.0.0.1"}).allowed);
  CHECK_FALSE(decide(any, "mapped.example:443", {"::ffff:127.0.0.1"}).allowed);
  CHECK(decide(any, "v6.example:443", {"2606:4700::1111"}).allowed);
  // Explicit: the exact name, or the address itself.
  CHECK(decide(policy({"localhost:8080"}), "localhost:8080", {"127.0.0.1", "::1"}).allowed);
  CHECK(decide(policy({"*", "localhost"}), "localhost:8080", {"127.0.0.1"}).allowed);
  CHECK(decide(policy({"*.evil.example", "127.0.0.2"}), "a.evil.example:80", {"127.0.0.2"}).allowed);
  CHECK_FALSE(decide(policy({"*.evil.example", "127.0.0.2:81"}), "a.evil.example:80", {"127.0.0.2"}).allowed);
  // Private addresses: a domain rule is enough, * is not.
  CHECK(decide(policy({"*.corp.example"}), "git.corp.example:443", {"10.1.2.3"}).allowed);
  CHECK_FALSE(decide(any, "git.corp.example:443", {"10.1.2.3"}).allowed);
  // Nothing resolved.
  CHECK(decide(any, "none.example:443", {}).reason == "none.example has no address");
}

TEST_CASE("net decision: the strongest matching rule counts", "[net]") {
  Policy p = policy({"*", "*.corp.example", "db.corp.example"});
  Target t = target("db.corp.example:5432");
  NameDecision n = decide_name(p, t);
  REQUIRE(n.allowed);
  CHECK(n.rule == 2);
  CHECK(decide(p, "db.corp.example:5432", {"127.0.0.1"}).allowed);
  CHECK_FALSE(decide(p, "web.corp.example:80", {"127.0.0.1"}).allowed);
  CHECK(decide(p, "web.corp.example:80", {"192.168.0.9"}).allowed);
}

TEST_CASE("net decision: describe lists rules with their source", "[net]") {
  Policy p = policy({"*.example.com:443"});
  p.rules.push_back({std::get<Pattern>(parse_pattern("api.anthropic.com:443")), Origin::Default, "Anthropic API"});
  auto d = describe(p);
  REQUIRE(d.size() == 2);
  CHECK(d[0] == "*.example.com:443  (--allow-domain)");
  CHECK(d[1] == "api.anthropic.com:443  (Anthropic API)");
}
