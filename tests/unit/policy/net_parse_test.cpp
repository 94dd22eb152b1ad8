// `allow-domain` and `no-default-domains` in the policy language: destinations as grants of
// kind net, in canonical spelling, with file:line errors; ordered above reads by risk.
#include <string>

#include "catch.hpp"
#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/policy/print.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using blaude::sandbox::testing::test_context;

namespace {
PolicyResult parse(const std::string& text) { return parse_policy(text, "/p/.blaude", test_context()); }
}  // namespace

TEST_CASE("policy net: allow-domain lines are net grants", "[net]") {
  auto r = parse("allow-domain Registry.NPMJS.org\nallow-domain [::1]:8080  # dev api\nno-default-domains\n");
  REQUIRE(r.ok());
  REQUIRE(r.policy.grants.size() == 2);
  CHECK(r.policy.grants[0].access == Access::Net);
  CHECK(r.policy.grants[0].path == "registry.npmjs.org");
  CHECK(r.policy.grants[0].origin == "/p/.blaude:1");
  CHECK(r.policy.grants[1].path == "[::1]:8080");
  CHECK(r.policy.no_default_domains == "/p/.blaude:3");
  CHECK(format_grants(r.policy.grants).find("  net    registry.npmjs.org") != std::string::npos);
}

TEST_CASE("policy net: bad patterns name the line", "[net]") {
  auto r = parse("allow-read ~/x\nallow-domain https://x.example/\n");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors[0].line == 2);
  CHECK(r.errors[0].why == "allow-domain https://x.example/: it is a URL, not a host (drop the scheme: write x.example)");
  CHECK(parse("allow-domain\n").errors[0].why == "allow-domain needs a pattern");
  CHECK(parse("no-default-domains now\n").errors[0].why == "no-default-domains takes no argument");
  CHECK(r.policy.grants.empty());
}

TEST_CASE("policy net: destinations sort between writes and reads", "[net]") {
  auto r = parse("allow-read ~/r\nallow-domain a.example\nallow-write ~/w\nallow-domain a.example\n");
  REQUIRE(r.ok());
  Grants g = policy_grants(r.policy);
  REQUIRE(g.size() == 3);
  CHECK(g[0].access == Access::Write);
  CHECK(g[1].access == Access::Net);
  CHECK(g[1].origin == "/p/.blaude:2, /p/.blaude:4");
  CHECK(g[2].access == Access::Read);
  auto d = diff_grants({}, g);
  CHECK(format_diff(d).find("  + net    a.example") != std::string::npos);
}

TEST_CASE("policy: workspace-path host|seed", "[policy]") {
  auto r = parse("workspace-path seed\n");
  REQUIRE(r.ok());
  CHECK(r.policy.workspace_path == "seed");
  CHECK(r.policy.workspace_path_origin == "/p/.blaude:1");
  CHECK(parse("workspace-path host\n").policy.workspace_path == "host");
  CHECK(parse("# nothing\n").policy.workspace_path.empty());
  for (const char* bad : {"workspace-path\n", "workspace-path /workspaces\n", "workspace-path Seed\n"}) {
    auto b = parse(bad);
    REQUIRE(b.errors.size() == 1);
    CHECK(b.errors[0].why.find("workspace-path takes host") == 0);
  }
  auto twice = parse("workspace-path seed\nworkspace-path host\n");
  REQUIRE(twice.errors.size() == 1);
  CHECK(twice.errors[0].line == 2);
}
